"""Whole-page caching for anonymous readers (the pagecache app, news.purge).

Each test runs against local memory and against a real redis-server. Edits run inside
``committed()`` so that their on-commit purges run as they would in production.
"""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from news.models import Article
from tests.background_tasks import run_queued
from tests.factories import ArticleFactory, RelatedLinkFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


@pytest.fixture
def story(committed, later):
    with committed():
        other = ArticleFactory(title="Other story", tags=["python"])
        article = ArticleFactory(title="Big story", tags=["python", "llm"])
        RelatedLinkFactory(article=other, target=article)
    later()
    return article


def text(response):
    return response.content.decode()


def warm(reader, *urls):
    for url in urls:
        assert reader.get(url).status_code == 200
    for url in urls:
        assert reader.cached(url), f"{url} was not served from the cache"


PUBLIC_PAGES = [
    "news:index",
    "news:tags",
    "news:feed",
    "news:feed-atom",
    "sitemap",
    "news:sitemap-news",
    "news:robots",
    "news:about-editorial",
]


@pytest.mark.parametrize("name", PUBLIC_PAGES)
def test_anonymous_pages_are_served_whole_from_the_cache(reader, story, name):
    url = reverse(name)
    first = reader.get(url)
    assert reader.cached(url)
    assert reader.get(url).content == first.content


@pytest.mark.parametrize("cache_backend", ["locmem"], indirect=True)
def test_a_public_page_does_not_vary_by_cookie(reader, story):
    """Caches in front would keep a copy per reader's cookies (an analytics id...)."""
    for path in (story.get_absolute_url(), "/", "/tags/python/"):
        response = reader.get(path)
        assert "Cookie" not in response.get("Vary", ""), path


def test_article_tag_and_archive_pages_are_cached(reader, story):
    year = story.event_date.year
    warm(
        reader,
        story.get_absolute_url(),
        reverse("news:tag", args=["python"]),
        reverse("news:tag-timeline", args=["python"]),
        reverse("news:tag-feed", args=["python"]),
        reverse("news:archive-year", args=[year]),
        reverse("news:archive-month", args=[year, story.event_date.month]),
    )


def test_query_parameters_other_than_page_share_the_cached_page(reader, story):
    warm(reader, "/")
    assert reader.cached("/?utm_source=newsletter&x=1")


def test_editing_an_article_purges_every_page_that_shows_it(reader, story, committed):
    other = Article.objects.get(title="Other story")
    pages = [
        story.get_absolute_url(),
        "/",
        reverse("news:tag", args=["llm"]),
        reverse("news:feed"),
        # It relates to this one, so it shows the title.
        other.get_absolute_url(),
    ]
    warm(reader, *pages)
    with committed():
        story.title = "Bigger story"
        story.save()
    for url in pages:
        assert "Bigger story" in text(reader.get(url)), url


def test_editing_an_article_leaves_unrelated_pages_cached(reader, story, committed):
    with committed():
        loner = ArticleFactory(title="Unrelated story", tags=["rust"])
    reader.later()
    warm(reader, loner.get_absolute_url(), reverse("news:tag", args=["rust"]))
    with committed():
        story.summary = "A new summary."
        story.save()
    assert reader.cached(loner.get_absolute_url())
    assert reader.cached(reverse("news:tag", args=["rust"]))


def test_publishing_a_draft_shows_it_on_cached_lists_and_links(reader, story, committed):
    with committed():
        draft = ArticleFactory(title="Fresh story", tags=["llm"], draft=True)
        RelatedLinkFactory(article=story, target=None, title="Fresh story")
    reader.later()
    pages = ["/", reverse("news:tag", args=["llm"]), reverse("news:feed")]
    warm(reader, *pages, story.get_absolute_url())
    assert "Fresh story</a>" not in text(reader.get(story.get_absolute_url()))
    with committed():
        draft.status = Article.Status.PUBLISHED
        draft.save()
    for url in pages:
        assert "Fresh story" in text(reader.get(url)), url
    # The "See also" title becomes a link the moment the article exists.
    assert f'href="{draft.get_absolute_url()}"' in text(reader.get(story.get_absolute_url()))


