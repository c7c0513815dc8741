import os
from pathlib import Path

# Playwright's sync API runs an event loop, which trips Django's async-safety guard.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import pytest

from news.importer import import_articles

DEMO_CONTENT = Path(__file__).resolve().parent.parent / "news" / "demo_content"
SHARED_ARTICLE = DEMO_CONTENT / "pytorch-2-4.txt"
SHARED_SLUG = "pytorch-2-4-released-python-3-12-and-a-custom-operator-api"


def pytest_configure(config):
    # WhiteNoise warns (an error here) on every request if STATIC_ROOT does not exist yet.
    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(exist_ok=True)


@pytest.fixture
def shared_article(db):
    """The real Skillo article from ../shared, imported through the importer."""
    import_articles([SHARED_ARTICLE])
    from news.models import Article

    return Article.objects.get(slug=SHARED_SLUG)


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache (the header's topics are cached)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def count_queries(client, url):
    """SQL queries of one request to ``url``, once site-wide cached parts are warm."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


@pytest.fixture(autouse=True)
def page_cache_off(request, settings, monkeypatch):
    """Whole-page caching is tested on its own (tests/test_pagecache.py, marked
    ``page_cache``, where purges run on commit as in production). Elsewhere pages are
    not cached, and purges of what is (topic counts, archive months) run as soon as the
    change is made, since pytest-django's transactions never commit."""
    from news import purge
    from pagecache import store as pagecache

    if request.node.get_closest_marker("page_cache") is None:
        settings.SKILLO_PAGE_CACHE = False
        monkeypatch.setattr(purge, "on_commit", lambda callback: callback())
        # No commit, so no purge can land while a request reads: nothing to guard.
        monkeypatch.setattr(pagecache, "RACE_MARGIN", 0)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # The real hasher is deliberately slow; tests log in hundreds of times.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def redis_server():
    """A real redis-server for the session (make test installs Debian's package)."""
    import shutil

    from tests.redis_server import RedisServer

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    server = RedisServer()
    server.start()
    yield server
    server.close()
