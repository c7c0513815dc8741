"""Page views as the reader's browser reports them (static/js/beacon.js): checked, then
buffered until readership.folding turns them into counts: in a list in Redis when the
default cache is Redis (one push a view, shared by every process), otherwise in the
process, written to the database in batches (never a row per view; the address's rate
limit is one counting statement a beacon there: ratelimits). A beacon that is not a
public page's view is dropped without a word: the endpoint answers every beacon alike,
so it tells nothing to someone probing it."""

import functools
import hashlib
import json
import re
import threading
import time
import uuid
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from redis import Redis
from redis.exceptions import LockError, RedisError

from ratelimits import counter

from .models import Beacon
from .visitors import client_address, is_bot, visitor_of

MAX_BODY = 1024  # bytes: a path, a referrer and a width
# The pages that are counted, by URL name: readership.folding knows how to find each
# one's article.
COUNTED_PAGES = ("news:article",)
WIDTHS = {"s", "m", "l"}  # under 640 px, under 1000 px, wider
# The channels Skillo's own links name with ?ref= (the newsletter's mails): the same word
# for every reader, so it tells where a view came from, never who.
VIA = {"newsletter", "fediverse"}


def parse(body):
    """The beacon's (path, referrer host, width, via), or None for anything else."""
    if len(body) > MAX_BODY:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    path, referrer, width = data.get("p"), data.get("r", ""), data.get("w", "")
    via = data.get("s", "")
    if not all(isinstance(value, str) for value in (path, referrer, width, via)):
        return None
    if width not in WIDTHS:
        return None
    # Another site's ?ref= (ref=hn, ref=producthunt) names no channel of ours: the view
    # counts by its referrer alone, and the word is kept nowhere.
    via = via if via in VIA else ""
    if not path.startswith("/") or path.startswith("//") or len(path) > 500:
        return None
    if not counted_page(path):
        return None
    host = referrer_host(referrer) if referrer else ""
    if host is None:
        return None
    return path, host, width, via


# What a browser's Referer can hold as a host: a name in ASCII (an IDN in punycode) or an
# IP address. Anything else (a NUL, which PostgreSQL refuses in text, a space, a lone
# surrogate) no browser sent.
REFERRER_HOST = re.compile(r"[a-z0-9._:-]{1,253}")


def referrer_host(referrer):
    """The host of an http(s) ``referrer``, or None for anything else."""
    try:
        parts = urlsplit(referrer)
        host = parts.hostname
    except ValueError:  # an unclosed IPv6 bracket (http://[::1), a bad port...
        return None
    if parts.scheme not in ("http", "https") or not host:
        return None
    return host if REFERRER_HOST.fullmatch(host) else None


@functools.cache
def counted_addresses(prefix):
    """A pattern of the counted pages' addresses under the script ``prefix``: each
    page's address reversed with a mark for its slug, the slug converter's characters
    in its place. (A resolve() of every beacon's path was a third of its cost.)"""
    mark = "SLUG-MARK"
    patterns = [
        re.escape(reverse(name, kwargs={"slug": mark})).replace(re.escape(mark), "[-a-zA-Z0-9_]+")
        for name in COUNTED_PAGES
    ]
    return re.compile("|".join(patterns))


def counted_page(path):
    """Whether ``path`` is one of a counted page's addresses (whether its article is
    public is the fold's to say)."""
    return counted_addresses(get_script_prefix()).fullmatch(path) is not None


def rate_scope(request):
    """What the per-minute limit counts: beacons from the reader's address (hashed)."""
    address = hashlib.sha256((client_address(request) or "").encode()).hexdigest()[:32]
    return f"readership:{address}"


def over_rate(request):
    """More beacons this minute from the reader's address, to any of the site's
    processes, than READERSHIP_PER_MINUTE (generous: an office or a university is many
    readers behind one address)."""
    return counter.over(rate_scope(request), settings.READERSHIP_PER_MINUTE)


