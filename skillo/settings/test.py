"""The test suite: development settings, with a fast password hasher (the real one is
deliberately slow, and tests log in hundreds of times)."""

import os
import tempfile

from .development import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Each test process keeps its cache to itself, in memory: another run on the same machine
# (with the same in-memory database name) must not share this one's pages. Tests of
# several processes start servers with a cache they share (Redis, or a folder).
CACHES = {"default": cache_from_url(os.environ.get("CACHE_URL") or "locmem://")}  # noqa: F405

# Uploaded images: a folder of this run's own (tests/conftest.py gives each test one of
# its own inside it), and AVIF at its fastest speed (the bytes differ, not the behaviour).
MEDIA_ROOT = tempfile.mkdtemp(prefix="skillo-test-media-")
IMAGE_AVIF_SPEED = 10

# Static files: a folder of this run's own, empty. WhiteNoise lists every file under
# STATIC_ROOT each time a test client loads the middleware, once per test: the 600 files
# make check collects into staticfiles/ made the suite a quarter slower. Tests that
# need collected files collect their own (tests/conftest.py, production_static).
STATIC_ROOT = tempfile.mkdtemp(prefix="skillo-test-static-")

# No Varnish in front of the test suite, whatever the environment says (tests/varnish
# configure their own).
SKILLO_VARNISH_PURGE_URLS = []

# The browser tests' live server answers a page's requests at once (the change form, its
# preview, its autosave). An in-memory SQLite database is shared between threads through
# SQLite's shared cache, whose table locks fail at once ("database table is locked")
# where a file's locks wait out the busy timeout: make test's browser run names a file.
if os.environ.get("SKILLO_TEST_DATABASE_FILE") and "sqlite" in DATABASES["default"]["ENGINE"]:  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": os.environ["SKILLO_TEST_DATABASE_FILE"]}  # noqa: F405

# The mail providers' tracking webhooks are on, behind this secret (tests post to them).
ANYMAIL = {**ANYMAIL, "WEBHOOK_SECRET": "anymail:test-secret"}  # noqa: F405

# Each page view is written as it comes, so that a test can fold it at once.
READERSHIP_BUFFER_SIZE = 1

# The site's public address is the test client's host: pages, feeds and mails give
# every address on SITE_URL (news.paths.absolute), and the test client's requests name
# "testserver". Tests of another address set their own (tests/fediverse/conftest.py).
SKILLO_SITE_URL = "http://testserver"

# Media on this run's folder, whatever MEDIA_S3_BUCKET the environment names: no test
# writes to a real bucket (tests/s3_server.py gives those that need one a bucket of their
# own on a server on loopback).
STORAGES = {**STORAGES, "default": media_storage({})}  # noqa: F405
