"""Every public page's SQL query count, pinned, with few and with many articles.

Counted with the whole-page cache off (a cached page makes none) and the header's topics
warm (they are cached site-wide). The counts must not grow with the number of articles,
tags, sources or links shown.
"""

from datetime import date

import pytest

from tests.conftest import count_queries
from tests.factories import ArticleFactory, RelatedLinkFactory, SourceFactory

PAGES = {
    "/": 2,  # a page of articles (never a count), their tags
    "/?page=2": 2,
    "ARTICLE": 5,  # article, tags, sources, related links, everything else it lists
    "/tags/": 1,
    "/tags/python/": 3,  # the topic, a page of its articles, their tags
    "/tags/python/?page=2": 3,
    "/tags/python/timeline/": 3,
    "/archive/2024/": 4,  # articles, their tags, years and months with articles
    "/archive/2024/3/": 4,
    "/feed/": 3,  # articles, tags, sources
    "/feed/atom/": 3,
    "/tags/python/feed/": 4,
    "/sitemap.xml": 2,  # pages of articles, pages of topics
    "/sitemaps/home.xml": 0,
    "/sitemaps/articles.xml": 2,  # count (for the page), a page of articles
    "/sitemaps/tags.xml": 2,
    "/sitemap-news.xml": 1,
    "/robots.txt": 0,
    "/about/editorial/": 0,
    "/search/?q=release": 3,  # count, a page of results, their tags
}


def build(n):
    article = None
    for i in range(n):
        previous, article = (
            article,
            ArticleFactory(
                tags=["python", f"topic{i}", f"other{i}"], event_date=date(2024, 3, 1 + i % 28)
            ),
        )
        SourceFactory.create_batch(2, article=article)
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
