"""The API's rate limits, counted in Django's cache, and lifted while it is down.

DRF's throttles read and write the cache unguarded: with Redis down, every API answer
the page cache did not hold was a 500, while the HTML pages were served uncached. A
throttle that cannot reach the cache lets the request through, uncounted, and says so in
the log (pagecache.store treats the cache the same way).
"""

import logging

from rest_framework import throttling

logger = logging.getLogger(__name__)


class CacheOutageMixin:
    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as error:  # Any backend, any failure: served, not limited.
            logger.warning("API rate limit not counted: the cache is unavailable (%s).", error)
            self.history = []
            return True


class AnonRateThrottle(CacheOutageMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(CacheOutageMixin, throttling.UserRateThrottle):
    """The tokens' rate, counted per account. DRF's counts anonymous clients too, by
    address, so they were held to the lower of the two rates (and each of their requests
    was counted twice): they have AnonRateThrottle's alone."""

    def get_cache_key(self, request, view):
        if not request.user or not request.user.is_authenticated:
            return None  # DRF's documented way to leave a request unthrottled
        return super().get_cache_key(request, view)
