"""Every beacon is answered 204, whatever its body and headers (issue 44: a referrer of
``http://[::1`` made urlsplit raise, a 500), and what it leaves to fold folds: a property
test (Hypothesis) of bodies and header values no browser sends."""

import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from readership.folding import fold
from readership.models import ArticleHour, SourceHour
from tests.factories import ArticleFactory
from tests.test_readership import fresh_process  # noqa: F401 (the process's state, reset)

pytestmark = pytest.mark.django_db

BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/140.0",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "no-cors",
}
PATH = "/articles/python-ships/"


@pytest.fixture(autouse=True)
def no_address_limit(settings):
    # Hundreds of beacons from one address within a minute: all of them parsed, none
    # dropped by the address's limit before parse() sees them.
    settings.READERSHIP_PER_MINUTE = 1_000_000


@pytest.fixture
def article():
    article = ArticleFactory(title="Python ships")
    assert article.get_absolute_url() == PATH  # the generated beacons' page
    return article


# A header value as a WSGI server hands it over: bytes read as Latin-1.
header_values = st.binary(max_size=300).map(lambda value: value.decode("latin-1"))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
referrers = st.one_of(
    st.text(),
    st.sampled_from(["http://[::1", "https://[", "http://[::1]:99999/", "http://a\x00b/"]),
    st.builds("{}://{}/{}".format, st.sampled_from(["http", "https"]), st.text(), st.text()),
)
# Mostly beacons of the right shape, so that the checks past the JSON are reached.
beacon_objects = st.fixed_dictionaries(
    {"p": st.one_of(st.just(PATH), st.text()), "r": referrers | json_values},
    optional={"w": st.sampled_from(["s", "m", "l"]) | json_values, "s": json_values},
)
bodies = st.one_of(
    st.binary(max_size=2000),
    json_values.map(json.dumps).map(str.encode),
    beacon_objects.map(json.dumps).map(str.encode),
    beacon_objects.map(lambda beacon: json.dumps(beacon, ensure_ascii=False).encode()),
)
header_sets = st.dictionaries(
    st.sampled_from(
        ["User-Agent", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-GPC", "X-Forwarded-For",
         "Content-Type", "Content-Length", "Transfer-Encoding"]
    ),
    header_values,
)  # fmt: skip


@given(body=bodies, headers=header_sets)
@example(body=json.dumps({"p": PATH, "r": "http://[::1", "w": "l"}).encode(), headers={})
@example(body=json.dumps({"p": PATH, "r": "http://a\x00b/", "w": "l"}).encode(), headers={})
@example(body=b'{"p": "%s", "w": "l", "r": ""}' % PATH.encode() + b" " * 5_000_000, headers={})
@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_every_beacon_is_answered_204_and_what_it_leaves_folds(client, article, body, headers):
    response = client.generic(
        "POST",
        "/readership/beacon/",
        body,
        content_type="text/plain;charset=UTF-8",
        headers={**BROWSER, **headers},
        REMOTE_ADDR="203.0.113.7",
    )
    assert response.status_code == 204
    fold()  # raises if a beacon was kept that the database or the fold cannot take


def test_a_referrer_with_an_unclosed_bracket_is_answered_204_and_not_counted(client, article):
    body = json.dumps({"p": article.get_absolute_url(), "r": "http://[::1", "w": "l"})
    response = client.post("/readership/beacon/", body, content_type="text/plain", headers=BROWSER)
    assert response.status_code == 204
    fold()
    assert not ArticleHour.objects.exists() and not SourceHour.objects.exists()
