"""The articles endpoints: their fields, filters, cursor pages and bad input."""

from base64 import b64encode
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.utils import timezone

from news.models import Article
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)

pytestmark = pytest.mark.django_db

LIST_FIELDS = {
    "id", "title", "slug", "url", "api_url", "summary", "event_date", "published_at",
    "updated_at", "facts_verified", "public", "tags", "authors", "lead_image",
}  # fmt: skip
DETAIL_FIELDS = LIST_FIELDS | {
    "body_html", "body_markdown", "sources", "related_links", "referenced_by", "corrections",
}  # fmt: skip


def slugs(answer):
    return [item["slug"] for item in answer["results"]]


def test_list_item_has_the_list_fields(api):
    ArticleFactory(title="Python 3.14 ships", tags=["Python"], authors=["Ann Lee"])
    [item] = api.json("/api/v1/articles/")["results"]
    assert set(item) == LIST_FIELDS
    assert item["url"] == "http://testserver/articles/python-3-14-ships/"
    assert item["api_url"] == "http://testserver/api/v1/articles/python-3-14-ships/"
    assert item["tags"][0] == {
        "name": "Python",
        "slug": "python",
        "url": "http://testserver/tags/python/",
        "api_url": "http://testserver/api/v1/tags/python/",
    }
    assert [author["name"] for author in item["authors"]] == ["Ann Lee"]
    assert item["public"] is True
    assert item["lead_image"] is None


def test_facts_verified_is_a_month(api):
    ArticleFactory(facts_verified=timezone.localdate().replace(year=2025, month=3, day=1))
    assert api.json("/api/v1/articles/")["results"][0]["facts_verified"] == "2025-03"


def test_lead_image_has_page_renditions_and_crops_with_absolute_urls(api, media_root):
    ArticleFactory(lead_image=ImageFactory(width=1600, height=900))
    image = api.json("/api/v1/articles/")["results"][0]["lead_image"]
    widths = [(r["width"], r["mime_type"]) for r in image["renditions"]]
    assert widths == [
        (480, "image/avif"), (800, "image/avif"), (1200, "image/avif"), (1600, "image/avif"),
        (480, "image/jpeg"), (800, "image/jpeg"), (1200, "image/jpeg"), (1600, "image/jpeg"),
    ]  # fmt: skip
    assert {crop["shape"]: (crop["width"], crop["height"]) for crop in image["crops"]} == {
        "card": (1200, 630),
        "16x9": (1200, 675),
        "4x3": (1200, 900),
        "1x1": (1200, 1200),
    }
    assert all(r["url"].startswith("http://testserver/media/") for r in image["renditions"])


def test_detail_has_body_sources_links_and_referenced_by(api, media_root):
    picture = ImageFactory()
    article = ArticleFactory(title="Main", body=f"Intro.\n\n![](image:{picture.key})\n")
    SourceFactory(article=article, title="Notes", publisher="GitHub", url="")
    target = ArticleFactory(title="Earlier")
    RelatedLinkFactory(article=article, target=target)
    RelatedLinkFactory(article=article, target=None, title="Not written yet")
    RelatedLinkFactory(article=article, target=ArticleFactory(title="Hidden", draft=True))
    RelatedLinkFactory(article=ArticleFactory(title="Later"), target=article)

    data = api.json(f"/api/v1/articles/{article.slug}/")

    assert set(data) == DETAIL_FIELDS
    assert data["body_markdown"] == article.body
    assert '<img src="http://testserver/media/renditions/' in data["body_html"]
    assert "image:" not in data["body_html"]
    assert data["sources"] == [{"title": "Notes", "publisher": "GitHub", "url": ""}]
    assert data["related_links"] == [
        {"title": "Earlier", "url": "http://testserver/articles/earlier/"},
        {"title": "Not written yet", "url": None},
    ]
    assert data["referenced_by"] == [
        {"title": "Later", "slug": "later", "url": "http://testserver/articles/later/"}
    ]


def test_a_link_by_title_resolves_once_that_article_is_published(api):
    article = ArticleFactory(title="Main")
    RelatedLinkFactory(article=article, target=None, title="wanted story")
    ArticleFactory(title="Wanted Story")
    links = api.json(f"/api/v1/articles/{article.slug}/")["related_links"]
    assert links == [{"title": "wanted story", "url": "http://testserver/articles/wanted-story/"}]


def test_filter_by_tag(api):
    ArticleFactory(title="In topic", tags=["Rust"])
    ArticleFactory(title="Elsewhere", tags=["Go"])
    assert slugs(api.json("/api/v1/articles/?tag=rust")) == ["in-topic"]


def test_filter_by_author(api):
    ArticleFactory(title="Hers", authors=["Ann Lee"])
    ArticleFactory(title="His", authors=["Bo Chen"])
    assert slugs(api.json("/api/v1/articles/?author=ann-lee")) == ["hers"]


