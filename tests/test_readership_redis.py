"""Readership with the default cache in Redis (issue 32): beacons wait in a Redis list
instead of the process's buffer and the database, and the fold takes them from there,
on a real redis-server of this module's own (stopped in one test). The rules of what
counts are tests/test_readership.py's; these check that nothing is lost or counted
twice on the way."""

import shutil
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone
from redis import Redis
from redis.exceptions import LockNotOwnedError, RedisError

from readership import beacons, folding, visitors
from readership.models import ArticleHour, Beacon
from tests.factories import ArticleFactory

from .redis_server import RedisServer
from .test_readership import BROWSER, figures, send

# The fold commits its own transaction, as it does in a task: tested for real.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def redis():
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def redis_cache(redis, settings):
    """The default cache in this module's Redis, empty; the process's buffer unused."""
    if redis.process is None:  # stopped by a test that failed before starting it again
        redis.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis.url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    cache.clear()
    visitors._salts.clear()
    yield Redis.from_url(redis.url)
    visitors._salts.clear()
    assert not beacons.buffer.beacons  # never used while the cache is Redis


@pytest.fixture
def article():
    return ArticleFactory(title="Python 3.14 ships")


def waiting(client):
    """How many beacons wait in Redis, taken by a fold or not."""
    keys = client.keys("*readership:beacons*")
    return sum(client.llen(key) for key in keys)


def test_a_view_is_counted_once_after_folding_and_never_written_to_the_table(
    client, article, redis_cache
):
    assert send(client, article.get_absolute_url()).status_code == 204
    assert waiting(redis_cache) == 1
    assert not Beacon.objects.exists()
    assert figures(article) == (1, 1)
    assert waiting(redis_cache) == 0
    assert figures(article) == (1, 1)  # folding again adds nothing


def test_what_is_not_counted_is_not_pushed(client, article, redis_cache):
    crawler = {**BROWSER, "User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1)"}
    send(client, article.get_absolute_url(), headers=crawler)
    send(client, "/no-such-page/")
    send(client, article.get_absolute_url(), width="huge")
    assert waiting(redis_cache) == 0


def test_the_per_minute_limit_is_shared_through_redis(client, article, settings):
    settings.READERSHIP_PER_MINUTE = 2
    for n in range(4):  # four browsers behind one address
        send(client, article.get_absolute_url(), headers={**BROWSER, "User-Agent": f"Firefox/{n}"})
    assert figures(article) == (2, 2)


def test_a_beacon_received_while_a_fold_runs_is_counted_by_the_next_fold(
    client, article, monkeypatch
):
    add_counts = folding.add_counts

    def meanwhile(*args):
        send(client, article.get_absolute_url(), address="198.51.100.4")
        add_counts(*args)

    send(client, article.get_absolute_url())
    monkeypatch.setattr(folding, "add_counts", meanwhile)
    assert folding.fold() == 1
    monkeypatch.setattr(folding, "add_counts", add_counts)
    assert figures(article) == (2, 2)
    assert folding.fold() == 0


def test_a_fold_whose_transaction_fails_loses_nothing(client, article, monkeypatch, redis_cache):
    for address in ("203.0.113.7", "198.51.100.4"):
        send(client, article.get_absolute_url(), address=address)

    def fails(sources):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(folding, "add_sources", fails)
    with pytest.raises(RuntimeError):
        folding.fold()
    monkeypatch.undo()
    assert not ArticleHour.objects.exists()
    assert waiting(redis_cache) == 2
    send(client, article.get_absolute_url(), address="192.0.2.1")
    assert folding.fold() == 2  # the failed fold's batch first, alone
    assert folding.fold() == 1
    assert waiting(redis_cache) == 0
    assert figures(article) == (3, 3)


def test_a_batch_whose_delete_failed_after_its_commit_is_not_counted_twice(
    client, article, monkeypatch, redis_cache
):
    send(client, article.get_absolute_url())
    unlink = Redis.unlink

    def fails_once(self, *names):
        monkeypatch.setattr(Redis, "unlink", unlink)
        raise RedisError("the connection dropped")

    monkeypatch.setattr(Redis, "unlink", fails_once)
    with pytest.raises(RedisError):
        folding.fold()  # committed, then the delete failed: the batch is still there
    assert waiting(redis_cache) == 1
    assert ArticleHour.objects.get(article=article).views == 1
    send(client, article.get_absolute_url(), address="192.0.2.1")
    assert folding.fold() == 0  # the batch found again, known: deleted, not counted
    assert folding.fold() == 1  # then the new view
    assert figures(article) == (2, 2)
    assert waiting(redis_cache) == 0


def test_a_fold_that_lost_its_lock_rolls_back_and_loses_nothing(client, article, monkeypatch):
    send(client, article.get_absolute_url())
    add_sources = folding.add_sources

    def lock_expires(sources):
        add_sources(sources)
        waiting = beacons.redis_list()
        waiting.client.delete(waiting.lock_name)

    monkeypatch.setattr(folding, "add_sources", lock_expires)
    with pytest.raises(LockNotOwnedError):
        folding.fold()
    monkeypatch.undo()
    assert not ArticleHour.objects.exists()
    assert figures(article) == (1, 1)


def test_a_second_fold_leaves_the_folding_to_the_one_running(client, article, monkeypatch):
    send(client, article.get_absolute_url())
    monkeypatch.setattr(beacons, "FOLD_WAIT_SECONDS", 0.1)
    add_counts, inner = folding.add_counts, []

    def another_fold(*args):
        inner.append(folding.fold())
        add_counts(*args)

    monkeypatch.setattr(folding, "add_counts", another_fold)
    assert folding.fold() == 1
    assert inner == [None]
    monkeypatch.undo()
    assert figures(article) == (1, 1)


def test_views_written_to_the_table_before_redis_are_folded_too(client, article, settings):
    in_redis = settings.CACHES
    settings.READERSHIP_BUFFER_SIZE = 1
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    send(client, article.get_absolute_url())
    assert Beacon.objects.count() == 1
    settings.CACHES = in_redis
    send(client, article.get_absolute_url(), address="198.51.100.4")
    assert figures(article) == (2, 2)
    assert not Beacon.objects.exists()


def test_while_redis_is_down_a_beacon_is_answered_alike_and_not_counted(client, article, redis):
    redis.stop()
    try:
        assert send(client, article.get_absolute_url()).status_code == 204
        assert not Beacon.objects.exists()
    finally:
        redis.start()
    assert figures(article) == (0, 0)


def test_through_redis_a_view_counts_once_an_hour_and_a_scripts_nowhere(client, time_machine):
    """Issue 44: the rules of tests/test_most_read_clients.py hold when the beacons wait
    in Redis, whichever process pushed them, across folds."""
    hour = timezone.now().replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    time_machine.move_to(hour, tick=True)  # all in one hour, and one minute
    read, pushed = ArticleFactory(), ArticleFactory()
    for _ in range(2):  # one reader, two folds: what was counted is in the database
        send(client, read.get_absolute_url())
        send(client, read.get_absolute_url())
        folding.fold()
    for _ in range(folding.PERSON_PER_MINUTE + 1):
        send(client, pushed.get_absolute_url(), address="198.51.100.4")
    assert (figures(read), figures(pushed)) == ((1, 1), (0, 0))