def receive(request):
    """Count the request's beacon if it is a reader's view of a counted page."""
    if not settings.READERSHIP_COUNTING or is_bot(request):
        return
    # Read no further than a beacon can be: request.body would read up to Django's
    # upload limit, and past it raise (a 400, where every beacon is answered 204).
    beacon = parse(request.read(MAX_BODY + 1))
    if beacon is None:
        return
    try:
        waiting = redis_list()
        if waiting is None and over_rate(request):
            return
        now = timezone.now()
        path, host, width, via = beacon
        visitor = visitor_of(request, timezone.localdate(now))
        view = Beacon(path=path, referrer_host=host, via=via, width=width, visitor=visitor, at=now)
        if waiting is None:
            buffer.add(view)
        else:  # the rate and the push in one round trip
            waiting.add_within_rate(view, rate_scope(request), settings.READERSHIP_PER_MINUTE)
    except RedisError:
        # The cache's Redis cannot be reached: this view is not counted (figures, not
        # records), and the reader still gets the same 204 at once.
        return


class Buffer:
    """Beacons held in this process until READERSHIP_BUFFER_SIZE of them have come or
    the oldest is READERSHIP_BUFFER_SECONDS old, then written in one statement. A
    process that dies loses what it held: figures, not records."""

    def __init__(self):
        self.lock = threading.Lock()
        self.beacons = []
        self.since = None
        self.timer = None

    def add(self, beacon):
        with self.lock:
            self.beacons.append(beacon)
            self.since = self.since or time.monotonic()
            full = len(self.beacons) >= settings.READERSHIP_BUFFER_SIZE
            old = time.monotonic() - self.since >= settings.READERSHIP_BUFFER_SECONDS
            if not (full or old):
                self.wake_later()
                return
            beacons, self.beacons, self.since = self.beacons, [], None
        Beacon.objects.bulk_create(beacons)

    def wake_later(self):
        # Beacons of a quiet minute are written by a timer, not by the next beacon.
        if self.timer is None or not self.timer.is_alive():
            self.timer = threading.Timer(settings.READERSHIP_BUFFER_SECONDS, self.flush_alone)
            self.timer.daemon = True
            self.timer.start()

    def flush(self):
        with self.lock:
            beacons, self.beacons, self.since = self.beacons, [], None
        if beacons:
            Beacon.objects.bulk_create(beacons)
        return len(beacons)

    def flush_alone(self):
        """flush() from the timer's thread, with a connection of its own."""
        close_old_connections()
        try:
            self.flush()
        finally:
            connection.close()


buffer = Buffer()


# The default cache's backend whose server also holds the beacons waiting to be folded.
REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"
# How long a fold may hold the lock on the list (then another fold may take its batch
# over, and the first one's transaction rolls back), and how long a fold waits for the
# lock before leaving the folding to the fold that holds it.
FOLD_LOCK_SECONDS = 300
FOLD_WAIT_SECONDS = 5
READ_CHUNK = 10_000  # items per LRANGE when a fold reads its batch
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

_scripts = {}  # client: its registered WITHIN_RATE script
_clients = {}  # URL: its client, one connection pool per process
# Seconds a Redis command may take: a Redis that is down fails a request quickly.
CLIENT_TIMEOUT = 2


def redis_client(url):
    if url not in _clients:
        _clients[url] = Redis.from_url(
            url, socket_connect_timeout=CLIENT_TIMEOUT, socket_timeout=CLIENT_TIMEOUT
        )
    return _clients[url]


def redis_list():
    """The beacons' list in Redis when the default cache is Redis, else None (the
    process's Buffer, above)."""
    config = settings.CACHES["default"]
    if config["BACKEND"] != REDIS_CACHE:
        return None
    location = config["LOCATION"]
    # Several servers: the first is the primary, where the cache writes too.
    url = (location.split(",") if isinstance(location, str) else location)[0].strip()
    return RedisList(redis_client(url))


def dumps(beacon):
    """A beacon as the list holds it: compact JSON, its time in microseconds."""
    micros = (beacon.at - EPOCH) // timedelta(microseconds=1)
    fields = [beacon.path, beacon.referrer_host, beacon.via, beacon.width, beacon.visitor, micros]
    return json.dumps(fields, separators=(",", ":"))