def test_filter_by_published_range(api):
    now = timezone.now()
    ArticleFactory(title="Old", published_at=now - timedelta(days=30))
    ArticleFactory(title="Mid", published_at=now - timedelta(days=10))
    ArticleFactory(title="New", published_at=now - timedelta(hours=1))
    after = (now - timedelta(days=20)).isoformat()
    before = (now - timedelta(days=1)).isoformat()
    answer = api.get("/api/v1/articles/", {"published_after": after, "published_before": before})
    assert slugs(answer.json()) == ["mid"]


def test_filter_by_event_date_range(api):
    today = timezone.localdate()
    ArticleFactory(title="Then", event_date=today - timedelta(days=100))
    ArticleFactory(title="Now", event_date=today - timedelta(days=3))
    since = (today - timedelta(days=10)).isoformat()
    assert slugs(api.json(f"/api/v1/articles/?event_after={since}")) == ["now"]
    assert slugs(api.json(f"/api/v1/articles/?event_before={since}")) == ["then"]


@pytest.mark.parametrize(
    ("query", "listed"),
    [
        ("published_after=0001-01-01T00:00:00%2B05:00", ["story"]),
        ("published_before=0001-01-01T00:00:00%2B05:00", []),
        ("published_after=9999-12-31T23:00:00-05:00", []),
        ("updated_since=0001-01-01T00:00:00%2B05:00", ["story"]),
    ],
)
def test_a_date_time_beyond_the_years_python_holds_compares_as_it_would(api, query, listed):
    """A valid RFC 3339 date-time whose UTC falls in year 0 or 10000 (a 400 before)."""
    ArticleFactory(title="Story")
    assert slugs(api.json(f"/api/v1/articles/?{query}")) == listed


def test_updated_since_lists_only_articles_changed_since(api, time_machine):
    time_machine.move_to(timezone.now() - timedelta(days=5))
    ArticleFactory(title="Untouched")
    edited = ArticleFactory(title="Edited")
    time_machine.move_to(timezone.now() + timedelta(days=5))
    mark = timezone.now()
    edited.summary = "New summary."
    edited.save()
    answer = api.get("/api/v1/articles/", {"updated_since": mark.isoformat()})
    assert slugs(answer.json()) == ["edited"]


def test_text_search_needs_every_word(api):
    ArticleFactory(title="Kernel release", body="The scheduler got faster.")
    ArticleFactory(title="Kernel bug", body="A crash.")
    assert slugs(api.json("/api/v1/articles/?q=kernel+scheduler")) == ["kernel-release"]


def test_ordering_by_event_date(api):
    today = timezone.localdate()
    ArticleFactory(title="Later event", event_date=today - timedelta(days=1))
    ArticleFactory(title="Earlier event", event_date=today - timedelta(days=9))
    assert slugs(api.json("/api/v1/articles/?ordering=event_date")) == [
        "earlier-event",
        "later-event",
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("published_after=yesterday", "published_after"),
        ("event_before=2024-13-01", "event_before"),
        ("ordering=title", "ordering"),
        ("q=+", "q"),
        ("tag=not%20a%20slug", "tag"),
        ("event_after=2024-05-01&event_before=2024-04-01", "event_after"),
    ],
)
def test_bad_filter_is_a_400_naming_the_parameter(api, query, field):
    answer = api.json(f"/api/v1/articles/?{query}", status=400)
    assert field in answer


@pytest.mark.parametrize(
    "name",
    [
        "q", "tag", "author", "published_after", "published_before", "event_after",
        "event_before", "updated_since", "ordering", "cursor", "page_size",
    ],
)  # fmt: skip
def test_an_empty_parameter_is_a_400_naming_it(api, name):
    """DRF reads ``?q=`` as no q at all: every article, as if that were the answer."""
    ArticleFactory()
    answer = api.json(f"/api/v1/articles/?{name}=", status=400)
    assert answer == {name: ["Give a value, or leave the parameter out."]}


@pytest.mark.parametrize("url", ["/api/v1/tags/?page=", "/api/v1/authors/?page="])
def test_an_empty_page_number_is_a_400_naming_it(api, url):
    assert api.json(url, status=400) == {"page": ["Give a value, or leave the parameter out."]}


def test_a_parameter_given_twice_is_a_400_naming_it(api):
    """DRF would read the last one alone, and answer for a topic the client did not ask
    for as well as the one it did."""
    ArticleFactory(tags=["Go", "Rust"])
    answer = api.json("/api/v1/articles/?tag=go&tag=rust", status=400)
    assert answer == {"tag": ["Give this parameter once."]}


@pytest.mark.parametrize("size", ["ten", "0", "-5", "+5", "2.5", "٣"])
def test_a_page_size_that_is_no_whole_number_from_1_is_a_400_naming_it(api, size):
    # DRF answered with its default page size.
    ArticleFactory()
    answer = api.get("/api/v1/articles/", {"page_size": size})
    assert (answer.status_code, answer.json()) == (400, {"page_size": ["A whole number from 1."]})


@pytest.mark.parametrize("number", ["two", "0", "last", "-1"])
def test_a_page_number_that_is_no_whole_number_from_1_is_a_400_naming_it(api, number):
    # DRF answered 404 (or, for "last", the last page): it is a bad value, not a missing page.
    answer = api.get("/api/v1/tags/", {"page": number})
    assert (answer.status_code, answer.json()) == (400, {"page": ["A whole number from 1."]})


