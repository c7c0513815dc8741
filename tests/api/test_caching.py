"""API answers are cached pages: served with no query, validated with ETag (304), kept
apart by filter and cursor, and refreshed by the same purges as the HTML pages."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from news.models import Article, ArticleAuthor, Tag
from tests.api.conftest import bearer
from tests.factories import ApiTokenFactory, ArticleFactory, AuthorFactory, RelatedLinkFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


def warm(reader, url):
    assert reader.get(url).status_code == 200
    assert reader.cached(url), f"{url} was not served from the cache"


@pytest.fixture
def story(committed, later):
    with committed():
        article = ArticleFactory(title="Old story", tags=["alpha"], authors=["Ann Lee"])
    later()
    return article


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/articles/",
        "/api/v1/articles/old-story/",
        "/api/v1/tags/",
        "/api/v1/tags/alpha/",
        "/api/v1/authors/",
        "/api/v1/authors/ann-lee/",
        "/feed.json",
        "/tags/alpha/feed.json",
    ],
)
def test_a_second_request_costs_no_query(reader, story, url):
    warm(reader, url)


def test_a_conditional_request_gets_a_304(reader, story):
    first = reader.get("/api/v1/articles/")
    again = reader.get("/api/v1/articles/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""


def test_a_cached_answer_keeps_its_cors_header(reader, story):
    warm(reader, "/api/v1/articles/")
    assert reader.get("/api/v1/articles/")["Access-Control-Allow-Origin"] == "*"


def test_each_filter_is_cached_apart(reader, story, committed, later):
    with committed():
        ArticleFactory(title="Beta story", tags=["beta"])
    later()
    warm(reader, "/api/v1/articles/?tag=alpha")
    warm(reader, "/api/v1/articles/?tag=beta")
    titles = [item["title"] for item in reader.get("/api/v1/articles/?tag=beta").json()["results"]]
    assert titles == ["Beta story"]


def test_each_cursor_page_is_cached_apart(reader, committed, later):
    with committed():
        ArticleFactory.create_batch(3)
    later()
    first = reader.get("/api/v1/articles/?page_size=2").json()
    warm(reader, first["next"])
    assert reader.get(first["next"]).json()["results"] != first["results"]


def test_made_up_parameters_share_the_cached_answer(reader, story):
    warm(reader, "/api/v1/articles/")
    assert reader.cached("/api/v1/articles/?utm_source=newsletter")


def test_a_token_request_is_neither_served_from_the_cache_nor_stored(reader, story):
    token = ApiTokenFactory()
    warm(reader, "/api/v1/articles/")
    with CaptureQueriesContext(connection) as queries:
        response = reader.get("/api/v1/articles/", **bearer(token))
    assert len(queries) > 0
    assert "private" in response["Cache-Control"]


def test_an_edit_refreshes_the_list_and_the_article(reader, story, committed):
    urls = ["/api/v1/articles/", "/api/v1/articles/old-story/", "/api/v1/articles/?tag=alpha"]
    for url in urls:
        warm(reader, url)
    with committed():
        story.summary = "Corrected summary."
        story.save()
    for url in urls:
        assert "Corrected summary." in reader.get(url).content.decode(), url


def test_a_publication_refreshes_the_list_and_its_topic(reader, story, committed):
    for url in ["/api/v1/articles/", "/api/v1/tags/alpha/"]:
        warm(reader, url)
    with committed():
        ArticleFactory(title="Fresh story", tags=["alpha"])
    assert "Fresh story" in reader.get("/api/v1/articles/").content.decode()
    assert reader.get("/api/v1/tags/alpha/").json()["article_count"] == 2


def test_unpublishing_makes_the_article_a_404_and_leaves_the_list(reader, story, committed):
    warm(reader, "/api/v1/articles/old-story/")
    warm(reader, "/api/v1/articles/")
    with committed():
        story.status = Article.Status.DRAFT
        story.save()
    assert reader.get("/api/v1/articles/old-story/").status_code == 404
    assert reader.get("/api/v1/articles/").json()["results"] == []


def test_tagging_an_article_refreshes_that_topics_list(reader, story, committed, later):
    with committed():
        ArticleFactory(title="Gamma story", tags=["gamma"])
    later()
    warm(reader, "/api/v1/articles/?tag=gamma")
    with committed():
        story.tags.add("gamma")
    assert "Old story" in reader.get("/api/v1/articles/?tag=gamma").content.decode()


def test_renaming_a_topic_refreshes_the_articles_showing_it(reader, story, committed):
    warm(reader, "/api/v1/articles/old-story/")
    with committed():
        tag = Tag.objects.get(slug="alpha")
        tag.name = "Alpha Renamed"
        tag.save()
    assert "Alpha Renamed" in reader.get("/api/v1/articles/old-story/").content.decode()


def test_renaming_an_author_refreshes_the_lists_naming_them(reader, story, committed):
    warm(reader, "/api/v1/articles/")
    warm(reader, "/api/v1/authors/ann-lee/")
    with committed():
        author = AuthorFactory(name="Ann Lee")
        author.name = "Ann Lee-Park"
        author.save()
    assert "Ann Lee-Park" in reader.get("/api/v1/articles/").content.decode()
    assert reader.get("/api/v1/authors/ann-lee/").json()["name"] == "Ann Lee-Park"


def test_an_article_by_a_new_author_refreshes_that_authors_filter(reader, story, committed, later):
    with committed():
        author = AuthorFactory(name="Bo Chen")
        ArticleFactory(title="First by Bo", authors=[author])
    later()
    warm(reader, "/api/v1/articles/?author=bo-chen")
    with committed():
        ArticleAuthor.objects.create(article=story, author=author, position=1)
    assert "Old story" in reader.get("/api/v1/articles/?author=bo-chen").content.decode()


def test_a_new_article_linking_here_refreshes_referenced_by(reader, story, committed):
    warm(reader, "/api/v1/articles/old-story/")
    with committed():
        RelatedLinkFactory(article=ArticleFactory(title="Newer story"), target=story)
    referenced = reader.get("/api/v1/articles/old-story/").json()["referenced_by"]
    assert [item["title"] for item in referenced] == ["Newer story"]


def test_publishing_a_wanted_title_turns_the_link_into_a_url(reader, story, committed, later):
    with committed():
        RelatedLinkFactory(article=story, target=None, title="Wanted story")
    later()
    warm(reader, "/api/v1/articles/old-story/")
    with committed():
        ArticleFactory(title="Wanted story")
    links = reader.get("/api/v1/articles/old-story/").json()["related_links"]
    assert links == [{"title": "Wanted story", "url": "http://testserver/articles/wanted-story/"}]


def test_an_edit_refreshes_updated_since_and_search(reader, story, committed, later):
    with committed():
        other = ArticleFactory(title="Other story", body="Nothing here.")
    later()
    since = "/api/v1/articles/?updated_since=2000-01-01T00:00:00Z&ordering=published"
    search = "/api/v1/articles/?q=quantum"
    warm(reader, since)
    warm(reader, search)
    with committed():
        other.body = "Quantum leap."
        other.save()
    assert "Other story" in reader.get(search).content.decode()
    assert reader.get(since).json()["results"][-1]["summary"] == other.summary


def test_a_new_publication_refreshes_the_json_feed(reader, story, committed):
    warm(reader, "/feed.json")
    with committed():
        ArticleFactory(title="Fresh story")
    assert "Fresh story" in reader.get("/feed.json").content.decode()
