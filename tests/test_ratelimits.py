"""The rate limits' counter (ratelimits.counter): hits counted in fixed windows, once for
the whole site. With any cache but Redis (a folder, one process's memory) they are
counted in the database, on SQLite and on PostgreSQL; with Redis as the cache, in Redis,
and in the database while Redis is down. The limits
themselves (the API's, the fediverse inboxes', the readership beacons') are tested with
their apps, and on three gunicorn processes in tests/test_ratelimit_servers.py."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.db import connection

from ratelimits import counter
from ratelimits.tasks import forget_ended_windows

pytestmark = pytest.mark.django_db

THREADS = 8
HITS_EACH = 50


@pytest.fixture
def clock(time_machine):
    """Stopped half-way through a minute."""
    time_machine.move_to(datetime(2026, 3, 2, 12, 0, 30, tzinfo=UTC), tick=False)
    return time_machine


@pytest.fixture
def redis_cache(redis_server, settings, monkeypatch):
    """The default cache in Redis, empty, and asked again at once after an error."""
    if redis_server.process is None:  # stopped by a test that failed before restarting it
        redis_server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_server.url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    cache.clear()
    monkeypatch.setitem(counter._state, "cache_down_until", 0.0)
    return redis_server


def test_each_hit_on_a_scope_counts_one_more(clock):
    assert [counter.hit("test:a") for _ in range(3)] == [1, 2, 3]


def test_scopes_are_counted_apart(clock):
    counter.hit("test:a")
    counter.hit("test:a")
    assert counter.hit("test:b") == 1


def test_the_count_starts_again_when_its_minute_ends(clock):
    for _ in range(3):
        counter.hit("test:a")
    clock.shift(timedelta(seconds=30))
    assert counter.hit("test:a") == 1


def test_a_limit_lets_its_hits_through_and_refuses_the_next(clock):
    assert [counter.over("test:a", 2) for _ in range(3)] == [False, False, True]


def test_windows_of_different_lengths_are_counted_apart(clock):
    counter.hit("test:a", seconds=60)
    assert counter.hit("test:a", seconds=3600) == 1


def test_a_scope_longer_than_the_key_column_is_counted_too(clock):
    longest_host = "fediverse:" + ".".join(["a" * 63] * 4)  # 253 characters
    assert [counter.hit(longest_host) for _ in range(2)] == [1, 2]


def test_ended_windows_are_forgotten_and_the_current_one_is_kept(clock):
    counter.hit("test:earlier")
    clock.shift(timedelta(minutes=1))
    counter.hit("test:now")
    assert forget_ended_windows.call() == 1
    assert counter.hit("test:now") == 2


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="needs PostgreSQL: SQLite's test database is a shared-cache in-memory database "
    "whose table locks fail at once instead of waiting (SQLite's processes are "
    "tests/test_ratelimit_servers.py's)",
)
def test_hits_from_threads_at_once_each_get_a_count_of_their_own(clock):
    start = threading.Barrier(THREADS)
    counts, errors = [], []

    def hit_many():
        try:
            start.wait()
            counts.extend(counter.hit("test:busy") for _ in range(HITS_EACH))
        except BaseException as error:  # reported by the test, not lost in the thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=hit_many) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(counts) == list(range(1, THREADS * HITS_EACH + 1))


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's fsync setting")
def test_a_count_on_sqlite_leaves_the_sites_other_writes_synced_to_disk(clock):
    """The count itself is committed without an fsync (it was most of its cost, with
    every process waiting on it); an editor's save after it must still be."""
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous = FULL")
        counter.hit("test:a")
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone() == (2,)  # FULL


def test_with_redis_as_the_cache_hits_are_counted_there_not_in_the_database(
    redis_cache, clock, django_assert_num_queries
):
    with django_assert_num_queries(0):
        assert [counter.hit("test:a") for _ in range(3)] == [1, 2, 3]


def test_with_redis_down_hits_are_counted_in_the_database_and_the_log_says_so(
    redis_cache, clock, caplog
):
    redis_cache.stop()
    try:
        assert [counter.hit("test:a") for _ in range(3)] == [1, 2, 3]
    finally:
        redis_cache.start()
    assert "Rate limits counted in the database: the cache is unavailable" in caplog.text


def test_with_redis_down_a_limit_still_refuses_the_hit_over_it(redis_cache, clock):
    redis_cache.stop()
    try:
        assert [counter.over("test:a", 2) for _ in range(3)] == [False, False, True]
    finally:
        redis_cache.start()


def test_once_redis_answers_again_hits_are_counted_there_not_in_the_database(
    redis_cache, clock, monkeypatch, django_assert_num_queries
):
    redis_cache.stop()
    try:
        counter.hit("test:a")
    finally:
        redis_cache.start()
    monkeypatch.setitem(counter._state, "cache_down_until", 0.0)
    with django_assert_num_queries(0):
        assert counter.hit("test:a") == 1
