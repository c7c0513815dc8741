"""The local-memory cache (CACHE_URL=locmem://) without per-key validation, reading many
keys at once.

Django checks every key against memcached's rules (length, spaces) on every call, a
warning meant for portability; Skillo's keys are all short and plain (page keys are
hashed), and a cached page reads a dozen keys, so the check was a quarter of a hit.

A page's fragments and their dependencies' tokens are read with ``get_many`` (a list
page: some eighty keys). Django's does a ``get`` per key, each taking the lock and the
clock again; this one takes them once.

Text is kept as it is, not pickled: a str cannot be changed in place, so the copy that
pickling makes of other values is not needed for it. The tokens are text, and a
page-cache hit reads those of every dependency of its page (about thirty for an
article): unpickling them was a sixth of the hit.
"""

import pickle
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache


def encoded(value, protocol):
    return value if type(value) is str else pickle.dumps(value, protocol)


def decoded(stored):
    # Anything else is kept pickled: bytes, never a str.
    return stored if type(stored) is str else pickle.loads(stored)


class LocalMemoryCache(LocMemCache):
    def validate_key(self, key):
        pass

    # Django's LocMemCache methods, with encoded() and decoded() for pickle's calls.
    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        stored = encoded(value, self.pickle_protocol)
        with self._lock:
            if self._has_expired(key):
                self._set(key, stored, timeout)
                return True
            return False

    def get(self, key, default=None, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._delete(key)
                return default
            stored = self._cache[key]
            self._cache.move_to_end(key, last=False)
        return decoded(stored)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        key = self.make_and_validate_key(key, version=version)
        stored = encoded(value, self.pickle_protocol)
        with self._lock:
            self._set(key, stored, timeout)

    def incr(self, key, delta=1, version=None):
        key = self.make_and_validate_key(key, version=version)
        with self._lock:
            if self._has_expired(key):
                self._delete(key)
                raise ValueError(f"Key '{key}' not found")
            new_value = decoded(self._cache[key]) + delta
            self._cache[key] = encoded(new_value, self.pickle_protocol)
            self._cache.move_to_end(key, last=False)
        return new_value

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
        return {key: decoded(stored) for key, stored in found.items()}
