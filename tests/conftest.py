"""Fixtures for every test, and the rule for what runs on which database.

make test runs the whole suite on SQLite (in three processes: the browser tests, the
hostile-input grid, the rest) and, side by side with it, on a throwaway PostgreSQL
cluster what can behave differently there: ``-m "not browser and not sqlite_only"``.
A test marked ``sqlite_only`` runs in the SQLite pass only:

- automatically, when it uses no database: no ``db``, ``transactional_db`` or
  ``django_db`` mark, nor any fixture needing them, and no ``skipif`` mark either
  (``left_to_sqlite_pass``). pytest-django refuses such a test's queries, so it cannot
  depend on the suite's database; tests that start servers on a database of their own
  are among them (tests/test_settings.py, tests/test_sqlite_serving.py). A test that
  reads the suite's database settings without a database fixture must say when it
  applies with a skipif mark: such tests run in both passes and skip where they do not
  apply (tests/test_concurrent_editors.py runs one test on each database; the live
  tests of tests/test_outage.py, which bring their own PostgreSQL cluster, and
  tests/test_pagecache_servers.py skip themselves on PostgreSQL);
- explicitly, with a reason: most of the hostile-input grid, which runs a sample on
  PostgreSQL (tests/test_hostile_input.py), and the renditions, files made from files
  (tests/test_image_renditions.py).

Nothing else is deselected, so every test runs at least once per make test; the
PostgreSQL pass ends with a count of what it left to the SQLite pass, by reason.
"""

import contextlib
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

# Playwright's sync API runs an event loop, which trips Django's async-safety guard.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

import pytest
from django.core.servers.basehttp import WSGIServer
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from textfiles.importer import import_articles

DEMO_CONTENT = Path(__file__).resolve().parent.parent / "textfiles" / "demo_content"
SHARED_ARTICLE = DEMO_CONTENT / "pytorch-2-4.txt"
SHARED_SLUG = "pytorch-2-4-released-python-3-12-and-a-custom-operator-api"


# Property tests (Hypothesis): in CI (CI=true, as .ci/run sets) derandomised, so every run
# tries the same examples and a failure is the same failure on a rerun; elsewhere random,
# so local runs keep finding new cases. Either way a failure prints the falsifying example
# and its @reproduce_failure blob. A test's own settings(...) keep the rest of the profile.
CI = os.environ.get("CI", "").lower() not in {"", "0", "false", "no"}
hypothesis_settings.register_profile(
    "skillo-ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
hypothesis_settings.register_profile("skillo-dev", print_blob=True)
hypothesis_settings.load_profile("skillo-ci" if CI else "skillo-dev")

# Django's test server (live_server) listens with a backlog of 10 connections, gunicorn
# with 2048: on a busy machine the tests that release a hundred readers at once saw
# connections reset before Django read them, which production does not do.
WSGIServer.request_queue_size = 2048

# Fixtures that give a test the database (pytest-django's, and what needs them).
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "django_db_setup",
    "live_server",
}
# How many tests -m left to the SQLite pass, by reason (printed at the end of the run).
DESELECTED = pytest.StashKey[Counter]()


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): runs in make test's SQLite pass only, not again on "
        "PostgreSQL (see tests/conftest.py)",
    )
    config.stash[DESELECTED] = Counter()
    # WhiteNoise warns (an error here) on every request if STATIC_ROOT does not exist yet.
    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(exist_ok=True)


def pytest_report_header(config):
    profile = hypothesis_settings.get_current_profile_name()
    derandomised = hypothesis_settings.default.derandomize
    how = (
        "derandomised: the same examples every run"
        if derandomised
        else "random examples; CI=true derandomises them"
    )
    return f"hypothesis profile {profile!r} ({how})"


