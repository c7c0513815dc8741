import time
from functools import cache

from .registry import LATENCY, REQUESTS


@cache
def children(view, status):
    """The request counter and the latency histogram of a view and status. Bound once:
    labels() takes a lock and builds its key on every call, more than the increment
    itself on a page-cache hit. A few hundred at most (views times statuses)."""
    return REQUESTS.labels(view, str(status)), LATENCY.labels(view)


class RequestMetricsMiddleware:
    """Counts each request by view and status and times it. Outermost, so that a page the
    page cache served counts too (as "page-cache": no view ran), and what no view
    answered (static files, a 404 before any URL matched) as "unresolved"."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        if getattr(request, "served_from_page_cache", False):
            view = "page-cache"
        else:
            view = match.view_name if match is not None else "unresolved"
        requests, latency = children(view, response.status_code)
        requests.inc()
        latency.observe(time.perf_counter() - started)
        return response
