"""Fixtures of the API tests; the page-cache fixtures (a cache backend, committed edits,
a moving clock, an anonymous reader) come from tests/pagecache/conftest.py."""

from datetime import timedelta

import pytest
from django.utils import timezone

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


@pytest.fixture
def in_one_minute(time_machine):
    """The clock at the start of the next minute: the rate limits count in fixed minutes
    (api.throttling), and a test's requests over a limit must not straddle two."""
    now = timezone.now().replace(second=0, microsecond=0)
    time_machine.move_to(now + timedelta(minutes=1), tick=True)
