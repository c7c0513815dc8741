"""SQLite keeps an article's long texts in its last columns (news migration 0020), and its
planner reads lists from an index alone (0021)."""

import importlib
from datetime import date

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from news import asides
from news import models as news_models
from news.dependencies import LATEST
from news.models import Article
from pagecache import purges
from tests.factories import ArticleFactory

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


# sqlite_stat1 as ANALYZE left it for 100,000 synthetic articles (bench/pages.py's site).
BIG_SITE_STATISTICS = [
    ("news_article", "article_status_published", "100000 50000 2 1"),
    ("news_article", "article_status_event", "100000 50000 35 2 1"),
    ("news_article", "article_title_upper", "100000 1"),
    ("news_article", "news_article_published_at_5410882c", "100000 2"),
    ("news_article", "sqlite_autoindex_news_article_1", "100000 1"),
    ("news_taggedarticle", "tagged_article_by_tag", "349775 71 1"),
    ("news_taggedarticle", "news_taggedarticle_tag_id_7a7aebcd", "349775 71"),
    ("news_taggedarticle", "news_taggedarticle_content_object_id_38d10b5f", "349775 4"),
    ("news_taggedarticle", "sqlite_autoindex_news_taggedarticle_1", "349775 4 1"),
]


def use_statistics(statistics):
    """The planner's statistics become ``statistics``: rows of sqlite_stat1."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
        cursor.execute("DELETE FROM sqlite_stat1")
        cursor.executemany("INSERT INTO sqlite_stat1 VALUES (%s, %s, %s)", statistics)
        # Makes the planner read the statistics again.
        cursor.execute("ANALYZE sqlite_schema")


@pytest.mark.sqlite_only(reason="SQLite's query planner")
@pytest.mark.django_db
@pytest.mark.parametrize("statistics", [BIG_SITE_STATISTICS, []], ids=["big site's", "none"])
@pytest.mark.parametrize(
    "url, index",
    [
        ("/", "article_status_published (status=? AND published_at<?)"),
        ("/?page=2", "article_status_published (status=? AND published_at<?)"),
        ("/tags/python/", "article_status_published (status=? AND published_at<?)"),
        ("/archive/2025/7/", "article_status_event (status=? AND event_date>? AND event_date<?)"),
    ],
)
def test_a_list_walks_its_index_in_page_order_whatever_the_statistics(
    client, url, index, statistics, monkeypatch
):
    """Lists walk one index in the page's order (news migration 0021) and read only the
    page's rows, with a big site's statistics as without any (a site that never ran
    ANALYZE): before, the planner read the articles' rows through another index and
    sorted them, 15x slower for a topic at 100,000 articles and 3,000x for an archive
    month."""
    # The topic is big: its articles are checked one by one as the index is walked.
    monkeypatch.setattr(news_models, "BIG_TOPIC", 10)
    ArticleFactory.create_batch(25, tags=["python"], event_date=date(2025, 7, 10))
    use_statistics(statistics)
    assert client.get(url).status_code == 200
    # The home page's first page of ids is remembered until a publication: read it again.
    purges.purge({LATEST()})
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    page = f"LIMIT {settings.SKILLO_PAGE_SIZE + 1}"
    (listing,) = [
        q["sql"]
        for q in queries
        if q["sql"].startswith('SELECT "news_article"."id"') and page in q["sql"]
    ]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {listing}")
        plan = [row[-1] for row in cursor.fetchall()]
    articles = [step for step in plan if " news_article " in f"{step} "]
    assert articles in (
        [f"SEARCH news_article USING INDEX {index}"],
        [f"SEARCH news_article USING COVERING INDEX {index}"],
    ), plan
    assert not any("TEMP B-TREE" in step for step in plan), plan


@pytest.mark.sqlite_only(reason="SQLite's query planner")
@pytest.mark.django_db
@pytest.mark.parametrize("statistics", [BIG_SITE_STATISTICS, []], ids=["big site's", "none"])
def test_an_articles_neighbours_in_a_big_topic_are_found_from_its_date_outwards(
    client, statistics, monkeypatch
):
    """Previous and next in a big topic (checked article by article) walk the index on
    event dates from the article's own: the planner walked every published article and
    sorted them instead, 540 ms for one article page at 100,000 articles."""
    monkeypatch.setattr(asides, "NEIGHBOURS_LISTED", 10)
    articles = [
        ArticleFactory(tags=["python"], event_date=date(2025, 7, day)) for day in range(1, 26)
    ]
    use_statistics(statistics)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(articles[12].get_absolute_url()).status_code == 200
    by_event = 'ORDER BY "news_article"."event_date"'
    walks = [q["sql"] for q in queries if by_event in q["sql"] and q["sql"].endswith("LIMIT 1")]
    assert len(walks) == 2, walks  # previous and next
    for way, sql in zip("<>", walks, strict=True):
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            plan = [row[-1] for row in cursor.fetchall()]
        assert any(
            step.startswith("SEARCH news_article USING INDEX article_status_event")
            and f"event_date{way}?" in step
            for step in plan
        ), plan


def planner_statistics():
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone() is None:
            return []
        cursor.execute("SELECT idx FROM sqlite_stat1 WHERE tbl = 'news_article'")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.sqlite_only(reason="SQLite gathers no statistics by itself")
@pytest.mark.django_db
def test_migrate_gathers_the_planners_statistics_once_there_are_articles():
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # makes sqlite_stat1, which other tests may have filled
        cursor.execute("DELETE FROM sqlite_stat1")
    call_command("migrate", verbosity=0)
    assert planner_statistics() == []  # nothing to measure yet
    ArticleFactory()
    call_command("migrate", verbosity=0)
    assert "article_status_event" in planner_statistics()
