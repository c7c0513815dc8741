"""The SQLite index's triggers again, after news 0020 rebuilt news_article (a table's
triggers go with it). The index itself is keyed by article id and stays valid."""

import importlib

from django.db import migrations

TRIGGERS = [
    statement
    for statement in importlib.import_module("search.migrations.0001_index").SQLITE_INSTALL
    if statement.startswith("CREATE TRIGGER")
]


def reinstall(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in TRIGGERS:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [("search", "0002_vocabulary"), ("news", "0020_sqlite_big_columns_last")]

    operations = [migrations.RunPython(reinstall, migrations.RunPython.noop)]
