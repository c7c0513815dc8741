"""The test suite: development settings, with a fast password hasher (the real one is
deliberately slow, and tests log in hundreds of times)."""

import os
import tempfile

from .development import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Each test run keeps its purge log to itself: another run on the same machine (with the
# same in-memory database name) must not purge this one's pages.
SKILLO_PURGE_LOG = os.path.join(tempfile.gettempdir(), f"skillo-test-purges-{os.getpid()}.log")

# Uploaded images: a folder of this run's own (tests/conftest.py gives each test one of
# its own inside it), and AVIF at its fastest speed (the bytes differ, not the behaviour).
MEDIA_ROOT = tempfile.mkdtemp(prefix="skillo-test-media-")
IMAGE_AVIF_SPEED = 10

# No Varnish in front of the test suite, whatever the environment says (tests/varnish
# configure their own).
SKILLO_VARNISH_PURGE_URLS = []
