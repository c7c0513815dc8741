"""Whole public pages for anonymous readers, purged exactly when what they show changes.

Every cached page remembers the *dependencies* it was built from: ``article:12`` (that
article appears on the page), ``tag:3`` (the page lists that topic's articles),
``list:all`` (the page lists the newest articles), ``nav`` (the header's topics) and so
on. Each dependency has a token in the cache; a page is served only while every
dependency still holds the token it had when the page was stored. A purge writes new
tokens (``news.purge``), so every app server sharing the cache sees it at once and no
page needs to be found and deleted.

A request carrying a session cookie (an editor) bypasses the cache both ways: it is
never served a cached page and its page is never stored. Nothing that sets a cookie is
stored either.
"""

import hashlib
import logging
import threading
import time
import uuid
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date

logger = logging.getLogger(__name__)

# URL names of the public pages kept whole, with the dependencies every such page has.
# Views add the rest (the articles and topics they show) with ``depends_on``.
CACHED_PAGES = {
    "news:index": ["nav", "list:all"],
    "news:article": ["nav"],
    "news:tags": ["nav", "tags"],
    "news:tag": ["nav"],
    "news:tag-timeline": ["nav"],
    # Archive pages list which years and months have articles: any publication counts.
    "news:archive-year": ["nav", "list:all"],
    "news:archive-month": ["nav", "list:all"],
    "news:about-editorial": ["nav"],
    "news:robots": [],
    # Feeds and sitemaps show every public article's dates: any public change counts.
    "news:feed": ["feeds"],
    "news:feed-atom": ["feeds"],
    "news:tag-feed": ["feeds"],
    "news:sitemap-news": ["feeds"],
    "sitemap": ["feeds"],
    "sitemap-section": ["feeds"],
}
# Query parameters that change a cached page; any other (utm_source=...) is ignored, so
# that made-up parameters can neither split nor flood the cache.
KEPT_PARAMETERS = ("page", "p")
# Next time a scheduled article becomes public (a Unix time), or NEVER.
SCHEDULE_KEY = "schedule:due"
NEVER = float("inf")
# A page whose dependencies changed this recently may have been built from data read
# before the change: it is served but not stored (covers clock drift between servers).
RACE_MARGIN = 2.0
# After a cache error, leave the cache alone this long: an outage must not slow pages.
RETRY_AFTER_ERROR = 1.0
# How often each process looks for purges that could not reach the cache.
PENDING_CHECK_INTERVAL = 1.0
PENDING_CHECK_AFTER_DB_ERROR = 30.0


_state = {"down_until": 0.0, "next_pending_check": 0.0, "failed_since_check": False}
_state_lock = threading.Lock()


def depends_on(request, *keys):
    """Record that the page being built for ``request`` shows what ``keys`` name."""
    deps = getattr(request, "_page_deps", None)
    if deps is not None:
        deps.update(keys)


def article_keys(articles):
    return [f"article:{article.pk}" for article in articles]


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
        with _state_lock:
            _state["down_until"] = time.monotonic() + RETRY_AFTER_ERROR
            _state["failed_since_check"] = True
        return False, None


def bump(keys):
    """Give ``keys`` new tokens: every page built from them is stale from now on.

    Returns False when the cache could not be reached; the caller keeps the purge in the
    database (news.purge) so that it is applied once the cache is back.
    """
    if not keys:
        return True
    token = new_token()
    ok, _ = cache_call("set_many", dict.fromkeys(keys, token), timeout=None)
    return ok


def remember(key, deps, compute):
    """``compute()``, kept in the cache until one of ``deps`` is purged.

    For site-wide facts that many pages share and that cost a scan of every article to
    work out (topic counts, archive months): they are worked out once per change.
    """
    deps = sorted({"schedule", *deps})
    started = time.time()
    ok, found = cache_call("get_many", [key, *deps])
    if ok:
        entry = found.get(key)
        if entry is not None and entry["deps"] == {dep: found.get(dep) for dep in deps}:
            return entry["value"]
    value = compute()
    tokens = tokens_to_store(deps, started) if ok else None
    if tokens is not None:
        cache_call("set", key, {"value": value, "deps": tokens}, timeout=None)
    return value


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


def page_key(request):
    kept = [(name, request.GET[name]) for name in KEPT_PARAMETERS if name in request.GET]
    address = f"{request.scheme}://{request.get_host()}{request.path}?{urlencode(kept)}"
    # Hashed: an address can be long or odd, a cache key must not be.
    return f"page:{hashlib.md5(address.encode(), usedforsecurity=False).hexdigest()}"


