"""Every public page's SQL query count, pinned, with few and with many articles.

Counted with the whole-page cache off (a cached page makes none) and the header's topics
warm (they are cached site-wide). The counts must not grow with the number of articles,
tags, sources or links shown.
"""

from datetime import UTC, date, datetime

import pytest

from news.models import Article, Correction
from sources.models import SourceURL
from tests.conftest import count_queries
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    CorrectionFactory,
    RelatedLinkFactory,
    SourceFactory,
)

PAGES = {
    # A page of articles' cards, kept (news.fragments): one query, and none for the
    # tags and authors they show. (The first request renders them; it is not counted.)
    # The home page's ids are remembered until a publication (news.paginator): none.
    "/": 0,
    "/?page=2": 1,
    # The article: its own parts and what surrounds it are kept (news.fragments).
    "ARTICLE": 1,
    # Topic counts and archive months are kept in the cache until a change (topics.py).
    "/tags/": 0,
    "/tags/python/": 1,  # a page of the topic's cards
    "/tags/python/?page=2": 1,
    "/tags/python/timeline/": 1,  # titles and dates
    "/archive/2024/": 1,  # a page of cards
    "/archive/2024/3/": 1,
    "/authors/": 1,  # a page of authors
    # a page of their articles' cards (the author is remembered until they change)
    "/authors/common-writer/": 1,
    "/authors/common-writer/?page=2": 1,
    "/feed/": 4,  # articles, tags, sources, authors
    "/feed/atom/": 4,
    "/tags/python/feed/": 4,
    "/authors/common-writer/feed/": 5,  # the author, then as the other feeds
    "/authors/common-writer/feed/atom/": 5,
    "/tags/python/feed/atom/": 4,
    "/tags/python/feed.json": 4,
    "/authors/common-writer/feed.json": 5,
    # Each feed as a web page: a page of the feed's cards (topic and author remembered).
    "/feed/about/": 1,
    "/tags/python/feed/about/": 1,
    "/authors/common-writer/feed/about/": 1,
    "/corrections/feed/about/": 1,  # the corrections with their articles
    # Every feed: the authors (the topics are remembered until they change).
    "/follow/": 1,
    "/sitemap.xml": 0,  # the count of articles is worked out once per change
    "/sitemaps/home.xml": 0,
    "/sitemaps/articles.xml": 1,  # a page of articles (the count as above)
    "/sitemaps/tags.xml": 0,
    "/sitemaps/authors.xml": 0,  # worked out once per change (sitemaps.author_pages)
    "/sitemap-news.xml": 1,
    "/robots.txt": 0,
    "/about/editorial/": 0,
    "/about/figures/": 0,
    "/corrections/": 1,  # a page of corrections with their articles
    "/corrections/?page=2": 1,
    "/corrections/feed/": 1,
    "/sitemaps/corrections.xml": 0,  # worked out once per change (sitemaps.latest_correction)
    "/search/?q=release": 3,  # count, a page of results, their tags
    "/search/?q=release&page=2": 3,
    "/search/?q=%22release+ships%22+-nothing": 3,  # a phrase, an exclusion
    "/search/?q=rel": 3,  # a prefix: its words are read in the count's query
    # Nothing found: the count, which typed words published articles have, the index's
    # words near the others, their published articles, and the suggestion's count.
    "/search/?q=relese": 5,
    "/search/?q=zzzz": 3,  # the count, which words are known, none near: nothing to offer
}


def build(n):
    article = None
    for i in range(n):
        previous, article = (
            article,
            ArticleFactory(
                tags=["python", f"topic{i}", f"other{i}"],
                event_date=date(2024, 3, 1 + i % 28),
                authors=[f"Writer {i}", "Common Writer"],
            ),
        )
        AuthorLinkFactory(author=article.byline[0])
        for source in SourceFactory.create_batch(2, article=article):
            SourceURL.objects.create(url=source.url, archive_url=f"https://archive.example/{i}")
        CorrectionFactory.create_batch(2, article=article)
        CorrectionFactory(article=article, kind=Correction.Kind.UPDATE)
        if previous:
            RelatedLinkFactory(article=article, target=previous)
            RelatedLinkFactory(article=previous, target=article)
    return article


@pytest.mark.django_db
@pytest.mark.parametrize("n", [22, 45])
def test_public_page_query_counts(client, n):
    article = build(n)
    counts = {
        url: count_queries(client, article.get_absolute_url() if url == "ARTICLE" else url)
        for url in PAGES
    }
    assert counts == PAGES


# Rendered again after a change to the article (or to what surrounds it): the article, its
# topics, sources, corrections, bylines and their authors' links; its related links; the
# articles referencing it, more on its topics, previous and next.
ARTICLE_RENDERED = 11
# A page of cards after a change to every article on it: the page's ids, then the
# articles with their topics and bylines (the home page's ids are remembered: one less).
CARDS_RENDERED = 4


