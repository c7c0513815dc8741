"""Purges: sent to the cache, left to a task while it is down, and the schedule.

The app whose content is cached decides *what* to purge (pagecache knows no model of
it); this module makes sure a purge lands: at once, or, when the cache is down, from a
task (``purge_cache``) tried again until it answers. The app may also register a
*schedule*: content that becomes public by itself at a known time (a scheduled
article). The cache keeps the next such time; the first request after it purges what
came due.
"""

import logging
from datetime import UTC, datetime

from django.db import DatabaseError
from django.dispatch import Signal
from django.tasks import task

from background.limits import retries
from metrics.registry import PURGED_KEYS

from . import varnish
from .dependencies import SCHEDULE
from .store import bump, cache_call, new_token, share

logger = logging.getLogger(__name__)

# Sent after keys were purged, with ``keys``: a receiver may purge more that follows
# from them (the site header's topics after a topic count changed).
purged = Signal()

# Next time scheduled content comes due (a Unix time), or NEVER.
SCHEDULE_KEY = "schedule:due"
NEVER = float("inf")
LOCK_KEY = "schedule:lock"


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
    """Make every page built from ``keys`` stale; left to a task if the cache is down.

    Then, once the transaction commits, the same keys are purged in each Varnish in
    front (pagecache.varnish): after this cache, so that what Varnish fetches anew is
    built afresh. Soft there (the old page served while the new one is fetched), or
    ``hard`` for withdrawn content, which no reader may get again.
    """
    if not keys:
        return
    PURGED_KEYS.inc(len(keys))
    if bump(keys):
        purged.send(sender=None, keys=frozenset(keys))
    else:
        try:
            purge_cache.enqueue(sorted(keys))
        except DatabaseError as error:
            logger.error("Could not queue a purge of the cache (%s): it is lost.", error)
    varnish.purge(keys, hard=hard)


class CacheDown(Exception):
    """The cache did not take a purge: the task raises it to be tried again."""


# Urgent, as Varnish's: until it lands, pages built before the change may be served from
# the cache by any app server that reaches it; tried as Varnish's are. One try per run:
# the urgent queue's sign-in mail must not wait on a cache that is down.
@task(queue_name="urgent")
@retries(*varnish.PURGE_RETRIES)
def purge_cache(keys):
    """Send a purge the cache missed (it was down)."""
    if not bump(keys):
        raise CacheDown("the cache did not take the purge")
    purged.send(sender=None, keys=frozenset(keys))
    # Varnish had these at once, but may have fetched a page from this cache again
    # before the purge landed here: once more.
    varnish.purge(keys)


def purge_everything(hard=False):
    """After changes no signal told about (bulk inserts): every cached page and every
    remembered count depends on the schedule."""
    purge({SCHEDULE()}, hard=hard)
    store_next_due()


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