def test_a_page_past_the_last_is_a_404(api):
    ArticleFactory(tags=["Go"])
    assert api.json("/api/v1/tags/?page=2", status=404) == {"detail": "Invalid page."}
    assert api.json("/api/v1/tags/?page=" + "9" * 5000, status=404) == {"detail": "Invalid page."}


@pytest.mark.parametrize(
    "position", ["p=x", "p=2024", "r=1&p=abc", "o=1&p=2024-13-40T99:00:00", "o=-5"]
)
def test_a_forged_cursor_is_a_400_naming_the_cursor(api, position):
    """A cursor that decodes but holds what no page of this list starts at (base64 of
    ``p=x`` was a 500)."""
    ArticleFactory.create_batch(3)
    cursor = b64encode(position.encode()).decode()
    answer = api.json(f"/api/v1/articles/?{urlencode({'cursor': cursor})}", status=400)
    assert answer == {"cursor": ["Invalid cursor"]}


def test_a_cursor_that_does_not_decode_is_a_400_naming_the_cursor(api):
    answer = api.json("/api/v1/articles/?cursor=garbage", status=400)
    assert answer == {"cursor": ["Invalid cursor"]}


def test_unknown_tag_or_author_filter_is_a_404(api):
    api.json("/api/v1/articles/?tag=nothing", status=404)
    api.json("/api/v1/articles/?author=nobody", status=404)


def test_cursor_pages_read_every_article_once_in_order(api):
    now = timezone.now()
    for n in range(5):
        ArticleFactory(title=f"Story {n}", published_at=now - timedelta(hours=10 - n))
    seen, url = [], "/api/v1/articles/?page_size=2"
    while url:
        answer = api.json(url)
        seen += slugs(answer)
        url = answer["next"]
    assert seen == [f"story-{n}" for n in range(4, -1, -1)]


def test_a_new_publication_does_not_shift_the_next_page(api):
    now = timezone.now()
    for n in range(4):
        ArticleFactory(title=f"Story {n}", published_at=now - timedelta(hours=10 - n))
    first = api.json("/api/v1/articles/?page_size=2")
    ArticleFactory(title="Breaking", published_at=now)
    assert slugs(api.json(first["next"])) == ["story-1", "story-0"]


def test_a_page_size_over_100_is_a_400_naming_it(api):
    ArticleFactory.create_batch(3)
    assert len(api.json("/api/v1/articles/?page_size=100")["results"]) == 3
    answer = api.get("/api/v1/articles/", {"page_size": "101"})
    assert (answer.status_code, answer.json()) == (400, {"page_size": ["At most 100."]})


def test_tags_list_counts_published_articles(api):
    ArticleFactory(tags=["Go"])
    ArticleFactory(tags=["Go"])
    ArticleFactory(tags=["Go"], draft=True)
    [tag] = api.json("/api/v1/tags/")["results"]
    assert (tag["name"], tag["article_count"]) == ("Go", 2)
    assert tag["articles_url"] == "http://testserver/api/v1/articles/?tag=go"
    assert tag["feed_url"] == "http://testserver/tags/go/feed.json"


def test_author_has_bio_links_and_photo(api, media_root):
    author = AuthorFactory(name="Ann Lee", photo=ImageFactory())
    author.links.create(label="Mastodon", url="https://mastodon.example/@ann")
    data = api.json("/api/v1/authors/ann-lee/")
    assert data["bio"] == "Writes about releases."
    assert data["links"] == [{"label": "Mastodon", "url": "https://mastodon.example/@ann"}]
    assert data["photo"]["crops"][0]["url"].startswith("http://testserver/media/")
    assert [a["slug"] for a in api.json("/api/v1/authors/")["results"]] == ["ann-lee"]


def test_every_api_answer_allows_any_origin(api):
    article = ArticleFactory()
    for url in ["/api/v1/articles/", f"/api/v1/articles/{article.slug}/", "/api/v1/tags/"]:
        response = api.get(url)
        assert response["Access-Control-Allow-Origin"] == "*"
        assert "Authorization" in response["Vary"]


def test_a_preflight_allows_the_authorization_header(api):
    response = api.options(
        "/api/v1/articles/",
        HTTP_ORIGIN="https://app.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Headers"] == "Authorization"
    assert response["Access-Control-Allow-Origin"] == "*"


def test_the_api_is_read_only(api):
    article = ArticleFactory()
    assert api.post("/api/v1/articles/", {}).status_code == 405
    assert api.delete(f"/api/v1/articles/{article.slug}/").status_code == 405
    assert Article.objects.count() == 1


def test_an_article_carries_its_corrections_and_updates(client):
    from news.models import Correction

    article = ArticleFactory(title="Corrected story")
    Correction.objects.create(article=article, kind="correction", note="The date was wrong.")
    Correction.objects.create(article=article, kind="update", note="Now also on ARM.")
    data = client.get(f"/api/v1/articles/{article.slug}/").json()
    assert [(c["kind"], c["note"]) for c in data["corrections"]] == [
        ("correction", "The date was wrong."),
        ("update", "Now also on ARM."),
    ]
