"""The search index is created by the search app's migrations, on both databases."""

import pytest
from django.core.management import call_command
from django.db import connection

from news.models import Article
from search import index
from search.query import search
from tests.factories import ArticleFactory


def index_objects():
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(
                "SELECT name FROM sqlite_master WHERE name LIKE 'news_article_fts%%' "
                "AND type IN ('table', 'trigger')"
            )
        else:
            cursor.execute(
                "SELECT tgname FROM pg_trigger WHERE tgname IN "
                "('news_article_search_vector', 'search_word_insert', 'search_word_update') "
                "UNION ALL SELECT indexname FROM pg_indexes "
                "WHERE indexname IN ('news_article_search_vector_gin', 'search_word_trigram')"
            )
        return {row[0] for row in cursor.fetchall()}


EXPECTED = {
    "sqlite": {
        "news_article_fts", "news_article_fts_insert", "news_article_fts_delete",
        "news_article_fts_update",
    },
    "postgresql": {
        "news_article_search_vector", "news_article_search_vector_gin",
        # The vocabulary for "Did you mean" (search 0006).
        "search_word_insert", "search_word_update", "search_word_trigram",
    },
}  # fmt: skip


@pytest.mark.django_db
def test_migrations_create_the_index_and_its_triggers():
    assert EXPECTED[connection.vendor] <= index_objects()


@pytest.mark.django_db(transaction=True)
def test_the_index_migration_can_be_undone_and_redone_and_finds_articles_again():
    ArticleFactory(title="Zeppelin release notes")
    call_command("migrate", "search", "zero", verbosity=0)
    assert not EXPECTED[connection.vendor] & index_objects()
    call_command("migrate", "search", verbosity=0)
    assert [article.title for article in search("zeppelin")[:10]] == ["Zeppelin release notes"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's row storage")
@pytest.mark.django_db
def test_postgresql_keeps_each_search_vector_in_its_row():
    """STORAGE MAIN (search 0004): a search checks article after article, and a vector
    moved out of its row (TOAST) cost a lookup each time, most of a search's time."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage FROM pg_attribute "
            "WHERE attrelid = 'news_article'::regclass AND attname = 'search_vector'"
        )
        assert cursor.fetchone() == ("m",)


sqlite_only = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 index")


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_a_save_that_changes_no_text_leaves_the_search_index_alone():
    """Each re-indexing adds a segment that every later search reads (search.index)."""
    article = ArticleFactory(title="Zeppelin release notes")
    index.tidy()
    assert index.segments() == 1
    article.status = Article.Status.DRAFT
    article.save()
    assert index.segments() == 1
    article.title = "Airship release notes"
    article.save()
    assert index.segments() == 2


@sqlite_only
@pytest.mark.django_db(transaction=True)
def test_tidy_database_merges_the_edited_index_and_search_finds_the_edits(capsys):
    articles = [ArticleFactory(title=f"Zeppelin {n} release notes") for n in range(3)]
    articles[1].title = "Airship release notes"
    articles[1].save()
    assert index.segments() > 1
    call_command("tidy_database")
    assert "segments merged into 1" in capsys.readouterr().out
    assert index.segments() == 1
    assert [found.pk for found in search("airship")] == [articles[1].pk]
    assert {found.pk for found in search("zeppelin")} == {articles[0].pk, articles[2].pk}


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's autovacuum")
@pytest.mark.django_db
def test_tidy_database_says_postgresql_needs_nothing(capsys):
    call_command("tidy_database")
    assert "Nothing to do on postgresql" in capsys.readouterr().out
