"""Read replicas (DATABASE_REPLICA_URLS): readers' public pages read from a replica, and
never from one that has not yet replayed the last change that purged pages.

What reads a replica: an anonymous GET or HEAD of a public page (a view marked
``cached_page``, the pages the page cache and Varnish keep), from the view until its
response is rendered (``ReplicaReadsMiddleware``). Everything else reads and writes the
primary: the admin, a signed-in editor, an API client with a token, every POST, the
task worker and management commands; inside those requests too, a read in a transaction
(``atomic``, ``select_for_update``, ``get_or_create``).

Why a replica must have replayed the last purging change: a purge makes pages stale so
that the next reader's request builds them again, and the page cache and Varnish keep
what it builds until the next purge (an hour). Built from a replica that has not yet
replayed the change, the old page would be kept again, as new. So each purge records the
primary's WAL position after its commit in the shared cache (``record_position``), and
a request picks a replica only if ``pg_last_wal_replay_lsn()`` has reached it; else it
reads the primary (docs/scaling.md, "Read replicas").
"""

import contextlib
import contextvars
import logging
import random
import time

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction

from pagecache.dependencies import view_attribute
from pagecache.middleware import is_anonymous_request
from pagecache.purges import purged
from pagecache.store import cache_call, share

logger = logging.getLogger(__name__)

# The primary's WAL position (bytes) after the last commit that purged pages.
POSITION_KEY = "replicas:written"
LOCK_KEY = "replicas:lock"
LOCK_SECONDS = 5
# A replica that failed to answer is left alone this long: pages must not wait on it.
DOWN_SECONDS = 10.0

_down_until = {}
# This request's choice: None outside public reads (the primary), else a Choice.
_reading = contextvars.ContextVar("replica_reading", default=None)


class Choice:
    """Made at the request's first read, then kept: a page is read from one database."""

    alias = None


def replica_aliases():
    return [alias for alias in settings.DATABASES if alias != DEFAULT_DB_ALIAS]


def position(alias, function):
    """A WAL position as a number of bytes (None where the function has none: a replay
    position on a server that is not a replica)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(f"SELECT {function}() - '0/0'::pg_lsn")
        value = cursor.fetchone()[0]
    return None if value is None else int(value)


@contextlib.contextmanager
def one_recorder():
    """One process at a time records a position, so that a later one is never overwritten
    by an earlier one, across machines by the shared cache."""
    # A holder that died lets go after LOCK_SECONDS; then it is taken over.
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        ok, locked = cache_call("add", LOCK_KEY, 1, timeout=LOCK_SECONDS)
        if locked or not ok or time.monotonic() > deadline:
            break
        time.sleep(0.005)
    try:
        yield
    finally:
        if locked:
            cache_call("delete", LOCK_KEY)


def record_position(**kwargs):
    """After a purge: the primary's position now, past the commit of what was purged.

    Recorded before Varnish is told (pagecache.purges sends it after this signal), so its
    refetch reads a replica only if that has the change. A reader's page built between
    the page cache's purge and this record is not kept by the page cache (RACE_MARGIN)."""
    if replica_aliases():
        # Inside a transaction the position would come before its commit.
        transaction.on_commit(store_position)


def store_position():
    written = position(DEFAULT_DB_ALIAS, "pg_current_wal_insert_lsn")
    with one_recorder():
        ok, known = cache_call("get", POSITION_KEY)
        if ok and (known is None or known < written):
            share(POSITION_KEY, written)


purged.connect(record_position, dispatch_uid="skillo.replicas")


def position_to_reach():
    """The position a replica must have replayed, or None if it cannot be known (the
    cache is down: every read goes to the primary)."""
    ok, needed = cache_call("get", POSITION_KEY)
    if not ok:
        return None
    if needed is None:
        # Lost (a cache emptied or restarted): every change so far, to be safe.
        needed = position(DEFAULT_DB_ALIAS, "pg_current_wal_insert_lsn")
        cache_call("add", POSITION_KEY, needed, None)
    return needed


def choose():
    """A replica that has replayed the last purging change, else the primary."""
    needed = position_to_reach()
    if needed is None:
        return DEFAULT_DB_ALIAS
    aliases = replica_aliases()
    random.shuffle(aliases)
    for alias in aliases:
        if time.monotonic() < _down_until.get(alias, 0.0):
            continue
        try:
            replayed = position(alias, "pg_last_wal_replay_lsn")
        except DatabaseError as error:
            logger.warning("Replica %s did not answer (%s): reading the primary.", alias, error)
            _down_until[alias] = time.monotonic() + DOWN_SECONDS
            connections[alias].close()
            continue
        if replayed is None:
            # Promoted, or never a replica: its data may have parted from the primary's.
            logger.warning("Database %s is not a replica: it is never read.", alias)
            _down_until[alias] = time.monotonic() + DOWN_SECONDS
        elif replayed >= needed:
            return alias
    return DEFAULT_DB_ALIAS


class ReplicaRouter:
    """Django's DATABASE_ROUTERS: installed only with DATABASE_REPLICA_URLS."""

    def db_for_read(self, model, **hints):
        # Always an alias: left to Django, an object read from a replica would send its
        # later reads there too (its _state.db), in an editor's request or the worker.
        choice = _reading.get()
        if choice is None or connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        if choice.alias is None:
            choice.alias = choose()
        return choice.alias

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        # The replicas hold the primary's rows: an object read from one may be related
        # to one read from another.
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == DEFAULT_DB_ALIAS


class ReplicaReadsMiddleware:
    """Marks a public read: an anonymous GET or HEAD of a cached page (see above)."""

    def __init__(self, get_response):
        if not replica_aliases():
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        token = _reading.set(None)
        try:
            return self.get_response(request)
        finally:
            _reading.reset(token)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if (
            is_anonymous_request(request)
            and settings.MEMBER_COOKIE_NAME not in request.COOKIES
            and view_attribute(view_func, "page_dependencies") is not None
        ):
            _reading.set(Choice())