def is_anonymous_request(request):
    return request.method in {"GET", "HEAD"} and settings.SESSION_COOKIE_NAME not in request.COOKIES


def public_cache_control(response, max_age):
    """Browsers revalidate (cheap, thanks to ETag); a CDN or proxy may keep the page."""
    patch_cache_control(
        response,
        public=True,
        max_age=0,
        s_maxage=max(0, int(max_age)),
        stale_while_revalidate=max(0, int(max_age)),
        stale_if_error=86400,
    )


class PageCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not is_anonymous_request(request):
            response = self.get_response(request)
            if self.is_public_page(request) and response.status_code == 200:
                # An editor's view of a public page: nobody in between may keep it.
                patch_cache_control(response, private=True, no_cache=True)
            return response

        key, due = None, None
        if settings.SKILLO_PAGE_CACHE:
            key = page_key(request)
            found, due = self.lookup(key)
            if found is not None:
                response = self.serve_stored(request, found, due)
                if response is not None:
                    return response

        request._page_deps = set()
        started = time.time()
        response = self.get_response(request)
        if not self.storable(request, response):
            return response
        response["ETag"] = f'"{hashlib.md5(response.content, usedforsecurity=False).hexdigest()}"'
        last_modified = None
        if key is not None and due is not None:
            deps = {"schedule", *CACHED_PAGES[self.url_name(request)], *request._page_deps}
            if self.store(key, response, sorted(deps), started):
                last_modified = int(started)
        public_cache_control(response, self.cdn_max_age(due))
        return get_conditional_response(
            request, etag=response["ETag"], last_modified=last_modified, response=response
        )

    @staticmethod
    def lookup(key):
        """The stored page (or None) and the next scheduled publication (None when
        the cache must not be used for this request)."""
        from .purge import apply_pending_purges, publish_due_articles

        apply_pending_purges_if_due(apply_pending_purges)
        ok, found = cache_call("get_many", [key, SCHEDULE_KEY])
        if not ok:
            return None, None
        due = found.get(SCHEDULE_KEY)
        if due is None or due <= time.time():
            # A scheduled article has come due (or nobody knows): purge, then build.
            return None, publish_due_articles(due)
        return found.get(key), due

    @staticmethod
    def url_name(request):
        match = getattr(request, "resolver_match", None)
        return match.view_name if match else None

    def is_public_page(self, request):
        return self.url_name(request) in CACHED_PAGES

    def storable(self, request, response):
        return (
            response.status_code == 200
            and self.is_public_page(request)
            and not response.streaming
            and not response.cookies
            and not response.has_header("Set-Cookie")
            # Previews of drafts say no-store themselves.
            and "no-store" not in response.get("Cache-Control", "")
            and "private" not in response.get("Cache-Control", "")
        )

    @staticmethod
    def cdn_max_age(due):
        # A proxy must not keep a list past the moment a scheduled article comes due.
        left = (due or NEVER) - time.time()
        return min(settings.SKILLO_CDN_MAX_AGE, left)

    def store(self, key, response, deps, started):
        """Keep the page with its dependencies' tokens; True if it was stored."""
        tokens = tokens_to_store(deps, started)
        if tokens is None:
            return False
        # Stable while the stored page lives, so that If-Modified-Since can match.
        response["Last-Modified"] = http_date(int(started))
        entry = {
            "status": response.status_code,
            "headers": [
                (name, value)
                for name, value in response.items()
                if name.lower() not in {"cache-control", "set-cookie"}
            ],
            "content": response.content,
            "built": started,
            "deps": {dep: tokens[dep] for dep in deps},
        }
        ok, _ = cache_call("set", key, entry, timeout=settings.SKILLO_PAGE_CACHE_TIMEOUT)
        if not ok:
            del response["Last-Modified"]
        return ok

    def serve_stored(self, request, entry, due):
        ok, tokens = cache_call("get_many", list(entry["deps"]))
        if not ok or tokens != entry["deps"]:
            return None
        response = HttpResponse(entry["content"], status=entry["status"])
        for name, value in entry["headers"]:
            response[name] = value
        public_cache_control(response, self.cdn_max_age(due))
        return get_conditional_response(
            request,
            etag=response["ETag"],
            last_modified=int(entry["built"]),
            response=response,
        )


def apply_pending_purges_if_due(apply_pending_purges):
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
