"""Pages go out compressed (Brotli, else gzip); cached pages are compressed once, when
stored; private responses never are."""

import gzip

import brotli
import pytest

from pagecache import encoding, middleware
from tests.factories import ArticleFactory

pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.django_db,
    pytest.mark.parametrize("cache_backend", ["locmem"], indirect=True),
]

DECODE = {"br": brotli.decompress, "gzip": gzip.decompress}


@pytest.fixture
def article(committed, later):
    with committed():
        article = ArticleFactory(title="Compressed story", tags=["python"])
    later()
    return article


@pytest.mark.parametrize("accept", ["br", "gzip", "gzip, deflate, br"])
def test_a_cached_page_is_sent_in_the_encoding_the_client_accepts(reader, article, accept):
    url = article.get_absolute_url()
    plain = reader.get(url).content
    for _ in range(2):  # built, then served from the cache
        response = reader.get(url, headers={"Accept-Encoding": accept})
        chosen = "br" if "br" in accept else "gzip"
        assert response["Content-Encoding"] == chosen
        assert "Accept-Encoding" in response["Vary"]
        assert DECODE[chosen](response.content) == plain
        assert len(response.content) < len(plain) / 2


def test_a_client_that_accepts_nothing_gets_the_plain_page(reader, article):
    response = reader.get(article.get_absolute_url(), headers={"Accept-Encoding": "br;q=0"})
    assert not response.has_header("Content-Encoding")
    assert b"Compressed story" in response.content


def test_each_encoding_has_its_own_etag_and_answers_304(reader, article):
    url = article.get_absolute_url()
    tags = {
        accept: reader.get(url, headers={"Accept-Encoding": accept})["ETag"]
        for accept in ("br", "gzip", "identity")
    }
    assert len(set(tags.values())) == 3
    again = reader.get(url, headers={"Accept-Encoding": "br", "If-None-Match": tags["br"]})
    assert again.status_code == 304


def test_a_stored_page_is_compressed_once_not_on_every_hit(reader, article, monkeypatch):
    calls = []
    real = encoding.compress
    monkeypatch.setattr(encoding, "compress", lambda *a: calls.append(a[1]) or real(*a))
    url = article.get_absolute_url()
    for _ in range(5):
        assert reader.get(url, headers={"Accept-Encoding": "br"})["Content-Encoding"] == "br"
    assert sorted(calls) == ["br", "gzip"]


def test_pages_the_cache_does_not_keep_are_compressed_too(reader, article):
    response = reader.get("/search/?q=compressed", headers={"Accept-Encoding": "gzip"})
    assert response["Content-Encoding"] == "gzip"
    assert b"Compressed story" in gzip.decompress(response.content)


def test_private_responses_are_never_compressed(editor_client, article, cache_backend):
    for url in [article.get_absolute_url(), "/admin/"]:
        response = editor_client.get(url, headers={"Accept-Encoding": "br, gzip"})
        assert response.status_code == 200
        assert not response.has_header("Content-Encoding"), url


def test_with_the_cache_off_a_page_is_compressed_once_as_the_client_accepts(
    reader, article, monkeypatch, settings
):
    settings.SKILLO_PAGE_CACHE = False
    calls = []
    real = encoding.compress
    monkeypatch.setattr(encoding, "compress", lambda *a: calls.append(a[1]) or real(*a))
    monkeypatch.setattr(middleware, "compress", encoding.compress)
    url = article.get_absolute_url()
    response = reader.get(url, headers={"Accept-Encoding": "br"})
    assert response["Content-Encoding"] == "br"
    assert b"Compressed story" in brotli.decompress(response.content)
    assert calls == ["br"]  # no gzip copy that nobody keeps
    again = reader.get(url, headers={"Accept-Encoding": "br", "If-None-Match": response["ETag"]})
    assert again.status_code == 304


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/v1/schema/", {}),
        ("/", {"Accept": "application/activity+json"}),
        ("/.well-known/webfinger?resource=acct:news@testserver", {}),
    ],
    ids=["openapi-schema", "activitystreams", "webfinger"],
)
def test_json_of_every_vocabulary_is_compressed(reader, path, headers):
    """application/vnd.oai.openapi+json, activity+json, jrd+json: 52 KB of schema went
    out whole."""
    plain = reader.get(path, headers=headers)
    response = reader.get(path, headers={**headers, "Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip", response["Content-Type"]
    assert gzip.decompress(response.content) == plain.content
