"""The test suite: development settings, with a fast password hasher (the real one is
deliberately slow, and tests log in hundreds of times)."""

from .development import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
