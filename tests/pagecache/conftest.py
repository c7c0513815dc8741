"""Fixtures of the page-cache tests: a cache backend (local memory, and a real
redis-server), committed edits, a moving clock and an anonymous reader."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone


@pytest.fixture(params=["locmem", "redis"])
def cache_backend(request, settings, monkeypatch):
    if request.param == "redis":
        redis = request.getfixturevalue("redis_server")
        if redis.process is None:  # An earlier test stopped it and failed.
            redis.start()
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": redis.url,
                "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
            }
        }
    from django.core.cache import cache

    from pagecache import store

    cache.clear()
    # A cache error in an earlier test must not keep this one from using the cache.
    store._state.update(down_until=0.0)
    return request.param


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run edits as if committed: their purges run when the block ends."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def later(time_machine):
    """Move the clock on: a page built just after a purge is not stored (it might have
    read data from before it), so tests that want a stored page wait a little."""
    time_machine.move_to(timezone.now(), tick=True)
    return lambda seconds=3: time_machine.shift(timedelta(seconds=seconds))


@pytest.fixture
def reader(client, cache_backend, later):
    """An anonymous reader; ``reader.cached(url)`` says whether the page came from the
    cache (no SQL at all)."""

    def cached(url):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        return len(queries) == 0

    client.cached = cached
    client.later = later
    return client


@pytest.fixture
def editor_client(client, django_user_model):
    """An editor, logged in: never served nor storing a cached page."""
    from django.contrib.auth.models import Group
    from django.test import Client

    user = django_user_model.objects.create_user("ed", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    editor = Client(HTTP_HOST="testserver")
    editor.force_login(user)
    return editor