def left_to_sqlite_pass(item):
    """No database fixture or mark, and no skipif mark (which may depend on the database);
    not the deployed tier, which brings its own PostgreSQL."""
    fixtures = getattr(item, "fixturenames", ())
    return (
        item.get_closest_marker("django_db") is None
        and item.get_closest_marker("deployed") is None
        and DATABASE_FIXTURES.isdisjoint(fixtures)
        and item.get_closest_marker("skipif") is None
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if left_to_sqlite_pass(item):
            item.add_marker(pytest.mark.sqlite_only(reason="uses no database"))


def pytest_deselected(items):
    for item in items:
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None:
            item.config.stash[DESELECTED][marker.kwargs.get("reason", "")] += 1


def pytest_terminal_summary(terminalreporter, config):
    deselected = config.stash.get(DESELECTED, Counter())
    if deselected and "sqlite_only" in (config.option.markexpr or ""):
        terminalreporter.section("left to the SQLite pass (sqlite_only)")
        for reason, count in deselected.most_common():
            terminalreporter.line(f"{count:6d}  {reason}")


@pytest.fixture
def shared_article(db):
    """The real Skillo article from ../shared, imported through the importer."""
    import_articles([SHARED_ARTICLE])
    from news.models import Article

    return Article.objects.get(slug=SHARED_SLUG)


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty cache (the header's topics are cached)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def count_queries(client, url, rendering=()):
    """SQL queries of one request to ``url``, once site-wide cached parts are warm.

    ``rendering``: dependency keys purged before the request counted, so that the page's
    fragments of them (pagecache.fragments) are rendered again, as after a change."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pagecache import purges

    client.get(url)
    purges.purge(set(rendering))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


class AtCommit:
    """A callback of news.purge.on_commit, waiting for the end of the code's own
    transaction (see ``purges_when_the_code_commits``)."""

    def __init__(self, callback):
        self.callback = callback

    def __call__(self):
        self.callback()


def code_blocks(connection):
    """The atomic blocks the code under test opened (not pytest-django's own)."""
    return [block for block in connection.atomic_blocks if not block._from_testcase]


def on_commit_in_tests(callback):
    """news.purge.on_commit where pytest-django's transactions never commit: at once
    when the code under test is in no transaction of its own (autocommit, as in
    production), else when the outermost one it opened ends without a rollback (when
    production would commit it)."""
    from django.db import transaction

    connection = transaction.get_connection()
    if code_blocks(connection):
        connection.on_commit(AtCommit(callback))
    else:
        callback()


def purges_when_the_code_commits(monkeypatch):
    from django.db import transaction

    atomic_exit = transaction.Atomic.__exit__

    def exit_then_purge(self, exc_type, exc_value, traceback):
        connection = transaction.get_connection(self.using)
        ended = False
        try:
            result = atomic_exit(self, exc_type, exc_value, traceback)
            ended = True
            return result
        finally:
            # Django dropped the callbacks of the savepoints rolled back; the rest are due
            # unless the whole transaction is to be rolled back.
            if not self._from_testcase and not code_blocks(connection):
                due = [c for _, c, _ in connection.run_on_commit if isinstance(c, AtCommit)]
                if due:
                    connection.run_on_commit = [
                        entry for entry in connection.run_on_commit
                        if not isinstance(entry[1], AtCommit)
                    ]  # fmt: skip
                    if ended and exc_type is None and not connection.needs_rollback:
                        for callback in due:
                            callback()

    monkeypatch.setattr(transaction.Atomic, "__exit__", exit_then_purge)


@contextlib.contextmanager
def rows_for_module(django_db_blocker, media_root, build):
    """Rows made once, by ``build()``, for tests that only read them, as
    django.test.TestCase.setUpTestData makes them: in a transaction rolled back after
    the last test (each test runs in a savepoint of its own inside it), with the page
    cache off as in every test and pictures in ``media_root``. Yields what ``build``
    returned, for a module- or class-scoped fixture to yield. Every test running while
    it is set up sees the rows: its module or class must hold only tests using it, each
    with the django_db mark."""
    from django.db import transaction
    from django.test import override_settings

    from news import purge

    with (
        django_db_blocker.unblock(),
        override_settings(SKILLO_PAGE_CACHE=False, MEDIA_ROOT=media_root),
        pytest.MonkeyPatch.context() as monkeypatch,
    ):
        monkeypatch.setattr(purge, "on_commit", on_commit_in_tests)
        purges_when_the_code_commits(monkeypatch)
        outer = transaction.atomic()
        # As TestCase marks its class-wide transaction: not the code's own.
        outer._from_testcase = True
        outer.__enter__()
        try:
            made = build()
            with django_db_blocker.block():
                yield made
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def site_address_of_the_live_server(request):
    """A test with a live server names it as the site's address (SITE_URL), as a
    deployment does: every address a page gives out is made from it (news.paths), and a
    browser follows them."""
    if "live_server" not in request.fixturenames:
        yield
        return
    settings = request.getfixturevalue("settings")
    settings.SKILLO_SITE_URL = request.getfixturevalue("live_server").url
    yield


@pytest.fixture(autouse=True)
def page_cache_off(request, settings, monkeypatch):
    """Whole-page caching is tested on its own (tests/test_pagecache.py, marked
    ``page_cache``, where purges run on commit as in production). Elsewhere pages are
    not cached, and purges of what is (topic counts, archive months) run when the
    change would commit: at once outside a transaction, else when the outermost one
    the code opened ends (a request's, an import's), since pytest-django's own
    transactions never commit."""
    from news import purge
    from pagecache import store as pagecache

    if request.node.get_closest_marker("page_cache") is None:
        settings.SKILLO_PAGE_CACHE = False
        monkeypatch.setattr(purge, "on_commit", on_commit_in_tests)
        purges_when_the_code_commits(monkeypatch)
        # No commit, so no purge can land while a request reads: nothing to guard.
        monkeypatch.setattr(pagecache, "RACE_MARGIN", 0)


@pytest.fixture(scope="session")
def redis_server():
    """A real redis-server for the session (make test installs Debian's package)."""
    import shutil

    from tests.redis_server import RedisServer

    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture(scope="session")
def s3_server():
    """A real S3 API server (moto's) for the session, started once it is needed."""
    from tests.s3_server import S3Server

    server = S3Server()
    yield server
    server.close()


@pytest.fixture
def s3_media(s3_server, settings, monkeypatch):
    """The default storage on a new bucket of the S3 server, as MEDIA_S3_BUCKET and the
    rest of the environment set it (skillo.settings.base); the bucket's name."""
    from skillo.settings.base import media_storage
    from tests.s3_server import KEYS

    bucket = s3_server.new_bucket()
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    settings.STORAGES = {**settings.STORAGES, "default": media_storage(s3_server.environ(bucket))}
    return bucket


# Renditions encoded in this run, by everything their bytes depend on: the picture (its
# hash), the focal point, the rendition's size and format, and the encoders' settings.
RENDITION_CACHE_BYTES = 256 * 1024 * 1024


@pytest.fixture(scope="session", autouse=True)
def renditions_encoded_once():
    """Each rendition is encoded once per test run, not once per test: most tests make the
    same pictures (factories.ImageFactory, load_demo's illustrations) in a media folder of
    their own, and encoding (AVIF above all) is the slowest step of saving an image. A
    rendition not made yet is still made by the app's own code, and ensure_renditions
    still decides what is missing and writes every file, so only the encoder's work is
    shared between tests."""
    from django.conf import settings

    from images import renditions

    render = renditions._render
    made, size = {}, [0]

    def render_once(picture, image, rendition):
        key = (
            image.sha256, image.focal_x, image.focal_y, rendition, settings.IMAGE_AVIF_QUALITY,
            settings.IMAGE_AVIF_SPEED, settings.IMAGE_JPEG_QUALITY,
        )  # fmt: skip
        if key in made:
            return made[key]
        data = render(picture, image, rendition)
        if image.sha256 and size[0] + len(data) <= RENDITION_CACHE_BYTES:
            made[key] = data
            size[0] += len(data)
        return data

    renditions._render = render_once
    yield
    renditions._render = render


@pytest.fixture(scope="session", autouse=True)
def illustrations_drawn_once():
    """load_demo draws the same illustrations (the same bytes for the same seed) each
    time a test loads the demo content: drawn once per test run."""
    import functools

    from textfiles.management.commands import load_demo

    draw = load_demo.illustration
    load_demo.illustration = functools.cache(draw)
    yield
    load_demo.illustration = draw


@pytest.fixture(autouse=True)
def same_pictures_in_every_test():
    """factories.ImageFactory numbers its pictures from 0 in every test, so the n-th
    picture of a test is the same as in any other (and its renditions are encoded once):
    pictures stay different within a test, which is all their numbering is for."""
    from tests.factories import ImageFactory

    ImageFactory.reset_sequence()


def collect_production_static(root):
    """collectstatic with the production settings into ``root`` (made whole or not at
    all: collected beside it, then renamed)."""
    import shutil
    import subprocess
    import sys
    import tempfile

    partial = Path(tempfile.mkdtemp(prefix=f"{root.name}.partial-", dir=root.parent))
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "SECRET_KEY": "collectstatic-only-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": "https://news.example",
        "CACHE_URL": "dummy://",
        # Collecting needs no database; none is opened.
        "DATABASE_URL": f"sqlite:///{partial / 'unused.sqlite3'}",
        "STATIC_ROOT": str(partial / "static"),
    }
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    try:
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic_if_changed", "-v", "0"],
            cwd=Path(__file__).resolve().parent.parent, env=environment, check=True,
            timeout=600,
        )  # fmt: skip
        assert (partial / "static" / "staticfiles.json").is_file()
        (partial / "static").rename(root)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def make_demo_site(root):
    """``manage.py migrate`` and ``load_demo`` on a new SQLite file, under the development
    settings the server tests start their sites with: ``root/db.sqlite3`` and the
    demo's pictures in ``root/media``; ``root/migrated.sqlite3`` as migrate left it."""
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DATABASE_URL": f"sqlite:///{partial / 'db.sqlite3'}",
        "MEDIA_ROOT": str(partial / "media"),
    }
    for name in ("CACHE_URL", "SITE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        environment.pop(name, None)
    try:
        for command in (["migrate", "--noinput"], ["load_demo"]):
            if command[0] == "load_demo":
                shutil.copy(partial / "db.sqlite3", partial / "migrated.sqlite3")
            subprocess.run(
                [sys.executable, "manage.py", *command],
                cwd=Path(__file__).resolve().parent.parent, env=environment, check=True,
                capture_output=True, timeout=600,
            )  # fmt: skip
        partial.rename(root)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory):
    """The demo content as ``make run`` loads it (``make_demo_site``), which the tests
    that start servers of their own copy with ``copy_demo_site`` rather than migrate and
    load it again (12 s of CPU each time): made once per test run, or once for all of
    make test's runs, beside SKILLO_TEST_PRODUCTION_STATIC's folder (the first run to
    need it makes it while the others wait)."""
    import fcntl

    shared = os.environ.get("SKILLO_TEST_PRODUCTION_STATIC")
    parent = Path(shared).parent if shared else tmp_path_factory.mktemp("demo")
    root = parent / "demo-site"
    with open(parent / "demo-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not root.exists():
            make_demo_site(root)
    return root


def copy_demo_site(demo_site, database, media=None):
    """The demo's database copied to ``database`` (SQLite's backup API: the copy is
    whole even if the source is being read), its pictures to ``media``."""
    import sqlite3

    with (
        contextlib.closing(sqlite3.connect(demo_site / "db.sqlite3")) as source,
        contextlib.closing(sqlite3.connect(database)) as copy,
    ):
        source.backup(copy)
    if media is not None:
        shutil.copytree(demo_site / "media", media, dirs_exist_ok=True)


@pytest.fixture(scope="session")
def production_static(tmp_path_factory):
    """A STATIC_ROOT collected with the production settings (hashed names, compressed
    copies), which the tests that start servers with those settings only read
    (tests/test_settings.py, tests/test_outage.py, tests/test_concurrent_editors.py).
    Collecting takes a minute of CPU, so it is done once per test run, or once for all
    of make test's runs: they share SKILLO_TEST_PRODUCTION_STATIC, a folder to be (the
    first run to need it collects it while the others wait)."""
    import fcntl

    shared = os.environ.get("SKILLO_TEST_PRODUCTION_STATIC")
    root = Path(shared) if shared else tmp_path_factory.mktemp("static") / "production"
    with open(root.parent / f"{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not root.exists():
            collect_production_static(root)
    return root


@pytest.fixture
def media_root(settings, tmp_path):
    """A media folder of the test's own (uploaded images, renditions, cards)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def silent_host(settings):
    """A server on 127.0.0.3 that takes connections and never answers: its address
    (http://127.0.0.3:port) and the connections it took. Loopback is allowed."""
    import contextlib
    import socket
    import threading

    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    server, taken, stopping = socket.create_server(("127.0.0.3", 0)), [], threading.Event()
    server.settimeout(0.1)

    def take():
        while not stopping.is_set():
            with contextlib.suppress(TimeoutError):
                taken.append(server.accept()[0])

    thread = threading.Thread(target=take)
    thread.start()
    yield f"http://127.0.0.3:{server.getsockname()[1]}", taken
    stopping.set()
    thread.join()
    for connection in taken:
        connection.close()
    server.close()
