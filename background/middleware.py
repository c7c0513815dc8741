from django.http import JsonResponse
from django.utils.cache import add_never_cache_headers

LIVE = "/health/live/"


class LivenessMiddleware:
    """``/health/live/``: 200 whenever the process answers, before any other middleware
    reads the request. A probe (Varnish's director, a balancer, a supervisor) names the
    app server by its own address, which ALLOWED_HOSTS (the site's public host) does not
    list: through Django's host check every probe would be a 400, every server sick."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == LIVE and request.method in ("GET", "HEAD"):
            response = JsonResponse({"status": "ok"})
            add_never_cache_headers(response)
            return response
        return self.get_response(request)
