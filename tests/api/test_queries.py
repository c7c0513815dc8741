"""Each endpoint's SQL queries, uncached, stay the same whatever the number of articles,
tags, sources, links and authors (docs/api.md)."""

import pytest

from tests.conftest import count_queries, rows_for_module
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)

pytestmark = pytest.mark.django_db

# (url, queries): the figures in docs/caching.md. Topics cost none: their counts are kept in
# the cache (news.topics). An article: itself with its lead image, tags, sources,
# related links, authors, their links, the articles linking to it, the library images
# in its text, its corrections and updates.
EXPECTED = {
    "/api/v1/articles/": 3,
    "/api/v1/articles/?tag=t0": 3,
    "/api/v1/articles/?author=writer-0": 4,
    "/api/v1/articles/main-0/": 9,
    "/api/v1/tags/": 0,
    "/api/v1/tags/t0/": 0,
    "/api/v1/authors/": 3,
    "/api/v1/authors/writer-0/": 2,
    "/feed.json": 5,
}
# The API's answers also count the anonymous client's request against its rate limit:
# one statement in the database with the default cache, as here (none with Redis:
# ratelimits.counter). The JSON Feed has no rate limit.
RATE_LIMIT_QUERIES = 1


def build(size):
    """``size`` articles, each with ``size`` tags, sources, links and authors (and
    links of theirs), a lead image and a library image in the text."""
    picture = ImageFactory()
    authors = [AuthorFactory(name=f"Writer {n}", photo=picture) for n in range(size)]
    for author in authors:
        AuthorLinkFactory(author=author)
    tags = [f"t{n}" for n in range(size)]
    for n in range(size):
        article = ArticleFactory(
            title=f"Main {n}",
            tags=tags,
            authors=authors,
            lead_image=picture,
            body=f"Intro.\n\n![](image:{picture.key})\n",
        )
        for _ in range(size):
            SourceFactory(article=article)
            RelatedLinkFactory(article=article, target=ArticleFactory(title=f"Target {_}"))
            RelatedLinkFactory(article=ArticleFactory(title=f"Ref {n} {_}"), target=article)


@pytest.fixture(scope="module", params=[1, 5], ids=lambda size: f"size{size}")
def built(request, django_db_setup, django_db_blocker, tmp_path_factory):
    """The articles of one size, made once for every endpoint: counting only reads."""
    media = tmp_path_factory.mktemp("media")
    with rows_for_module(django_db_blocker, media, lambda: build(request.param)):
        yield


@pytest.mark.parametrize("url", list(EXPECTED))
def test_query_count_does_not_grow(client, built, url):
    limited = RATE_LIMIT_QUERIES if url.startswith("/api/") else 0
    assert count_queries(client, url) == EXPECTED[url] + limited
