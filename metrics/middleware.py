import time

from .registry import LATENCY, REQUESTS


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
        REQUESTS.labels(view, str(response.status_code)).inc()
        LATENCY.labels(view).observe(time.perf_counter() - started)
        return response
