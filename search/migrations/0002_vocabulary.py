"""The vocabulary of the SQLite full-text index: the words a prefix stands for (see
search.query.SQLiteEngine). PostgreSQL matches prefixes in its index and needs none."""

from django.db import migrations

FTS_VOCAB = "news_article_fts_vocab"


def run(statement):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "sqlite":
            schema_editor.execute(statement, params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("search", "0001_index")]

    operations = [
        migrations.RunPython(
            run(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_VOCAB} "
                "USING fts5vocab(news_article_fts, 'row')"
            ),
            run(f"DROP TABLE IF EXISTS {FTS_VOCAB}"),
        ),
    ]
