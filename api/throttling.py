"""The API's rate limits: DRF's rates ("120/min"), counted once for the whole site.

DRF's own throttles keep each client's recent request times in Django's cache: with the
default cache, each process's own memory, a client got the limit once per process, and
even on Redis two processes could read the same list and both let a request through.
These count in fixed windows of the rate's length (a minute for "120/min") with
ratelimits.counter, which every process sees alike; Retry-After says when the window
ends. While the cache is down the hits are counted in the database (ratelimits.counter):
the limit holds, and an outage of the cache is no 500.
"""

from rest_framework import throttling

from ratelimits import counter


class FixedWindowMixin:
    def allow_request(self, request, view):
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        return not counter.over(key, self.num_requests, self.duration)

    def wait(self):
        return counter.seconds_left(self.duration)


class AnonRateThrottle(FixedWindowMixin, throttling.AnonRateThrottle):
    """Anonymous clients, counted per address."""


class UserRateThrottle(FixedWindowMixin, throttling.UserRateThrottle):
    """The tokens' rate, counted per account. DRF's counts anonymous clients too, by
    address, so they were held to the lower of the two rates (and each of their requests
    was counted twice): they have AnonRateThrottle's alone."""

    def get_cache_key(self, request, view):
        if not request.user or not request.user.is_authenticated:
            return None  # DRF's documented way to leave a request unthrottled
        return super().get_cache_key(request, view)
