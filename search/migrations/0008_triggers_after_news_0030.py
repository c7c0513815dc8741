"""The SQLite index's triggers again, after news 0030 rebuilt news_article to keep its
long texts last (a table's triggers go with it), as 0007 did after news 0027."""

import importlib

from django.db import migrations

AFTER_0027 = importlib.import_module("search.migrations.0007_triggers_after_news_0027")


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0007_triggers_after_news_0027"),
        ("news", "0030_article_email_subscribers"),
    ]

    operations = [migrations.RunPython(AFTER_0027.reinstall, migrations.RunPython.noop)]
