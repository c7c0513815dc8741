"""Rate limits on the production stack: gunicorn with three worker processes, a cache
folder they share (a local trial's) and a SQLite file. A client over a limit is refused
by every process alike: the limit is counted once for the site, not once per process
(before, 100 requests from one address let through up to three times the limit).

The floods come from several threads at once, as a busy client's do, so every process
takes its share. The limits count in fixed minutes: a flood that started in one minute
and ended in the next is sent again from another address (behind one trusted proxy,
X-Forwarded-For names the client).
"""

import contextlib
import http.client
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.varnish.servers import ROOT, AppServer

LIMIT = 20
SENT = 100
THREADS = 6
WORKERS = 3
ARTICLE_PATH = "/articles/any-story/"  # a counted page's address: the beacon is checked
BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/141.0.0.0 Safari/537.36",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "no-cors",
    "Sec-Fetch-Dest": "empty",
}

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory, demo_site):
    """gunicorn with three workers, every limit at 20 a minute."""
    folder = tmp_path_factory.mktemp("ratelimit-site")
    (folder / "static").mkdir()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "static"),
        "CACHE_URL": f"file://{folder / 'cache'}",
        # Every API request reaches the API's limit (none answered from the page cache).
        "PAGE_CACHE": "off",
        "API_ANON_RATE": f"{LIMIT}/min",
        "READERSHIP_PER_MINUTE": str(LIMIT),
        # Each counted view is written at once, so the database holds what got through.
        "READERSHIP_BUFFER_SIZE": "1",
        "TRUSTED_PROXY_COUNT": "1",
    }
    shutil.copy(demo_site / "migrated.sqlite3", folder / "db.sqlite3")
    app = AppServer(env, folder, workers=WORKERS).start()
    yield app, folder
    app.stop()


def send(app, method, path, address, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", app.port, timeout=30)
    try:
        connection.request(
            method, path, body=body, headers={**(headers or {}), "X-Forwarded-For": address}
        )
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def flood(request, count=lambda: 0):
    """``request(address)`` SENT times from THREADS threads at once, from an address
    whose flood started and ended in the same minute; the statuses, and how much
    ``count()`` grew during that flood (not during one that crossed a minute's end,
    whose rows stay)."""
    for attempt in range(1, 4):
        address = f"198.51.100.{attempt}"
        before = count()
        minute = int(time.time() // 60)
        with ThreadPoolExecutor(THREADS) as pool:
            statuses = list(pool.map(request, [address] * SENT))
        if int(time.time() // 60) == minute:
            return statuses, count() - before
    pytest.fail("three floods in a row crossed a minute's end")


def test_an_address_gets_the_api_limit_once_across_every_process(site):
    app, _ = site
    statuses, _ = flood(lambda address: send(app, "GET", "/api/v1/articles/", address))
    assert statuses.count(200) == LIMIT
    assert statuses.count(429) == SENT - LIMIT


def test_an_address_has_the_readership_limit_of_views_once_across_every_process(site):
    app, folder = site
    body = json.dumps({"p": ARTICLE_PATH, "r": "", "w": "l"})
    headers = {**BROWSER, "Content-Type": "text/plain;charset=UTF-8"}

    def beacons():
        with contextlib.closing(sqlite3.connect(folder / "db.sqlite3")) as database:
            return database.execute("SELECT count(*) FROM readership_beacon").fetchone()[0]

    statuses, counted = flood(
        lambda address: send(app, "POST", "/readership/beacon/", address, body, headers),
        beacons,
    )
    assert statuses == [204] * SENT
    assert counted == LIMIT


def manage(folder, *args):
    """A manage.py command on the site's database, its output."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "CACHE_URL": f"file://{folder / 'cache'}",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return done.stdout.decode()


def test_one_readers_views_are_one_view_whichever_process_takes_them(site):
    """Issue 44: a view counts once per visitor, article and hour, however the three
    processes shared the beacons and however many folds fold them (readership.folding
    keeps what it counted in the database). Before, each beacon was a view."""
    app, folder = site
    manage(folder, "readership")  # the other tests' beacons, of no article yet: dropped
    story = "from tests.factories import ArticleFactory; ArticleFactory(title='Any story')"
    manage(folder, "shell", "-c", story)
    body = json.dumps({"p": ARTICLE_PATH, "r": "", "w": "l"})
    headers = {**BROWSER, "Content-Type": "text/plain;charset=UTF-8"}

    def reads(count):
        with ThreadPoolExecutor(THREADS) as pool:
            return list(
                pool.map(
                    lambda _: send(app, "POST", "/readership/beacon/", "192.0.2.44", body, headers),
                    range(count),
                )
            )

    assert reads(LIMIT // 2) == [204] * (LIMIT // 2)
    manage(folder, "readership")  # a fold between: the periodic one, every minute
    assert reads(LIMIT // 4) == [204] * (LIMIT // 4)
    [read] = json.loads(manage(folder, "readership", "--json"))["articles"]
    assert (read["views"], read["visitors"]) == (1, 1)
