"""Tokens in the cache: how a purge makes pages stale without finding them.

Each dependency has a token in the cache; something stored with the tokens it was built
from is good only while every one of them is unchanged. A purge writes new tokens, so
every app server sharing the cache sees it at once. The cache being down is never an
error here: every call answers "not found" and pages are built afresh.
"""

import logging
import time
import uuid

from django.core.cache import cache

logger = logging.getLogger(__name__)

# A page whose dependencies changed this recently may have been built from data read
# before the change: it is served but not stored (covers clock drift between servers).
RACE_MARGIN = 2.0
# After a cache error, leave the cache alone this long: an outage must not slow pages.
RETRY_AFTER_ERROR = 1.0

_state = {"down_until": 0.0}


def new_token():
    # The time is part of the token so a store can tell a dependency changed just now.
    return f"{time.time():.6f}:{uuid.uuid4().hex}"


def token_time(token):
    try:
        return float(str(token).partition(":")[0])
    except ValueError:
        return 0.0


def cache_call(method, *args, **kwargs):
    """Call the cache, treating any error as a miss; returns (ok, result)."""
    if time.monotonic() < _state["down_until"]:
        return False, None
    try:
        return True, getattr(cache, method)(*args, **kwargs)
    except Exception as error:  # Any backend, any failure: the page is served uncached.
        logger.warning("Page cache unavailable (%s): serving pages uncached.", error)
        _state["down_until"] = time.monotonic() + RETRY_AFTER_ERROR
        return False, None


def bump(keys):
    """Give ``keys`` new tokens: everything built from them is stale from now on, in
    every process.

    Returns False when the cache could not be reached (pagecache.purges then leaves the
    purge to a task until it is back).
    """
    if not keys:
        return True
    ok, _ = cache_call("set_many", dict.fromkeys(keys, new_token()), timeout=None)
    return ok


def share(key, value):
    """Set a small value (JSON) that every process must see alike."""
    cache_call("set", key, value, timeout=None)


def tokens_to_store(deps, started):
    """The tokens to keep with something built from ``deps`` since ``started``, or None
    if it must not be kept: the cache is down, or a dependency changed so recently that
    it may have been built from data read before the change."""
    ok, tokens = cache_call("get_many", deps)
    if not ok:
        return None
    if any(token_time(token) > started - RACE_MARGIN for token in tokens.values()):
        return None
    # Time zero: a token that never existed is not a change. add(), not set(): another
    # server may be creating the same token right now.
    for dep in deps:
        if dep not in tokens and not cache_call("add", dep, f"0:{uuid.uuid4().hex}", None)[0]:
            return None
    if len(tokens) < len(deps):
        ok, tokens = cache_call("get_many", deps)
        if not ok or len(tokens) != len(deps):
            return None
    return tokens
