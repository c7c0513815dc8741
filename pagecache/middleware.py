"""Whole public pages for anonymous readers, purged exactly when what they show changes.

A view marked with ``cached_page`` (pagecache.dependencies) is kept whole together with
the tokens of its dependencies (pagecache.store); it is served while every token is
unchanged. A request carrying a session cookie (an editor) bypasses the cache both
ways: it is never served a cached page and its page is never stored. Nothing that sets
a cookie is stored either.

Every cached page, built now or served from the store, names its dependency keys in a
response header (``SURROGATE_KEY_HEADERS``, ``xkey`` by default) so that a cache in front
(Varnish, deploy/varnish) can be purged by the same keys (pagecache.varnish).
"""

import hashlib
import time
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponse
from django.urls import Resolver404, get_resolver
from django.utils.cache import (
    get_conditional_response,
    patch_cache_control,
    patch_vary_headers,
    set_response_etag,
)
from django.utils.http import http_date

from metrics.registry import PAGE_CACHE

from . import release
from .dependencies import SCHEDULE, page_dependencies, view_attribute
from .encoding import accepted_encoding, compress, compressed_copies, compressible, use_copy
from .purges import NEVER, SCHEDULE_KEY, publish_due
from .store import cache_call, tokens_to_store
from .varnish import announce_release, release_key

# Query parameters that change a cached page; any other (utm_source=...) is ignored, so
# that made-up parameters can neither split nor flood the cache. A view may name its own
# (cached_page(parameters=...): an API's filters and cursor).
KEPT_PARAMETERS = ("page", "p")
# Bound once (labels() costs more than the increment).
HITS, MISSES = PAGE_CACHE.labels("hit"), PAGE_CACHE.labels("miss")


def kept_parameters(request):
    """The parameters the view at this address declared, else KEPT_PARAMETERS. The URL is
    resolved here since the key is needed before the view runs (a few microseconds)."""
    try:
        match = get_resolver(getattr(request, "urlconf", None)).resolve(request.path_info)
    except Resolver404:
        return KEPT_PARAMETERS
    return view_attribute(match.func, "page_parameters") or KEPT_PARAMETERS


def page_key(request):
    # Without a query string no parameter is kept, whatever the view declared: most
    # requests are spared resolving their URL (a fifth of a page-cache hit).
    kept = [
        (name, value)
        for name in (sorted(kept_parameters(request)) if request.META.get("QUERY_STRING") else ())
        for value in request.GET.getlist(name)
    ]
    address = f"{request.scheme}://{request.get_host()}{request.path}?{urlencode(kept)}"
    # Hashed: an address can be long or odd, a cache key must not be. Of this release: a
    # page kept by other code, templates or settings is not served.
    return release.key(f"page:{hashlib.md5(address.encode(), usedforsecurity=False).hexdigest()}")


def is_anonymous_request(request):
    # A request with credentials (an API token) may see more than the public: like a
    # session's, it is never served a stored page nor stored (RFC 9111, 3.5).
    return (
        request.method in {"GET", "HEAD"}
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "HTTP_AUTHORIZATION" not in request.META
    )


def public_cache_control(response, max_age):
    """Browsers revalidate (cheap, thanks to ETag); a CDN or proxy may keep the page."""
    seconds = max(0, int(max_age))
    directives = {
        "public": True,
        "max_age": 0,
        "s_maxage": seconds,
        "stale_while_revalidate": seconds,
        "stale_if_error": 86400,
    }
    if response.has_header("Cache-Control"):
        patch_cache_control(response, **directives)
    else:
        # What patch_cache_control writes when there is nothing to merge with, without
        # its parsing (a stored page is served with none: a tenth of a hit).
        response["Cache-Control"] = (
            f"public, max-age=0, s-maxage={seconds}, "
            f"stale-while-revalidate={seconds}, stale-if-error=86400"
        )


def cdn_max_age(due, longest=None):
    # A proxy must not keep a list past the moment scheduled content comes due.
    left = (due or NEVER) - time.time()
    return min(settings.SKILLO_CDN_MAX_AGE if longest is None else longest, left)


# Keys in one header are separated by spaces; Cloudflare's and Akamai's read commas.
COMMA_SEPARATED = {"cache-tag", "edge-cache-tag"}
# Caches in front refuse long headers (Varnish: 8 KB for one). A page with more keys than
# fit (none today: a list page of 20 articles needs about 1 KB) names only `schedule`,
# which every purge of everything reaches, and is not kept longer than CDN_MAX_AGE.
MAX_KEY_HEADER = 4096


def key_header_names():
    names = settings.SKILLO_SURROGATE_KEY_HEADERS
    return [name for name in names if name.lower() not in {"off", "none"}]


