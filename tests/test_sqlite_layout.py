"""SQLite keeps an article's long texts in its last columns (news migration 0020)."""

import importlib

import pytest
from django.db import connection

from news.models import Article

big_columns_last = importlib.import_module("news.migrations.0020_sqlite_big_columns_last")


@pytest.mark.sqlite_only(reason="SQLite's row layout; PostgreSQL keeps long values apart")
@pytest.mark.django_db
def test_the_long_texts_are_the_last_columns():
    """Reading event_date, published_at and status walks no body's overflow pages.

    Fails after a migration that rebuilds news_article on SQLite (Django rebuilds it in
    its fields' order): run big_columns_last again in it (see news/migrations/0020).
    """
    with connection.cursor() as cursor:
        cursor.execute(f"PRAGMA table_xinfo({Article._meta.db_table})")
        columns = [row[1] for row in cursor.fetchall()]
    long_texts = [Article._meta.get_field(name).column for name in big_columns_last.BIG_COLUMNS]
    assert columns[-len(long_texts) :] == long_texts
    assert {"event_date", "published_at", "status"} < set(columns[: -len(long_texts)])
