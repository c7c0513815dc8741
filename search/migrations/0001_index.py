"""The full-text index of articles, outside the Django model (see search.query).

SQLite: an FTS5 table with news_article as its external content, kept by triggers.
PostgreSQL: a tsvector column kept by a trigger, with a GIN index.
Every statement is safe to repeat (databases that had the index from news's former
post_migrate step keep it).

A later migration that makes Django rebuild news_article on SQLite (most column
changes do) drops the triggers with the old table: give it a search migration that
runs this one's SQL again (``reinstall`` below), as tests/test_search_index.py checks.
"""

from django.db import migrations

FTS_TABLE = "news_article_fts"

SQLITE_INSTALL = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(
        title, summary, search_extra, body_text,
        content='news_article', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_insert AFTER INSERT ON news_article BEGIN
        INSERT INTO {FTS_TABLE}(rowid, title, summary, search_extra, body_text)
        VALUES (new.id, new.title, new.summary, new.search_extra, new.body_text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_delete AFTER DELETE ON news_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, search_extra, body_text)
        VALUES ('delete', old.id, old.title, old.summary, old.search_extra, old.body_text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_update AFTER UPDATE ON news_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, search_extra, body_text)
        VALUES ('delete', old.id, old.title, old.summary, old.search_extra, old.body_text);
        INSERT INTO {FTS_TABLE}(rowid, title, summary, search_extra, body_text)
        VALUES (new.id, new.title, new.summary, new.search_extra, new.body_text);
    END""",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 1.0)')",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]

POSTGRES_INSTALL = [
    "ALTER TABLE news_article ADD COLUMN IF NOT EXISTS search_vector tsvector",
    """CREATE OR REPLACE FUNCTION news_article_search_vector() RETURNS trigger AS $$
    BEGIN
        NEW.search_vector :=
            setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A') ||
            setweight(to_tsvector('english', coalesce(NEW.summary, '')), 'B') ||
            setweight(to_tsvector('english', coalesce(NEW.search_extra, '')), 'C') ||
            setweight(to_tsvector('english', coalesce(NEW.body_text, '')), 'D');
        RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    """CREATE OR REPLACE TRIGGER news_article_search_vector
        BEFORE INSERT OR UPDATE OF title, summary, search_extra, body_text ON news_article
        FOR EACH ROW EXECUTE FUNCTION news_article_search_vector()""",
    """CREATE INDEX IF NOT EXISTS news_article_search_vector_gin
        ON news_article USING gin (search_vector)""",
    "UPDATE news_article SET title = title WHERE search_vector IS NULL",
]

SQLITE_REMOVE = [
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_insert",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_delete",
    f"DROP TRIGGER IF EXISTS {FTS_TABLE}_update",
    f"DROP TABLE IF EXISTS {FTS_TABLE}",
]

POSTGRES_REMOVE = [
    "DROP TRIGGER IF EXISTS news_article_search_vector ON news_article",
    "DROP FUNCTION IF EXISTS news_article_search_vector()",
    "ALTER TABLE news_article DROP COLUMN IF EXISTS search_vector",
]


def run(statements):
    def apply(apps, schema_editor):
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return apply


reinstall = run({"sqlite": SQLITE_INSTALL, "postgresql": POSTGRES_INSTALL})


class Migration(migrations.Migration):
    dependencies = [("news", "0009_pending_purges_move_to_pagecache")]

    operations = [
        migrations.RunPython(
            reinstall, run({"sqlite": SQLITE_REMOVE, "postgresql": POSTGRES_REMOVE})
        ),
    ]
