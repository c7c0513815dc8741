"""Browser tests: Debian's Chromium driven by Playwright against a live server."""

import os
import shutil
import sqlite3
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from .dribble import dribbling

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.path).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not chromium:
        pytest.fail("Chromium is not installed: apt-get install -y chromium (make test does it).")
    return {**browser_type_launch_args, "executable_path": chromium, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def axe_source():
    path = Path(os.environ.get("AXE_CORE", ""))
    if not path.is_file():
        pytest.fail("axe-core not found: set AXE_CORE to axe.min.js (make test installs it).")
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def demo_copy():
    """The database as load_demo leaves it, copied once it has run (``site``)."""
    copy = {}
    yield copy
    if "sqlite" in copy:
        copy["sqlite"].close()


@pytest.fixture
def site(live_server, transactional_db, demo_copy):
    """The live server with the demo content, as `make run` shows it.

    load_demo runs for the session's first test; the others get its database copied
    back (SQLite's backup API, a few milliseconds against a second of CPU per test on a
    busy machine), its pictures still in the session's media folder. In memory (no
    SKILLO_TEST_DATABASE_FILE) or on PostgreSQL, every test loads the demo."""
    from django.conf import settings
    from django.db import connection

    # The copy names pictures in the media folder load_demo drew them in.
    copyable = (
        connection.vendor == "sqlite"
        and not connection.is_in_memory_db()
        and demo_copy.setdefault("media", str(settings.MEDIA_ROOT)) == str(settings.MEDIA_ROOT)
    )
    connection.ensure_connection()
    if copyable and "sqlite" in demo_copy:
        demo_copy["sqlite"].backup(connection.connection)
        from django.core.cache import caches

        for cache in caches.all():
            cache.clear()
    else:
        call_command("load_demo", stdout=StringIO())
        if copyable:
            demo_copy["sqlite"] = sqlite3.connect(":memory:", check_same_thread=False)
            connection.connection.backup(demo_copy["sqlite"])
    return live_server.url


@pytest.fixture
def dribbled_site(site):
    """The same site, its HTML arriving in pieces as over a slow connection."""
    with dribbling(site) as url:
        yield url


@pytest.fixture
def artifacts():
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def new_page(browser):
    """Pages in contexts of their own, closed at the end of the test while the live
    server still runs (an open keep-alive connection would outlive it)."""
    contexts = []

    def make():
        contexts.append(browser.new_context(viewport={"width": 1280, "height": 1000}))
        return contexts[-1].new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def docs_screenshots(artifacts):
    """Where the screenshots the docs link to are saved: docs/ when
    UPDATE_DOCS_SCREENSHOTS is set (to refresh them), else test-artifacts/, so that a
    test run leaves the repository as it was."""
    if os.environ.get("UPDATE_DOCS_SCREENSHOTS"):
        return ARTIFACTS.parent / "docs"
    return artifacts
