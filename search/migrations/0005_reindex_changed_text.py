"""SQLite's index: an article re-indexed only when its text changes.

Every save of an article (publishing, scheduling, new dates) rewrote its entry
in the full-text index, each a new index segment that every search then reads (see
search.index). The update trigger now skips saves that leave the four indexed columns
as they were.

A later migration that rebuilds news_article must reinstall TRIGGER below with the
others (see 0003).
"""

from django.db import migrations

FTS_TABLE = "news_article_fts"
COLUMNS = ("title", "summary", "search_extra", "body_text")


def _values(row):
    return ", ".join(f"{row}.{column}" for column in COLUMNS)


TRIGGER = f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_update
    AFTER UPDATE OF {", ".join(COLUMNS)} ON news_article
    WHEN {" OR ".join(f"old.{column} IS NOT new.{column}" for column in COLUMNS)}
    BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {", ".join(COLUMNS)})
        VALUES ('delete', old.id, {_values("old")});
        INSERT INTO {FTS_TABLE}(rowid, {", ".join(COLUMNS)}) VALUES (new.id, {_values("new")});
    END"""

FORMER_TRIGGER = f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_update
    AFTER UPDATE ON news_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, {", ".join(COLUMNS)})
        VALUES ('delete', old.id, {_values("old")});
        INSERT INTO {FTS_TABLE}(rowid, {", ".join(COLUMNS)}) VALUES (new.id, {_values("new")});
    END"""


def install(trigger):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {FTS_TABLE}_update", params=None)
            schema_editor.execute(trigger, params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("search", "0004_postgres_vectors_inline")]

    operations = [
        migrations.RunPython(install(TRIGGER), install(FORMER_TRIGGER)),
    ]
