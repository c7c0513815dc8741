"""SQLite only: news_article's long texts become its last columns.

SQLite stores a row's columns in order and spills what does not fit a page into a chain
of overflow pages; reading a column means walking the chain past every long text before
it. The body and its HTML and plain text sat before event_date, published_at and status,
so every list, topic, archive and "around" query walked several pages per article to read
three small values (archive months took 3.7x longer at 100,000 articles than at 1,000).
PostgreSQL keeps long values out of line (TOAST) and needs nothing.

Django rebuilds the table in its fields' order (its migration state knows no physical
order), so a later migration that rebuilds news_article on SQLite puts the texts back in
the middle: tests/test_sqlite_layout.py fails then; run ``big_columns_last`` again in that
migration (and reinstall the search triggers, as search/migrations/0003 does).
"""

from django.db import migrations

# Read least often last: the Markdown only when editing.
BIG_COLUMNS = ("search_extra", "body_text", "body_html", "body")


def big_columns_last(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    model = apps.get_model("news", "Article")
    meta = model._meta
    fields = list(meta.local_concrete_fields)
    wanted = [f for f in fields if f.name not in BIG_COLUMNS] + [
        meta.get_field(name) for name in BIG_COLUMNS
    ]
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(f"PRAGMA table_info({meta.db_table})")
        stored = [row[1] for row in cursor.fetchall()]
    if stored[-len(BIG_COLUMNS) :] == [meta.get_field(name).column for name in BIG_COLUMNS]:
        return
    # _remake_table makes a model of these fields, which orders them (and its table's
    # columns) by their creation counters: counted afresh in the order wanted meanwhile.
    counters = {field: field.creation_counter for field in fields}
    start = max(counters.values()) + 1
    for offset, field in enumerate(wanted):
        field.creation_counter = start + offset
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1' AND type = 'table'")
        analyzed = cursor.fetchone() is not None
    try:
        schema_editor._remake_table(model)
    finally:
        for field, counter in counters.items():
            field.creation_counter = counter
    if analyzed:
        # The planner's statistics went with the old table; without them it reads an
        # archive month through the index on status, all the site's articles.
        schema_editor.execute(f"ANALYZE {meta.db_table}", params=None)


class Migration(migrations.Migration):
    dependencies = [("news", "0019_article_cards")]

    operations = [migrations.RunPython(big_columns_last, migrations.RunPython.noop)]
