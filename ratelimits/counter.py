"""Hits counted once for the whole site, whichever process a request reaches.

A limit counts hits on a scope (an instance's host name, an address's hash) in fixed
windows of the clock (a minute: from :00 to :59, the same for every process), and the
count is kept where every process sees it:

- in the default cache when it is Redis (CACHE_URL): Redis's INCR, atomic;
- otherwise in the database (a cache folder or memory cannot count atomically):
  one statement a hit, which inserts the window's row or adds one to it and answers
  the new count (INSERT ... ON CONFLICT ... DO UPDATE ... RETURNING; SQLite 3.35 and
  PostgreSQL), so two processes counting at once never read the same count.

While Redis cannot be reached, hits are counted in the database instead (the log says
so): a limit holds through an outage, neither lifted (a flood let through) nor turned
into an error page. For a second after an error the cache is not asked again, so an
outage slows no request down; once Redis answers, hits are counted there again. The two
counts are not added up: across the switch a client may get up to twice a limit in one
window, as across a window's end, never more.

Ended windows are forgotten: Redis expires their keys, and the periodic
forget-ended-rate-windows deletes the database's rows (ratelimits.tasks).
"""

import hashlib
import logging
import time
from contextlib import contextmanager
from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from redis.exceptions import RedisError

from .models import Window

logger = logging.getLogger(__name__)

# The default cache's backend that every process shares and that counts atomically.
REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"
# After a cache error, count nothing this long: an outage must not slow requests.
RETRY_AFTER_ERROR = 1.0
MAX_KEY = Window._meta.get_field("key").max_length

_state = {"cache_down_until": 0.0}


def over(scope, limit, seconds=60):
    """Count a hit on ``scope``; whether it is over ``limit`` hits in its window of
    ``seconds``."""
    return hit(scope, seconds) > limit


def hit(scope, seconds=60):
    """Count a hit on ``scope`` in the current window of ``seconds``: the window's hits
    so far across every process, this one included."""
    now = time.time()
    window = int(now // seconds)
    if settings.CACHES["default"]["BACKEND"] == REDIS_CACHE:
        hits = hit_in_cache(cache_key(scope, seconds, window), 2 * seconds)
        if hits is not None:
            return hits
    ends = datetime.fromtimestamp((window + 1) * seconds, UTC)
    return hit_in_database(database_key(scope, seconds), window, ends)


def seconds_left(seconds):
    """How long until the current window of ``seconds`` ends (and its count with it)."""
    return seconds - time.time() % seconds


def cache_key(scope, seconds, window):
    return f"ratelimit:{seconds}:{window}:{scope}"


def cache_entry(scope, seconds=60):
    """The key under which the current window's hits on ``scope`` are counted in a
    Redis cache, with the cache's prefix and version (for a script that counts there
    itself, readership.beacons), and how many seconds it is kept."""
    window = int(time.time() // seconds)
    return cache.make_key(cache_key(scope, seconds, window)), 2 * seconds


def hit_in_cache(key, timeout):
    if time.monotonic() < _state["cache_down_until"]:
        return None
    try:
        cache.add(key, 0, timeout)
        return cache.incr(key)
    except ValueError:  # gone between the two: a clock far behind the others'
        return None
    except RedisError as error:
        logger.warning("Rate limits counted in the database: the cache is unavailable (%s).", error)
        _state["cache_down_until"] = time.monotonic() + RETRY_AFTER_ERROR
        return None


def database_key(scope, seconds):
    key = f"{seconds}:{scope}"
    if len(key) > MAX_KEY:
        key = f"{seconds}:sha256:{hashlib.sha256(scope.encode()).hexdigest()}"
    return key


def hit_in_database(key, window, ends):
    with connection.cursor() as cursor, without_fsync(cursor):
        cursor.execute(
            count_statement(),
            [key, window, connection.ops.adapt_datetimefield_value(ends)],
        )
        return cursor.fetchone()[0]


@contextmanager
def without_fsync(cursor):
    """On SQLite, outside a transaction: the count committed without an fsync
    (synchronous=NORMAL; in write-ahead logging, which Skillo's SQLite always uses, it
    reaches the disk at the next checkpoint, and the file cannot be corrupted). A power
    cut may lose the last counts, letting a few more requests through; the fsync was
    most of what a count cost, and every process waited for it."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    cursor.execute("PRAGMA synchronous")
    (level,) = cursor.fetchone()
    cursor.execute("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        cursor.execute(f"PRAGMA synchronous = {int(level)}")


def count_statement():
    """Insert the window's row with one hit, or add one to it; answer its hits."""
    quote = connection.ops.quote_name
    table = quote(Window._meta.db_table)
    key, window, ends, hits = (
        quote(Window._meta.get_field(name).column) for name in ("key", "window", "ends", "hits")
    )
    return (
        f"INSERT INTO {table} ({key}, {window}, {ends}, {hits}) VALUES (%s, %s, %s, 1) "
        f"ON CONFLICT ({key}, {window}) DO UPDATE SET {hits} = {table}.{hits} + 1 "
        f"RETURNING {hits}"
    )