@pytest.mark.django_db
@pytest.mark.parametrize("n", [22, 45])
def test_pages_rendered_again_after_a_change_make_as_many_queries(client, n):
    from news.dependencies import ARTICLE

    article = build(n)
    url = article.get_absolute_url()
    assert count_queries(client, url, rendering=[ARTICLE(article.pk)]) == ARTICLE_RENDERED
    every = ARTICLE.each(Article.objects.values_list("pk", flat=True))
    for page in (
        "/",
        "/tags/python/",
        "/archive/2024/3/",
        "/authors/common-writer/",
        "/tags/python/feed/about/",
    ):
        expected = CARDS_RENDERED - 1 if page == "/" else CARDS_RENDERED
        assert count_queries(client, page, rendering=every) == expected, page


@pytest.mark.django_db
@pytest.mark.parametrize("big", [False, True])
def test_big_and_small_topics_list_the_same_articles(client, monkeypatch, big):
    """Big topics are read through EXISTS, small ones through a join: same pages."""
    import news.asides
    import news.models

    if big:
        monkeypatch.setattr(news.models, "BIG_TOPIC", 0)
        monkeypatch.setattr(news.asides, "NEIGHBOURS_LISTED", 0)
    older = ArticleFactory(title="Older", tags=["python"], event_date=date(2024, 1, 1))
    middle = ArticleFactory(title="Middle", tags=["python"], event_date=date(2024, 2, 1))
    newer = ArticleFactory(title="Newer", tags=["python"], event_date=date(2024, 3, 1))
    ArticleFactory(title="Elsewhere", tags=["rust"])
    timeline = client.get("/tags/python/timeline/").content.decode()
    assert timeline.index("Older") < timeline.index("Middle") < timeline.index("Newer")
    assert "Elsewhere" not in timeline
    page = client.get(middle.get_absolute_url()).content.decode()
    assert f'href="{older.get_absolute_url()}" rel="prev"' in page
    assert f'href="{newer.get_absolute_url()}" rel="next"' in page
    assert "More on these topics" in page
    assert "Elsewhere" not in page
    feed = client.get("/tags/python/feed/").content.decode()
    assert "Newer" in feed and "Elsewhere" not in feed


@pytest.mark.django_db
@pytest.mark.parametrize("busy", [False, True])
def test_busy_and_occasional_authors_list_the_same_articles(client, monkeypatch, busy):
    """A busy author's articles are read through EXISTS, an occasional one's through a
    join: the same page either way."""
    import news.models

    if busy:
        monkeypatch.setattr(news.models, "BIG_TOPIC", 0)
    author = AuthorFactory(name="Ada Writer")
    for n, month in enumerate([1, 3, 2]):
        ArticleFactory(
            title=f"Story {n}", authors=[author], published_at=datetime(2024, month, 1, tzinfo=UTC)
        )
    ArticleFactory(title="Someone else's")
    page = client.get(f"/authors/{author.slug}/").content.decode()
    assert page.index("Story 1") < page.index("Story 2") < page.index("Story 0")
    assert "Someone else" not in page


def cold_queries(client, url):
    """SQL queries of a request to ``url`` with nothing kept: every cache emptied, as
    after a deploy."""
    from django.core.cache import caches
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)
    for cache in caches.all():
        cache.clear()
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


# With nothing kept, each page's fragments and the site-wide values it reads (topic
# counts, the header, the schedule, most read) are all worked out again. Pinned so that
# a cold page's round trips do not creep up unseen (bench/states.py times them). An
# article page also reads which articles have live coverage (live.stories, remembered),
# and whether it has members' comments to show (members' story_conversation, kept); it
# and a topic page read which topics have a project's release page (remembered).
COLD = {"ARTICLE": 23, "/": 19, "/tags/python/": 12, "/archive/2024/3/": 11}


@pytest.mark.django_db
@pytest.mark.parametrize("n", [22, 45])
def test_pages_with_nothing_kept_make_as_many_queries(client, n):
    article = build(n)
    counts = {
        url: cold_queries(client, article.get_absolute_url() if url == "ARTICLE" else url)
        for url in COLD
    }
    assert counts == COLD


@pytest.mark.django_db
def test_the_archive_with_nothing_kept_reads_its_months_in_one_query_however_many(client):
    for month in range(1, 4):
        ArticleFactory(event_date=date(2024, month, 10))
    few = cold_queries(client, "/archive/2024/")
    for month in range(4, 13):
        ArticleFactory(event_date=date(2024, month, 10))
    ArticleFactory(event_date=date(2019, 5, 1))
    assert cold_queries(client, "/archive/2024/") == few
