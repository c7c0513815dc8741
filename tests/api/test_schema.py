"""What the OpenAPI schema says of each answer, held against the answer itself: the
fields' formats, and the 400, 401, 404 and 429 bodies a client gets."""

import re
import sys

import pytest
from openapi_schema_validator import OAS31Validator
from rest_framework.throttling import AnonRateThrottle

from api.filters import SPACE
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api):
    return api.get("/api/v1/schema/").json()


def resolved(schema, node):
    """``node`` with every ``$ref`` into ``schema`` replaced by what it names."""
    if isinstance(node, dict):
        if "$ref" in node:
            _, *path = node["$ref"].split("/")
            target = schema
            for part in path:
                target = target[part]
            return resolved(schema, target)
        return {key: resolved(schema, value) for key, value in node.items()}
    if isinstance(node, list):
        return [resolved(schema, item) for item in node]
    return node


def documented(schema, path, status):
    answer = schema["paths"][path]["get"]["responses"][str(status)]
    return resolved(schema, answer["content"]["application/json"]["schema"]), answer


def test_facts_verified_is_declared_as_the_month_it_is(api, schema):
    ArticleFactory()
    declared = schema["components"]["schemas"]["Article"]["properties"]["facts_verified"]
    value = api.json("/api/v1/articles/")["results"][0]["facts_verified"]
    assert "format" not in declared  # "date" would promise YYYY-MM-DD
    assert re.fullmatch(declared["pattern"].strip("^$"), value)


@pytest.mark.parametrize(
    ("path", "url", "field"),
    [
        ("/api/v1/articles/", "/api/v1/articles/?q=", "q"),
        ("/api/v1/articles/", "/api/v1/articles/?ordering=title", "ordering"),
        ("/api/v1/articles/", "/api/v1/articles/?cursor=garbage", "cursor"),
        ("/api/v1/articles/", "/api/v1/articles/?page_size=ten", "page_size"),
        ("/api/v1/tags/", "/api/v1/tags/?page=two", "page"),
        ("/api/v1/authors/", "/api/v1/authors/?page=", "page"),
    ],
)
def test_a_bad_value_is_the_documented_400(api, schema, path, url, field):
    body = api.json(url, status=400)
    body_schema, _ = documented(schema, path, 400)
    OAS31Validator(body_schema).validate(body)
    assert field in body


@pytest.mark.parametrize(
    ("path", "url"),
    [
        ("/api/v1/articles/", "/api/v1/articles/?tag=nothing"),
        ("/api/v1/articles/{slug}/", "/api/v1/articles/nothing/"),
        ("/api/v1/tags/", "/api/v1/tags/?page=9"),
        ("/api/v1/tags/{slug}/", "/api/v1/tags/nothing/"),
        ("/api/v1/authors/", "/api/v1/authors/?page=9"),
        ("/api/v1/authors/{slug}/", "/api/v1/authors/nobody/"),
    ],
)
def test_a_missing_thing_is_the_documented_404(api, schema, path, url):
    body = api.json(url, status=404)
    body_schema, _ = documented(schema, path, 404)
    OAS31Validator(body_schema).validate(body)


def test_an_unknown_token_is_the_documented_401(api, schema):
    body = api.json("/api/v1/articles/", status=401, HTTP_AUTHORIZATION="Bearer skl_nothing")
    body_schema, _ = documented(schema, "/api/v1/articles/", 401)
    OAS31Validator(body_schema).validate(body)


def test_over_the_limit_is_the_documented_429_with_retry_after(
    api, schema, monkeypatch, in_one_minute
):
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "1/min")
    api.get("/api/v1/tags/")
    response = api.get("/api/v1/tags/")
    assert response.status_code == 429
    body_schema, answer = documented(schema, "/api/v1/tags/", 429)
    OAS31Validator(body_schema).validate(response.json())
    assert answer["headers"]["Retry-After"]["required"] is True
    assert int(response["Retry-After"]) > 0


@pytest.mark.parametrize("slug", ["not%20a%20slug", "a%0Ab"])
def test_an_address_no_api_route_takes_is_a_json_404(api, schema, slug):
    """A slug Django's <slug:> refuses never reaches the view: it was the site's HTML page,
    which the schema's 404 (JSON) does not describe."""
    response = api.get(f"/api/v1/articles/{slug}/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    body_schema, _ = documented(schema, "/api/v1/articles/{slug}/", 404)
    OAS31Validator(body_schema).validate(response.json())


def test_a_missing_final_slash_is_still_added(api):
    response = api.get("/api/v1/articles")
    assert (response.status_code, response["Location"]) == (301, "/api/v1/articles/")


def test_the_schema_states_the_rule_across_two_dates(schema):
    """No JSON Schema keyword relates two query parameters, so the words must."""
    parameters = {
        p["name"]: p.get("description", "")
        for p in schema["paths"]["/api/v1/articles/"]["get"]["parameters"]
    }
    assert "Not later than published_before" in parameters["published_after"]
    assert "Not later than event_before" in parameters["event_after"]


def test_the_query_pattern_spaces_are_what_the_words_are_split_on():
    """The pattern spells its spaces out (ECMA 262's \\s is another set): they must be
    exactly those str.split() splits on, or the schema and the API disagree."""
    every = [chr(n) for n in range(sys.maxunicode + 1)]
    spelt = {c for c in every if re.fullmatch(f"[{SPACE}]", c)}
    assert spelt == {c for c in every if c.isspace()}


@pytest.mark.parametrize(
    "q",
    [
        "kernel",
        "  kernel  ",
        "a\x1cb",  # two words for str.split(), one for ECMA 262's \s
        "\ufeffword",  # a word for str.split(), a space for ECMA 262's \s
        " ".join(["w"] * 10),
        " ".join(["w"] * 11),
        "\u3000",
        "a\x00b",
    ],
    ids=repr,
)
def test_the_schema_pattern_of_q_accepts_what_the_api_accepts(api, schema, q):
    [declared] = [
        p["schema"]
        for p in schema["paths"]["/api/v1/articles/"]["get"]["parameters"]
        if p["name"] == "q"
    ]
    accepted = api.get("/api/v1/articles/", {"q": q}).status_code == 200
    assert bool(re.search(declared["pattern"], q)) == accepted


def test_the_schema_is_kept_by_caches_and_asked_again_with_its_etag(api):
    first = api.get("/api/v1/schema/")
    assert first.status_code == 200
    assert {"public", "max-age=3600"} <= set(first["Cache-Control"].replace(" ", "").split(","))
    again = api.get("/api/v1/schema/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304 and not again.content
