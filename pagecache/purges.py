"""Purges: sent to the cache, kept in the database while it is down, and the schedule.

The app whose content is cached decides *what* to purge (pagecache knows no model of
it); this module makes sure a purge lands: at once, or, when the cache is down, from
the ``PendingPurge`` table as soon as it answers again. The app may also register a
*schedule*: content that becomes public by itself at a known time (a scheduled
article). The cache keeps the next such time; the first request after it purges what
came due.
"""

import time
from datetime import UTC, datetime

from django.db import DatabaseError
from django.dispatch import Signal

from metrics.registry import PURGED_KEYS

from . import varnish
from .dependencies import SCHEDULE
from .models import PendingPurge
from .store import _state, _state_lock, bump, cache_call, new_token, share

# Sent after keys were purged, with ``keys``: a receiver may purge more that follows
# from them (the site header's topics after a topic count changed).
purged = Signal()

# Next time scheduled content comes due (a Unix time), or NEVER.
SCHEDULE_KEY = "schedule:due"
NEVER = float("inf")
LOCK_KEY = "schedule:lock"
# How often each process looks for purges that could not reach the cache.
PENDING_CHECK_INTERVAL = 1.0
PENDING_CHECK_AFTER_DB_ERROR = 30.0


class Schedule:
    """No scheduled content until an app registers its own (``register_schedule``)."""

    def next_due(self):
        """The next time (a datetime) content comes due, or None."""
        return None

    def keys_due_since(self, since):
        """The keys to purge for content that came due at or after ``since``."""
        return set()


_schedule = [Schedule()]


def register_schedule(schedule):
    _schedule[0] = schedule


def purge(keys, hard=False):
    """Make every page built from ``keys`` stale; kept for later if the cache is down.

    Then, once the transaction commits, the same keys are purged in each Varnish in
    front (pagecache.varnish): after this cache, so that what Varnish fetches anew is
    built afresh. Soft there (the old page served while the new one is fetched), or
    ``hard`` for withdrawn content, which no reader may get again.
    """
    if not keys:
        return
    PURGED_KEYS.inc(len(keys))
    if not bump(keys):
        PendingPurge.objects.create(keys="\n".join(sorted(keys)))
    else:
        purged.send(sender=PendingPurge, keys=frozenset(keys))
    varnish.purge(keys, hard=hard)


def purge_everything():
    """After changes no signal told about (bulk inserts): every cached page and every
    remembered count depends on the schedule."""
    purge({SCHEDULE()})
    store_next_due()


def apply_pending_purges():
    """Send the purges the cache missed; False if the database could not be asked."""
    try:
        pending = list(PendingPurge.objects.order_by("pk")[:100])
        if not pending:
            return True
        keys = {key for purge in pending for key in purge.keys.split()}
        if bump(keys):
            purged.send(sender=PendingPurge, keys=frozenset(keys))
            PendingPurge.objects.filter(pk__in=[purge.pk for purge in pending]).delete()
            # Varnish had these at once, but may have fetched a page from this cache
            # again before the purge landed here: once more, by the worker (a reader's
            # request is running this).
            varnish.purge_later(keys)
    except DatabaseError:
        return False
    return True


def apply_pending_purges_if_due():
    """Now and then, and right after a cache error, re-send purges the cache missed."""
    now = time.monotonic()
    if not _state["failed_since_check"] and now < _state["next_pending_check"]:
        return
    if now < _state["down_until"]:
        return
    with _state_lock:
        _state["next_pending_check"] = now + PENDING_CHECK_INTERVAL
        _state["failed_since_check"] = False
    if not apply_pending_purges():
        # The database is down too: cached pages are all there is, so serve them
        # without waiting on it every second.
        _state["next_pending_check"] = now + PENDING_CHECK_AFTER_DB_ERROR


def store_next_due():
    """Store when scheduled content next comes due; returns it (Unix time)."""
    upcoming = _schedule[0].next_due()
    due = upcoming.timestamp() if upcoming else NEVER
    share(SCHEDULE_KEY, due)
    return due


# What a read of the cache that included SCHEDULE_KEY may do (publish_if_due).
FRESH, PURGED, BUSY = "fresh", "purged", "busy"


def publish_if_due(found, started):
    """After a read of values with SCHEDULE_KEY among them (``found``, which loses it):
    purge first what scheduled content came due since, as the page cache's middleware
    does before it serves a page. Without it (PAGE_CACHE off, an editor's request, a
    command) a kept value would go on leaving out an article already public.

    FRESH: nothing came due, what was read holds. PURGED: read it again. BUSY: another
    process is purging; build without keeping anything."""
    due = found.pop(SCHEDULE_KEY, None)
    if due is not None and due > started:
        return FRESH
    return PURGED if publish_due(due) is not None else BUSY


def publish_due(due):
    """Purge what came due at or after ``due`` (a Unix time).

    Called by the first request after that time. ``None`` means nobody knows (an empty
    or restarted cache): everything built before now is dropped. Returns the next due
    time, or None if this request must not use the cache (another one is purging).
    """
    try:
        if due is None:
            cache_call("set", SCHEDULE(), f"0:{new_token()}", timeout=None)
            return store_next_due()
        ok, locked = cache_call("add", LOCK_KEY, 1, timeout=10)
        if not ok or not locked:
            return None
        try:
            purge(_schedule[0].keys_due_since(datetime.fromtimestamp(due, UTC)))
            return store_next_due()
        finally:
            cache_call("delete", LOCK_KEY)
    except DatabaseError:
        return None
