"""Fixtures of the API tests; the page-cache fixtures (a cache backend, committed edits,
a moving clock, an anonymous reader) come from tests/pagecache/conftest.py."""

import pytest

from tests.pagecache.conftest import (  # noqa: F401 (fixtures)
    cache_backend,
    committed,
    editor_client,
    later,
    reader,
)


@pytest.fixture
def api(client):
    """An anonymous API client: ``api.json(url)`` is the decoded answer, asserting 200."""

    def json(url, status=200, **headers):
        response = client.get(url, **headers)
        assert response.status_code == status, (url, response.content[:500])
        return response.json()

    client.json = json
    return client


def bearer(token):
    return {"HTTP_AUTHORIZATION": f"Bearer {token.secret}"}