def loads(item):
    """An item of the list as readership.folding reads a beacon: (path, referrer host,
    via, visitor, time)."""
    path, host, via, _width, visitor, micros = json.loads(item)
    return path, host, via, visitor, EPOCH + timedelta(microseconds=micros)


class RedisList:
    """Beacons waiting in the default cache's Redis: pushed as they come (RPUSH, one
    round trip, nothing held in the process), taken by the fold in one step.

    The fold renames the list to a key of its own, so a beacon pushed meanwhile starts
    a new list for the next fold; that key is deleted only once the fold's counts are
    committed. A fold that failed leaves it, and the next fold folds it again first. One
    fold at a time holds a lock; should its process die, the lock expires after
    FOLD_LOCK_SECONDS and the next fold folds the batch it left."""

    def __init__(self, client):
        self.client = client
        # Under the cache's KEY_PREFIX and version, like every key of the site's.
        self.waiting = cache.make_key("readership:beacons")
        self.folding = cache.make_key("readership:beacons:folding")
        self.folding_name = cache.make_key("readership:fold:batch-name")
        self.lock_name = cache.make_key("readership:fold")

    # Count the beacon against its address's minute where ratelimits.counter counts it,
    # and push it only within the limit: one round trip where the cache's add and incr
    # and the push took three (bench/readership.py).
    WITHIN_RATE = """
        local seen = redis.call('INCR', KEYS[1])
        if seen == 1 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
        if seen > tonumber(ARGV[1]) then return 0 end
        redis.call('RPUSH', KEYS[2], ARGV[2])
        return 1
    """

    def add(self, beacon):
        self.client.rpush(self.waiting, dumps(beacon))

    def add_within_rate(self, beacon, scope, per_minute):
        """Push ``beacon`` unless ``scope`` has counted ``per_minute`` this minute."""
        script = _scripts.get(self.client)
        if script is None:
            script = _scripts[self.client] = self.client.register_script(self.WITHIN_RATE)
        key, lifetime = counter.cache_entry(scope)
        script(keys=[key, self.waiting], args=[per_minute, dumps(beacon), lifetime])

    @contextmanager
    def batch(self):
        """What waits, as a Batch of rows for the fold, or None if another fold holds
        the lock (it folds what waits). Deleted from Redis when the block ends without
        an error, which must be after the fold's transaction has committed."""
        lock = self.client.lock(
            self.lock_name, timeout=FOLD_LOCK_SECONDS, blocking_timeout=FOLD_WAIT_SECONDS
        )
        if not lock.acquire():
            yield None
            return
        try:
            # A batch left by a fold that failed is folded first, alone. Only this fold
            # renames or deletes these keys, under the lock. Each batch has a name, which
            # the fold records with its counts: a batch whose delete failed after its
            # commit is known when it is found again, and not counted twice.
            if not self.client.exists(self.folding) and self.client.exists(self.waiting):
                with self.client.pipeline() as renaming:  # MULTI ... EXEC
                    renaming.rename(self.waiting, self.folding)
                    renaming.set(self.folding_name, uuid.uuid4().hex)
                    renaming.execute()
            name = self.client.get(self.folding_name)
            if name is None:  # a batch from before batches had names
                name = uuid.uuid4().hex.encode()
                self.client.set(self.folding_name, name)
            rows, start = [], 0
            while True:
                items = self.client.lrange(self.folding, start, start + READ_CHUNK - 1)
                rows += map(loads, items)
                if len(items) < READ_CHUNK:
                    break
                start += READ_CHUNK
            yield Batch(rows, lock, name.decode() if isinstance(name, bytes) else name)
            self.client.unlink(self.folding, self.folding_name)  # freed in the background
        finally:
            with suppress(LockError):  # expired, and perhaps taken by another fold since
                lock.release()


class Batch:
    """The rows a fold took from Redis, the lock it holds on them, and the batch's name
    (readership.models.FoldedBatch)."""

    def __init__(self, rows, lock, name):
        self.rows, self.lock, self.name = rows, lock, name

    def still_ours(self):
        """Call last inside the fold's transaction: raises LockNotOwnedError (and so
        rolls it back) if the lock expired and another fold may have taken this batch
        over; else gives the lock its full time again for the commit and the delete."""
        self.lock.reacquire()