def test_unpublishing_removes_it_from_cached_pages(reader, story, committed):
    warm(reader, "/", story.get_absolute_url(), reverse("news:tag", args=["llm"]))
    with committed():
        story.status = Article.Status.DRAFT
        story.save()
    assert reader.get(story.get_absolute_url()).status_code == 404
    assert "Big story" not in text(reader.get("/"))
    # Its only article in this topic is gone: the topic page is gone with it.
    assert reader.get(reverse("news:tag", args=["llm"])).status_code == 404


def test_deleting_answers_410_and_leaves_the_lists(reader, story, committed):
    url = story.get_absolute_url()
    warm(reader, "/", url, reverse("sitemap"))
    with committed():
        story.delete()
    assert reader.get(url).status_code == 410
    assert "Big story" not in text(reader.get("/"))
    assert url not in text(reader.get(reverse("sitemap")))


def test_retagging_purges_the_old_and_the_new_topic(reader, story, committed):
    pages = [reverse("news:tag", args=["python"]), reverse("news:tags")]
    with committed():
        ArticleFactory(title="Rust story", tags=["rust"])
    reader.later()
    pages.append(reverse("news:tag", args=["rust"]))
    warm(reader, *pages)
    with committed():
        story.tags.set(["rust"])
    assert "Big story" not in text(reader.get(pages[0]))
    assert "Big story" in text(reader.get(pages[2]))


def test_a_scheduled_article_appears_on_cached_lists_on_time(reader, story, committed, later):
    with committed():
        ArticleFactory(
            title="Embargoed story",
            tags=["llm"],
            published_at=timezone.now() + timedelta(minutes=10),
        )
    later()
    pages = ["/", reverse("news:tag", args=["llm"]), reverse("news:feed")]
    warm(reader, *pages)
    assert "Embargoed story" not in text(reader.get("/"))
    later(11 * 60)
    for url in pages:
        assert "Embargoed story" in text(reader.get(url)), url


def test_cdn_keeps_lists_no_longer_than_until_the_next_scheduled_article(reader, committed):
    with committed():
        ArticleFactory(title="Soon", published_at=timezone.now() + timedelta(seconds=30))
        ArticleFactory(title="Now")
    response = reader.get("/")
    assert "s-maxage=60" not in response["Cache-Control"]
    max_age = int(response["Cache-Control"].split("s-maxage=")[1].split(",")[0])
    assert 0 < max_age <= 30


def test_cache_control_lets_a_cdn_keep_public_pages(reader, story):
    control = reader.get("/")["Cache-Control"]
    for directive in ("public", "max-age=0", "s-maxage=60", "stale-while-revalidate="):
        assert directive in control
    assert "stale-if-error=86400" in control


@pytest.mark.parametrize("page_cache", [False, True])
def test_if_none_match_answers_304_without_a_body(reader, story, page_cache, settings):
    # With the page cache off (PAGE_CACHE=0) pages still carry an ETag.
    settings.SKILLO_PAGE_CACHE = page_cache
    url = story.get_absolute_url()
    first = reader.get(url)
    again = reader.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]


