"""PostgreSQL: the index's vocabulary, for "Did you mean" (search.suggest).

SQLite's FTS5 has its vocabulary as a table (0002); a GIN index on tsvectors has none
that can be read. ``search_word`` holds every lexeme of every article's search vector,
with pg_trgm's GiST index to find the words nearest a typo. Triggers add the words of
new and changed vectors, each statement's in one INSERT, in order, so that two saves
adding the same new words wait for each other rather than deadlock. Words are never
taken out (a word of a deleted article stays): the table only says where to look, and
search.suggest checks every word it finds there against published articles, as it must
anyway, since the words of drafts are in it too.

pg_trgm is one of PostgreSQL's contrib extensions (Debian's postgresql package has it)
and is trusted: the database's owner may create it.
"""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

INSTALL = [
    "CREATE TABLE IF NOT EXISTS search_word (word text PRIMARY KEY)",
    """CREATE INDEX IF NOT EXISTS search_word_trigram
        ON search_word USING gist (word gist_trgm_ops)""",
    """CREATE OR REPLACE FUNCTION search_word_inserted() RETURNS trigger AS $$
    BEGIN
        INSERT INTO search_word (word)
        SELECT DISTINCT word.lexeme FROM new_rows CROSS JOIN LATERAL unnest(new_rows.search_vector) AS word
        ORDER BY word.lexeme
        ON CONFLICT DO NOTHING;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE OR REPLACE FUNCTION search_word_updated() RETURNS trigger AS $$
    BEGIN
        INSERT INTO search_word (word)
        SELECT DISTINCT word.lexeme FROM new_rows
            JOIN old_rows ON old_rows.id = new_rows.id
            CROSS JOIN LATERAL unnest(new_rows.search_vector) AS word
        WHERE new_rows.search_vector IS DISTINCT FROM old_rows.search_vector
        ORDER BY word.lexeme
        ON CONFLICT DO NOTHING;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE OR REPLACE TRIGGER search_word_insert AFTER INSERT ON news_article
        REFERENCING NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION search_word_inserted()""",
    """CREATE OR REPLACE TRIGGER search_word_update AFTER UPDATE ON news_article
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
        FOR EACH STATEMENT EXECUTE FUNCTION search_word_updated()""",
    """INSERT INTO search_word (word)
        SELECT DISTINCT word.lexeme FROM news_article
            CROSS JOIN LATERAL unnest(news_article.search_vector) AS word
        ON CONFLICT DO NOTHING""",
]

REMOVE = [
    "DROP TRIGGER IF EXISTS search_word_insert ON news_article",
    "DROP TRIGGER IF EXISTS search_word_update ON news_article",
    "DROP FUNCTION IF EXISTS search_word_inserted()",
    "DROP FUNCTION IF EXISTS search_word_updated()",
    "DROP TABLE IF EXISTS search_word",
]


def run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for statement in statements:
                schema_editor.execute(statement, params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("search", "0005_reindex_changed_text")]

    operations = [
        # Does nothing on SQLite (Django's CreateExtension looks at the database first).
        TrigramExtension(),
        migrations.RunPython(run(INSTALL), run(REMOVE)),
    ]
