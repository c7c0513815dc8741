"""The OpenAPI schema against the OpenAPI 3.1 specification, the docs page under the
site's CSP, the JSON Feed against JSON Feed 1.1, and the anonymous rate limit."""

import re
from datetime import UTC, datetime

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from tests.api.conftest import bearer
from tests.factories import ApiTokenFactory, ArticleFactory

pytestmark = pytest.mark.django_db


def test_the_schema_is_valid_openapi_3_1(api):
    schema = api.get("/api/v1/schema/").json()
    assert schema["openapi"] == "3.1.0"
    validate(schema)  # raises on any violation of the specification


@pytest.mark.parametrize(
    "accept", ["application/json", "application/vnd.oai.openapi+json", "*/*", None]
)
def test_the_schema_is_json_for_what_clients_ask(api, accept):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    response = api.get("/api/v1/schema/", **headers)
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] in {
        "application/json",
        "application/vnd.oai.openapi+json",
    }
    assert response.json()["openapi"] == "3.1.0"


def test_the_schema_is_yaml_for_who_asks_for_it(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi")
    assert response.status_code == 200
    assert response.content.startswith(b"openapi: 3.1.0")


def test_the_validator_would_catch_a_broken_schema(api):
    schema = api.get("/api/v1/schema/").json()
    schema["paths"]["/api/v1/articles/"]["get"]["parameters"][0]["in"] = "body"
    with pytest.raises(OpenAPIValidationError):
        validate(schema)


def test_the_schema_documents_every_endpoint_and_filter(api):
    schema = api.get("/api/v1/schema/").json()
    assert set(schema["paths"]) == {
        "/api/v1/articles/",
        "/api/v1/articles/{slug}/",
        "/api/v1/tags/",
        "/api/v1/tags/{slug}/",
        "/api/v1/authors/",
        "/api/v1/authors/{slug}/",
    }
    parameters = {p["name"] for p in schema["paths"]["/api/v1/articles/"]["get"]["parameters"]}
    assert {"tag", "author", "updated_since", "q", "ordering", "cursor", "page_size"} <= parameters


def test_the_docs_page_has_no_inline_script_or_style_and_keeps_the_strict_csp(client):
    response = client.get("/api/v1/docs/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert "<style" not in html
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert not re.search(r'(src|href)="(https?:)?//', html), "every file from this site"
    script = client.get("/api/v1/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert b"/api/v1/schema/" in script.content


# JSON Feed 1.1 (https://jsonfeed.org/version/1.1), what it says a feed MUST have.
def check_json_feed(feed):
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert isinstance(feed["title"], str) and feed["title"]
    assert isinstance(feed["items"], list)
    for url in ("home_page_url", "feed_url"):
        assert feed.get(url, "https://").startswith(("https://", "http://"))
    for author in feed.get("authors", []):
        assert {"name", "url", "avatar"} & set(author), "an author has name, url or avatar"
    ids = [item["id"] for item in feed["items"]]
    assert len(set(ids)) == len(ids), "ids are unique"
    for item in feed["items"]:
        assert isinstance(item["id"], str) and item["id"]
        assert "content_html" in item or "content_text" in item
        for name in ("date_published", "date_modified"):
            if name in item:  # RFC 3339
                assert datetime.fromisoformat(item[name]).tzinfo is not None
        for name in ("url", "image"):
            if name in item:
                assert item[name].startswith(("https://", "http://"))
        for author in item.get("authors", []):
            assert {"name", "url", "avatar"} & set(author)
        assert all(isinstance(tag, str) for tag in item.get("tags", []))


def test_the_json_feed_follows_the_specification(api, media_root):
    ArticleFactory(title="One", tags=["Go"], authors=["Ann Lee"])
    ArticleFactory(title="Two")
    response = api.get("/feed.json")
    assert response["Content-Type"] == "application/feed+json; charset=utf-8"
    feed = response.json()
    check_json_feed(feed)
    assert [item["title"] for item in feed["items"]] == ["Two", "One"]
    assert feed["feed_url"] == "http://testserver/feed.json"


def test_the_json_feed_ids_are_the_rss_guids(api):
    article = ArticleFactory()
    [item] = api.get("/feed.json").json()["items"]
    assert item["id"] == f"tag:skillo.example,2024-01-01:article:{article.pk}"
    assert f'<guid isPermaLink="false">{item["id"]}</guid>' in api.get("/feed/").content.decode()


def test_a_topics_json_feed_follows_the_specification_and_holds_only_that_topic(api):
    ArticleFactory(title="In", tags=["Rust"])
    ArticleFactory(title="Out", tags=["Go"])
    feed = api.get("/tags/rust/feed.json").json()
    check_json_feed(feed)
    assert [item["title"] for item in feed["items"]] == ["In"]
    assert api.get("/tags/nothing/feed.json").status_code == 404


def test_an_empty_json_feed_still_has_items(api):
    feed = api.get("/feed.json").json()
    check_json_feed(feed)
    assert feed["items"] == []


@pytest.fixture
def three_a_minute(monkeypatch, in_one_minute):
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "3/min")


def test_an_anonymous_client_over_the_limit_gets_429_with_retry_after(api, three_a_minute):
    for _ in range(3):
        assert api.get("/api/v1/articles/").status_code == 200
    response = api.get("/api/v1/articles/")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "throttled" in response.json()["detail"].lower()


def test_retry_after_says_when_the_minute_ends(api, monkeypatch, time_machine):
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "3/min")
    time_machine.move_to(datetime(2026, 3, 2, 12, 0, 45, tzinfo=UTC), tick=False)
    for _ in range(3):
        api.get("/api/v1/articles/")
    assert api.get("/api/v1/articles/")["Retry-After"] == "15"


def test_the_limit_is_per_address(api, three_a_minute):
    for _ in range(3):
        api.get("/api/v1/articles/")
    assert api.get("/api/v1/articles/", REMOTE_ADDR="192.0.2.7").status_code == 200


def test_a_forged_forwarded_for_does_not_escape_the_limit(api, three_a_minute):
    for n in range(3):
        api.get("/api/v1/articles/", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    response = api.get("/api/v1/articles/", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert response.status_code == 429


def test_a_token_is_not_held_to_the_anonymous_limit(api, three_a_minute):
    token = ApiTokenFactory()
    for _ in range(5):
        assert api.get("/api/v1/articles/", **bearer(token)).status_code == 200


@pytest.fixture
def anonymous_five_tokens_two(monkeypatch, in_one_minute):
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "5/min")
    monkeypatch.setitem(UserRateThrottle.THROTTLE_RATES, "user", "2/min")


def test_an_anonymous_client_is_held_to_the_anonymous_rate_alone(api, anonymous_five_tokens_two):
    """DRF's token throttle counted anonymous clients too, by address: with a token rate
    below the anonymous one, they got the token rate."""
    for _ in range(5):
        assert api.get("/api/v1/articles/").status_code == 200
    assert api.get("/api/v1/articles/").status_code == 429


def test_a_token_is_held_to_the_token_rate(api, anonymous_five_tokens_two):
    token = ApiTokenFactory()
    for _ in range(2):
        assert api.get("/api/v1/articles/", **bearer(token)).status_code == 200
    assert api.get("/api/v1/articles/", **bearer(token)).status_code == 429