def test_if_modified_since_answers_304_for_a_cached_page(reader, story):
    url = story.get_absolute_url()
    first = reader.get(url)
    assert reader.cached(url)
    again = reader.get(url, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 304
    assert again.content == b""


def test_an_edit_changes_the_etag(reader, story, committed):
    etag = reader.get(story.get_absolute_url())["ETag"]
    with committed():
        story.body += "\n\nA correction."
        story.save()
    response = reader.get(story.get_absolute_url(), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert "A correction." in text(response)


def test_logged_in_editors_never_get_a_cached_page(reader, story, editor_client):
    warm(reader, story.get_absolute_url())
    # A change that skips the signals (as another tool might): the cache cannot know.
    Article.objects.filter(pk=story.pk).update(summary="Changed behind the cache")
    assert "Changed behind the cache" not in text(reader.get(story.get_absolute_url()))
    response = editor_client.get(story.get_absolute_url())
    assert "Changed behind the cache" in text(response)
    assert "private" in response["Cache-Control"]
    assert "public" not in response["Cache-Control"]


def test_editor_visit_stores_nothing(reader, story, editor_client):
    url = story.get_absolute_url()
    editor_client.get(url)
    with CaptureQueriesContext(connection) as queries:
        reader.get(url)
    assert len(queries) > 0


def test_cached_responses_carry_no_cookies(reader, story, editor_client):
    url = story.get_absolute_url()
    # An editor's visit first: had it stored its page, its session cookie would follow.
    editor_client.get(url)
    reader.get(url)
    assert reader.cached(url)
    response = reader.get(url)
    assert not response.cookies
    assert "Set-Cookie" not in response
    assert "sessionid" not in str(response.serialize_headers())


def test_previews_of_drafts_are_never_cached(reader, editor_client, committed):
    with committed():
        draft = ArticleFactory(title="Secret draft", draft=True)
    reader.later()
    assert editor_client.get(draft.get_absolute_url()).status_code == 200
    assert reader.get(draft.get_absolute_url()).status_code == 404


def test_not_found_pages_are_not_cached(reader, committed):
    reader.get("/articles/not-yet/")
    with committed():
        article = ArticleFactory(title="Not yet")
    assert article.slug == "not-yet"
    assert reader.get("/articles/not-yet/").status_code == 200


@pytest.mark.parametrize("cache_backend", ["redis"], indirect=True)
def test_missed_purges_are_applied_when_redis_returns(
    reader, story, committed, redis_server, monkeypatch
):
    from pagecache import store

    # Try the cache again at once after an error (normally a second later).
    monkeypatch.setattr(store, "RETRY_AFTER_ERROR", 0)
    url = story.get_absolute_url()
    warm(reader, url)
    redis_server.stop()
    # Redis is down: pages are still served (uncached) and editors' saves still work.
    assert reader.get(url).status_code == 200
    with committed():
        story.title = "Edited during the outage"
        story.save()
    assert "Edited during the outage" in text(reader.get(url))
    # Redis comes back with the page it held before the edit: the purge it missed is the
    # worker's, which sends it now.
    redis_server.start()
    reader.later()
    assert run_queued()
    assert "Edited during the outage" in text(reader.get(url))


@pytest.mark.parametrize("cache_backend", ["redis"], indirect=True)
def test_the_api_is_served_while_redis_is_down(reader, story, redis_server, monkeypatch):
    """Uncached, and unthrottled (its rate limits are counted in the cache), as the HTML
    pages are: DRF's throttles reached the cache unguarded and every answer was a 500."""
    from pagecache import store

    monkeypatch.setattr(store, "RETRY_AFTER_ERROR", 0)
    urls = [
        "/api/v1/articles/",
        f"/api/v1/articles/{story.slug}/",
        "/api/v1/tags/",
        "/api/v1/tags/python/",
        "/api/v1/authors/",
        "/api/v1/schema/",
    ]
    redis_server.stop()
    try:
        for url in urls:
            for _ in range(3):
                response = reader.get(url)
                assert response.status_code == 200, (url, response.content[:300])
        assert "Big story" in reader.get("/api/v1/articles/").content.decode()
    finally:
        redis_server.start()


@pytest.mark.parametrize("cache_backend", ["redis"], indirect=True)
def test_editors_save_through_the_admin_while_redis_is_down(
    reader, story, committed, redis_server, editor_client
):
    from tests.test_workflow import change_url, edit_data

    warm(reader, story.get_absolute_url())
    redis_server.stop()
    try:
        with committed():
            response = editor_client.post(
                change_url(story), edit_data(story, title="Saved without Redis")
            )
        assert response.status_code == 302
        story.refresh_from_db()
        assert story.title == "Saved without Redis"
        assert "Saved without Redis" in text(reader.get(story.get_absolute_url()))
    finally:
        redis_server.start()