def name_keys(response, deps, due, consistent):
    """Name the page's dependency keys for caches in front. A Varnish that hears of
    every purge (VARNISH_PURGE_URLS) may keep a page longer than other caches
    (Surrogate-Control, read by deploy/varnish/skillo.vcl) if it is ``consistent``: built
    from the tokens it was stored with (a page built while a purge landed is not)."""
    keys = " ".join(sorted(deps))
    complete = len(keys) <= MAX_KEY_HEADER
    if not complete:
        keys = SCHEDULE()
    # Its release too: the pages of a release are purged when the next one starts.
    keys = f"{keys} {release_key()}"
    for name in key_header_names():
        response[name] = keys.replace(" ", ",") if name.lower() in COMMA_SEPARATED else keys
    if consistent and complete and settings.SKILLO_VARNISH_PURGE_URLS:
        max_age = max(0, int(cdn_max_age(due, settings.SKILLO_VARNISH_MAX_AGE)))
        response["Surrogate-Control"] = f"max-age={max_age}"


def conditional_response(request, response, last_modified):
    answer = get_conditional_response(
        request, etag=response.get("ETag"), last_modified=last_modified, response=response
    )
    if answer is not response:
        # A 304 keeps only the validators and Cache-Control, but a cache in front that
        # revalidates its copy takes the keys and its lifetime from it too.
        for name in [*key_header_names(), "Surrogate-Control"]:
            if name in response:
                answer[name] = response[name]
    return answer


def send_accepted_copy(request, response, copies):
    encoding = accepted_encoding(request)
    if encoding in copies:
        use_copy(response, encoding, copies[encoding])


class PageCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        # With Varnish in front (VARNISH_PURGE_URLS), a new release's first process purges
        # the previous release's pages there.
        announce_release()

    def __call__(self, request):
        if not is_anonymous_request(request):
            response = self.get_response(request)
            if page_dependencies(request) is not None and response.status_code == 200:
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
                    HITS.inc()
                    request.served_from_page_cache = True
                    return response
            MISSES.inc()

        request._page_deps = set()
        started = time.time()
        response = self.get_response(request)
        declared = page_dependencies(request)
        if declared is None or not self.storable(response):
            return response
        set_response_etag(response)
        storing = key is not None and due is not None
        # Compressed once here when kept, each request then getting the copy it accepts;
        # otherwise only as this request accepts, if at all.
        copies = {}
        if compressible(response):
            patch_vary_headers(response, ["Accept-Encoding"])
            if storing:
                copies = compressed_copies(response.content)
            elif (encoding := accepted_encoding(request)) is not None:
                copies = {encoding: compress(response.content, encoding)}
        last_modified = None
        deps = sorted({SCHEDULE(), *declared, *request._page_deps})
        if storing and self.store(key, response, deps, started, copies):
            last_modified = int(started)
        send_accepted_copy(request, response, copies)
        public_cache_control(response, cdn_max_age(due))
        name_keys(response, deps, due, consistent=last_modified is not None)
        return conditional_response(request, response, last_modified)

    @staticmethod
    def lookup(key):
        """The stored page (or None) and the next scheduled publication (None when
        the cache must not be used for this request)."""
        ok, found = cache_call("get_many", [key, SCHEDULE_KEY])
        if not ok:
            return None, None
        due = found.get(SCHEDULE_KEY)
        if due is None or due <= time.time():
            # Scheduled content has come due (or nobody knows): purge, then build.
            return None, publish_due(due)
        return found.get(key), due

    @staticmethod
    def storable(response):
        return (
            response.status_code == 200
            and not response.streaming
            and not response.cookies
            and not response.has_header("Set-Cookie")
            # Previews of drafts say no-store themselves.
            and "no-store" not in response.get("Cache-Control", "")
            and "private" not in response.get("Cache-Control", "")
        )

    @staticmethod
    def store(key, response, deps, started, copies):
        """Keep the page with its dependencies' tokens; True if it was stored."""
        tokens = tokens_to_store(deps, started)
        if tokens is None:
            return False
        # Stable while the stored page lives, so that If-Modified-Since can match.
        response["Last-Modified"] = http_date(int(started))
        entry = {
            "status": response.status_code,
            # As the response holds them ({lower-case name: (name, value)}), to be put back
            # as they are (serve_stored).
            "headers": {
                key: header
                for key, header in response.headers._store.items()
                if key not in {"cache-control", "set-cookie"}
            },
            "content": response.content,
            "copies": copies,
            "built": started,
            "deps": {dep: tokens[dep] for dep in deps},
        }
        ok, _ = cache_call("set", key, entry, timeout=settings.SKILLO_PAGE_CACHE_TIMEOUT)
        if not ok:
            del response["Last-Modified"]
        return ok

    @staticmethod
    def serve_stored(request, entry, due):
        ok, tokens = cache_call("get_many", list(entry["deps"]))
        if not ok or tokens != entry["deps"]:
            return None
        response = HttpResponse(entry["content"], status=entry["status"])
        # Put back as they were kept: they were checked when the page was built, and
        # setting a page's seventeen headers one by one checks each name and value again
        # (a tenth of a hit). Django's own mapping of them (ResponseHeaders._store).
        response.headers._store.update(entry["headers"])
        send_accepted_copy(request, response, entry.get("copies", {}))
        public_cache_control(response, cdn_max_age(due))
        name_keys(response, entry["deps"], due, consistent=True)
        return conditional_response(request, response, int(entry["built"]))
