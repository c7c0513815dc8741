"""Parts of pages kept in the cache the way whole pages are: with the tokens of their
dependencies (pagecache.store) and under the release (pagecache.release).

A fragment depends on a subset of what its page declares (``depends_on``), so the purge
that makes a page stale makes its fragments stale too, and a deploy or a settings
change makes all of them stale at once. Nothing else refreshes them: no serials, no
lists of templates, no calls per field.

Worth it where a page is rebuilt for a change to something else than the fragment: a
list page rebuilt for one new article renders one card, not twenty.
"""

import time

from . import release
from .dependencies import SCHEDULE
from .purges import BUSY, PURGED, SCHEDULE_KEY, publish_if_due
from .store import cache_call, tokens_to_store

# How long a fragment is kept at most (pages: PAGE_CACHE_TIMEOUT): a release's fragments
# do not outlive it in a shared cache.
TIMEOUT = 24 * 3600


def kept(names, build):
    """{name: (value, dependencies)} for each of ``names``, in their order.

    Those the cache holds, whose dependencies are unchanged, come from it; the others
    from ``build(missing names)``, which returns {name: (value, dependencies)} for those
    that exist (dependencies: keys of pagecache.dependencies). What ``build`` returns is
    kept, unless a dependency changed while it was built (``tokens_to_store``).
    """
    started = time.time()
    keys = {name: release.key(f"fragment:{name}") for name in names}
    ok, found = cache_call("get_many", [*keys.values(), SCHEDULE_KEY])
    if ok:
        # Scheduled content that came due is purged first (as remember() does), so
        # a fragment of what it changes is built again.
        state = publish_if_due(found, started)
        if state == BUSY:
            built = build(list(names))
            return {name: built[name] for name in names if name in built}
        if state == PURGED:
            ok, found = cache_call("get_many", list(keys.values()))
    entries = {name: found[key] for name, key in keys.items() if ok and key in found}
    deps = sorted({dep for entry in entries.values() for dep in entry["deps"]})
    ok, tokens = cache_call("get_many", deps) if deps else (True, {})
    current = {
        name: (entry["value"], list(entry["deps"]))
        for name, entry in entries.items()
        # Every token it was built with is still the current one.
        if ok and entry["deps"].items() <= tokens.items()
    }
    missing = [name for name in names if name not in current]
    if missing:
        built = build(missing)
        current.update(built)
        keep({keys[name]: fragment for name, fragment in built.items()}, started)
    return {name: current[name] for name in names if name in current}


def keep(fragments, started):
    """Keep each of {cache key: (value, dependencies)} built since ``started``."""
    every = sorted({SCHEDULE(), *(dep for _, deps in fragments.values() for dep in deps)})
    # One look at all their tokens. None: the cache is down, or a dependency changed as
    # they were built (then none is kept, the next request builds them again).
    tokens = tokens_to_store(every, started)
    if tokens is None:
        return
    entries = {
        key: {"value": value, "deps": {dep: tokens[dep] for dep in {SCHEDULE(), *deps}}}
        for key, (value, deps) in fragments.items()
    }
    cache_call("set_many", entries, timeout=TIMEOUT)
