"""The local-memory cache (CACHE_URL=locmem://) without per-key validation, reading many
keys at once.

Django checks every key against memcached's rules (length, spaces) on every call, a
warning meant for portability; Skillo's keys are all short and plain (page keys are
hashed), and a cached page reads a dozen keys, so the check was a quarter of a hit.

A page's fragments and their dependencies' tokens are read with ``get_many`` (a list
page: some eighty keys). Django's does a ``get`` per key, each taking the lock and the
clock again; this one takes them once.
"""

import pickle
import time

from django.core.cache.backends.locmem import LocMemCache


class LocalMemoryCache(LocMemCache):
    def validate_key(self, key):
        pass

    def get_many(self, keys, version=None):
        names = {self.make_key(key, version=version): key for key in keys}
        found = {}
        with self._lock:
            now = time.time()
            for name, key in names.items():
                expires = self._expire_info.get(name, -1)
                if expires is not None and expires <= now:
                    # Missing (-1) or expired: as get() does, an expired entry goes.
                    self._delete(name)
                    continue
                found[key] = self._cache[name]
                self._cache.move_to_end(name, last=False)
        return {key: pickle.loads(pickled) for key, pickled in found.items()}
