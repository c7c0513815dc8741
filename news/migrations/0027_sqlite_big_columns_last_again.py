"""SQLite only: the long texts last again. Adding social_image (0026) rebuilt
news_article on SQLite in its fields' order (see 0020); search 0007 reinstalls the index's
triggers, which went with the old table."""

import importlib

from django.db import migrations

big_columns_last = importlib.import_module("news.migrations.0020_sqlite_big_columns_last")


class Migration(migrations.Migration):
    dependencies = [("news", "0026_search_and_social")]

    operations = [
        migrations.RunPython(big_columns_last.big_columns_last, migrations.RunPython.noop)
    ]
