"""The SQLite index's triggers again, after news 0026 and 0027 rebuilt news_article (a
table's triggers go with it): 0001's insert and delete triggers, and 0005's update
trigger. The index itself is keyed by article id and stays valid."""

import importlib

from django.db import migrations

INDEX = importlib.import_module("search.migrations.0001_index")
CHANGED_TEXT = importlib.import_module("search.migrations.0005_reindex_changed_text")
TRIGGERS = [
    statement
    for statement in INDEX.SQLITE_INSTALL
    if statement.startswith("CREATE TRIGGER") and f"{INDEX.FTS_TABLE}_update" not in statement
] + [CHANGED_TEXT.TRIGGER]


def reinstall(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        for statement in TRIGGERS:
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("search", "0006_postgres_vocabulary"),
        ("news", "0027_sqlite_big_columns_last_again"),
    ]

    operations = [migrations.RunPython(reinstall, migrations.RunPython.noop)]
