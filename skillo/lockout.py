"""A sign-in lockout says when to try again (Retry-After, RFC 9110 10.2.3), as the site's
other 429s do: django-axes answers with its page and status alone."""

from django.conf import settings


class LockoutRetryAfterMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 429 and getattr(request, "axes_locked_out", False):
            # The cool-off runs from the last failure, which was this one's.
            response.setdefault("Retry-After", str(int(settings.AXES_COOLOFF_TIME.total_seconds())))
        return response
