"""The local-memory cache (CACHE_URL=locmem://) without per-key validation.

Django checks every key against memcached's rules (length, spaces) on every call, a
warning meant for portability; Skillo's keys are all short and plain (page keys are
hashed), and a cached page reads a dozen keys, so the check was a quarter of a hit.
"""

from django.core.cache.backends.locmem import LocMemCache


class LocalMemoryCache(LocMemCache):
    def validate_key(self, key):
        pass
