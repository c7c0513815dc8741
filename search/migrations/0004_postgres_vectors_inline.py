"""PostgreSQL: each article's search vector is kept in its row, not beside it (TOAST).

A search walks articles newest first and checks each one's vector, until enough match
(search.query): 1,500 articles for a prefix matching 6% of them, 10,000 for a word in 1%.
A vector is about 3 kB, past the 2 kB at which PostgreSQL moves a value out of the row,
uncompressed (it does not compress), so every check was a lookup in the TOAST table:
about 6 microseconds, most of a search (58 ms counting a word in 1% of 100,000
articles). STORAGE MAIN keeps it in the row unless the row would not fit a page, while
the body and its HTML and text go out of it first: that count took 2.9 ms, the prefix's
window of 100 articles 6 ms instead of 21. List pages read their articles from indexes
and do not read rows any wider.

The vectors already stored are written again in the new way: at 100,000 articles about
30 seconds, and the table's old rows stay on disk until (auto)vacuum reuses them.
"""

from django.db import migrations


def vectors_inline(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE news_article ALTER COLUMN search_vector SET STORAGE MAIN", params=None
    )
    # A new value, so that it is stored anew (an unchanged one keeps its TOAST pointer).
    # The trigger keeping the vector fires on its source columns only, not on this.
    schema_editor.execute(
        "UPDATE news_article SET search_vector = search_vector || ''::tsvector "
        "WHERE search_vector IS NOT NULL",
        params=None,
    )


def vectors_beside(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "ALTER TABLE news_article ALTER COLUMN search_vector SET STORAGE EXTENDED",
            params=None,
        )


class Migration(migrations.Migration):
    dependencies = [("search", "0003_triggers_after_news_rebuild")]

    operations = [migrations.RunPython(vectors_inline, vectors_beside)]
