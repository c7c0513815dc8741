"""Site-wide facts kept in the cache until what they were worked out from changes.

Beside whole pages (pagecache.middleware), the cache keeps what many pages share and
what costs a scan of many rows to work out: topic counts, archive months, the header's
topics. Each is kept with the tokens of its dependencies (pagecache.store), and worked
out again once one of them is purged, or when scheduled content comes due.
"""

import time

from . import release
from .dependencies import SCHEDULE
from .purges import BUSY, PURGED, SCHEDULE_KEY, publish_if_due
from .store import cache_call, tokens_to_store

# How long a value is kept at most: a release's values do not outlive it in a shared
# cache (each release keeps its own: pagecache.release).
TIMEOUT = 24 * 3600


def remember(key, deps, compute):
    """``compute()``, kept in the cache until one of ``deps`` is purged.

    For site-wide facts that many pages share and that cost a scan of every article to
    work out (topic counts, archive months): they are worked out once per change.
    """
    deps = sorted({SCHEDULE(), *deps})
    # Of this release: a value worked out by other code is worked out again.
    key = release.key(key)
    started = time.time()
    ok, found = cache_call("get_many", [key, SCHEDULE_KEY, *deps])
    if ok:
        state = publish_if_due(found, started)
        if state == BUSY:
            return compute()
        if state == PURGED:
            ok, found = cache_call("get_many", [key, *deps])
    if ok:
        entry = found.get(key)
        if entry is not None and entry["deps"] == {dep: found.get(dep) for dep in deps}:
            return entry["value"]
    value = compute()
    tokens = tokens_to_store(deps, started) if ok else None
    if tokens is not None:
        cache_call("set", key, {"value": value, "deps": tokens}, timeout=TIMEOUT)
    return value
