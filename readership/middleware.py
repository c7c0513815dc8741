"""Beacons answered ahead of the middleware that pages need (sessions, CSRF, messages,
the page cache's lookups, the CSP): a beacon reads no cookie and sends nothing but a
204, and at a busy site there is one for every page view. Measured by
bench/readership.py (docs/benchmarks.md, "Readership ingest")."""

from functools import cache

from django.urls import resolve, reverse

from .views import beacon


@cache
def beacon_path():
    return reverse("readership:beacon")


@cache
def beacon_match():
    # Resolved once: the request metrics name a request by its view, and a beacon skips
    # the resolving that would have named it (else it counts as "unresolved").
    return resolve(beacon_path())


class BeaconMiddleware:
    """Placed after the request metrics (beacons are counted and timed like any
    request) and the security headers, so everything below is skipped for a beacon."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path == beacon_path():
            request.resolver_match = beacon_match()
            return beacon(request)
        return self.get_response(request)
