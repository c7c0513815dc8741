"""The article list's cursors: only one this API made reads on (issue 44: ``' OR 1=1--``
decoded as a cursor without a position and answered the first page, where docs/api.md
promised a 400). Every list the API pages is tried: the articles in each ordering,
filtered, and for a token. (The topics' and authors' lists are paged by number, and a
page that is no number was already a 400: tests/api/test_articles.py.)"""

from base64 import b64encode
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.core import signing

from api import cursors
from api.models import Scope
from tests.api.conftest import bearer
from tests.factories import ApiTokenFactory, ArticleFactory

pytestmark = pytest.mark.django_db

INVALID = {"cursor": ["Invalid cursor"]}
LISTS = [
    "/api/v1/articles/?page_size=1",
    "/api/v1/articles/?page_size=1&ordering=published",
    "/api/v1/articles/?page_size=1&ordering=event_date",
    "/api/v1/articles/?page_size=1&ordering=-event_date",
    "/api/v1/articles/?page_size=1&tag=linux",
    "/api/v1/articles/?page_size=1&author=ann-lee",
    "/api/v1/articles/?page_size=1&q=kernel",
]


# A position every ordering's field takes (a date-time, or its date): with DRF's cursors
# a client could start a list anywhere.
LONG_AGO = "2020-01-01"


def unsigned(querystring):
    """A cursor as DRF writes one, and as this API made them before it signed them."""
    return b64encode(querystring.encode()).decode()


def altered(cursor):
    """``cursor`` with the last character of its signature changed."""
    return cursor[:-1] + ("A" if cursor[-1] != "A" else "B")


# Each a function of a real cursor of the list (its second page's), so that the table also
# holds cursors that come close to one.
BAD_CURSORS = {
    "SQL": lambda real: "' OR 1=1--",
    "not base64": lambda real: "abc",
    "a word": lambda real: "garbage",
    "a NUL": lambda real: "\x00",
    "not ASCII": lambda real: "curseur-é",
    "long": lambda real: "A" * 5000,
    "DRF's, no position": lambda real: unsigned("o=1"),
    "DRF's, reversed": lambda real: unsigned("r=1"),
    "DRF's, a forged position": lambda real: unsigned(urlencode({"p": LONG_AGO})),
    "DRF's, SQL as the position": lambda real: unsigned("p=' OR 1=1--"),
    "the signature changed": altered,
    "the signature cut": lambda real: real[:-5],
    "no signature": lambda real: real.rsplit(".", 1)[0],
    "the signature twice": lambda real: real + "." + real.rsplit(".", 1)[1],
    "a space after": lambda real: real + " ",
    "another position, the real signature": lambda real: (
        cursors.sign(urlencode({"p": LONG_AGO})).split(".")[0] + "." + real.split(".")[1]
    ),
    "another key": lambda real: cursors.sign("o=1", key="not this site's key" * 3),
    "another salt": lambda real: signing.Signer(sep=".").sign(real.split(".")[0]),
}


@pytest.fixture
def articles():
    ArticleFactory(title="Kernel one", tags=["Linux"], authors=["Ann Lee"])
    ArticleFactory(title="Kernel two", tags=["Linux"], authors=["Ann Lee"])


def second_page_cursor(api, url, **headers):
    link = api.json(url, **headers)["next"]
    return parse_qs(urlsplit(link).query)["cursor"][0]


@pytest.mark.parametrize("url", LISTS)
@pytest.mark.parametrize("bad", list(BAD_CURSORS.values()), ids=list(BAD_CURSORS))
def test_a_cursor_this_api_did_not_make_is_a_400(api, articles, url, bad):
    cursor = bad(second_page_cursor(api, url))
    assert api.json(f"{url}&{urlencode({'cursor': cursor})}", status=400) == INVALID


@pytest.mark.parametrize("bad", list(BAD_CURSORS.values()), ids=list(BAD_CURSORS))
def test_a_cursor_this_api_did_not_make_is_a_400_for_a_token_too(api, articles, bad):
    token = bearer(ApiTokenFactory(scopes=[Scope.READ_DRAFTS]))
    cursor = bad(second_page_cursor(api, LISTS[0], **token))
    url = f"{LISTS[0]}&{urlencode({'cursor': cursor})}"
    assert api.json(url, status=400, **token) == INVALID


def test_a_cursor_of_one_ordering_is_refused_in_another(api):
    ArticleFactory.create_batch(3)
    following = api.json("/api/v1/articles/?page_size=1&ordering=published")["next"]
    cursor = parse_qs(urlsplit(following).query)["cursor"][0]
    assert api.get(following).status_code == 200
    other = api.get(
        "/api/v1/articles/", {"page_size": 1, "ordering": "-published", "cursor": cursor}
    )
    assert (other.status_code, other.json()) == (400, INVALID)
