"""`make serve VARNISH=1`'s launcher (deploy/varnish/serve.sh) as a process of its own,
with gunicorn on the production settings behind it, each test with a launcher of its
own: what readers get while the app server is down, how the launcher stops, and what
decides the scheme of a page Varnish keeps.
"""

import os
import signal
import socket
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import SHARED_SLUG
from tests.varnish.servers import Launcher, Response, get
from tests.waiting import poll

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)

ARTICLE = f"/articles/{SHARED_SLUG}/"
# A request Varnish always passes to the app server (a session cookie): 503 from Varnish
# while no app server answers, the app's 200 once one does.
PASSED = {"Cookie": "sessionid=none"}


@pytest.fixture(scope="module")
def demo_database(demo_site):
    """The demo content in a SQLite file, copied for each launcher; its images beside it
    (MEDIA_ROOT, shared by the launchers, which only read them)."""
    return demo_site / "db.sqlite3"


@pytest.fixture
def launch(tmp_path, varnishd, demo_database, production_static):
    """Start a launcher as `make serve VARNISH=1` does; each is stopped at the end."""
    started = []

    def start(command=None, tls=False, wait=True, **environment):
        folder = tmp_path / f"launcher-{len(started)}"
        folder.mkdir()
        database = folder / "db.sqlite3"
        with (
            closing(sqlite3.connect(demo_database)) as source,
            closing(sqlite3.connect(database)) as copy,
        ):
            source.backup(copy)
        env = production_env(folder, production_static, demo_database.parent / "media")
        launcher = Launcher(env, folder, command, tls)
        launcher.env["VARNISH_PURGE_URLS"] = launcher.url
        launcher.env.update(environment)
        started.append(launcher)
        return launcher.start(wait=wait)

    yield start
    for launcher in started:
        launcher.stop()


def production_env(folder, static, media):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "SECRET_KEY": "launcher-test-" + "k" * 50,
        "ALLOWED_HOSTS": "127.0.0.1",
        # A trial on this machine: `make serve`'s own default without a SITE_URL.
        "SITE_URL": "http://127.0.0.1",
        "LOCAL_TRIAL": "true",
        "SECURE_SSL_REDIRECT": "false",
        "TRUSTED_PROXY_COUNT": "1",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(static),
        "MEDIA_ROOT": str(media),
        "CACHE_URL": f"file://{folder / 'cache'}",
    }
    for name in ("SURROGATE_KEY_HEADERS", "VARNISH_MAX_AGE", "CDN_MAX_AGE"):
        env.pop(name, None)
    return env


def hit(launcher, path):
    """Request ``path`` through Varnish until it is a hit; the hit."""
    found = poll(lambda: (r := get(launcher.url, path)).cache == "HIT" and r, 10, 0.05)
    assert found, f"{path} is never a hit"
    return found


def test_varnish_serves_its_pages_while_the_app_server_is_killed_and_restarted(launch):
    launcher = launch()
    page = hit(launcher, ARTICLE)
    master = launcher.app_master()
    os.kill(master, signal.SIGKILL)
    # Down: what Varnish must fetch is a 503 (its workers went with the master)...
    down = poll(lambda: get(launcher.url, "/robots.txt", headers=PASSED).status == 503, 10)
    assert down, "the killed app server's port still answered"
    # ...but the readers of a page Varnish has still get it.
    served = get(launcher.url, ARTICLE)
    assert (served.status, served.cache, served.body) == (200, "HIT", page.body)
    # The launcher starts it again: fresh pages come through once more.
    back = poll(lambda: get(launcher.url, "/robots.txt", headers=PASSED).status == 200, 60, 0.1)
    assert back, f"the app server was never started again: {launcher.log()}"
    fresh = get(launcher.url, "/tags/")
    assert (fresh.status, fresh.cache) == (200, "MISS")
    assert launcher.app_master() not in {None, master}
    assert "Starting it again in 1 s" in launcher.log()


def test_a_killed_varnishd_is_started_again_and_the_app_server_keeps_running(launch):
    launcher = launch()
    hit(launcher, ARTICLE)
    master = launcher.app_master()
    [varnishd] = [
        pid
        for pid, command in launcher.processes().items()
        if "varnishd" in command and launcher_child(launcher, pid)
    ]
    os.kill(varnishd, signal.SIGKILL)
    # Seen gone first: until then the old varnishd may still answer.
    said = "the app server keeps running. Starting it again in 1 s"
    seen = poll(lambda: said in launcher.log(), 60, 0.1)
    assert seen, f"the launcher never saw varnishd end: {launcher.log()}"
    back = poll(lambda: answers(launcher, ARTICLE), 60, 0.1)
    assert back, f"Varnish was never started again: {launcher.log()}"
    assert launcher.process.poll() is None
    assert launcher.app_master() == master  # The app server was not stopped.


def launcher_child(launcher, pid):
    parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
    return int(parent) == launcher.process.pid


def answers(launcher, path):
    try:
        return get(launcher.url, path).status == 200
    except OSError:
        return False


@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_to_the_launcher_stops_varnish_and_the_app_server(launch, signal_number):
    launcher = launch()
    commands = " ".join(launcher.processes().values())
    assert "varnishd" in commands and "gunicorn" in commands
    os.kill(launcher.process.pid, signal_number)
    # serve.sh kills what has not stopped 35 s after the signal (app) or 10 s (Varnish).
    launcher.process.wait(timeout=60)
    assert launcher.processes() == {}, launcher.log()
    with pytest.raises(ConnectionRefusedError):
        get(launcher.url, "/robots.txt")


def test_an_app_server_that_keeps_failing_is_started_again_after_growing_delays(launch):
    """It fails at once each time; the launcher says so and waits 1, 2, then 4 s."""
    launcher = launch([sys.executable, "-c", "raise SystemExit(3)"], wait=False)

    def restarts():
        assert launcher.process.poll() is None, f"the launcher exited: {launcher.log()}"
        said = [line for line in launcher.log().splitlines() if "Starting it again" in line]
        return len(said) >= 3 and said

    said = poll(restarts, 30, 0.1)
    assert said, launcher.log()
    assert [line.rsplit(" in ", 1)[1] for line in said] == ["1 s.", "2 s.", "4 s."]
    assert all("exited with status 3" in line for line in said)
    # Varnish stays up all the while, answering what it cannot fetch with a 503.
    assert get(launcher.url, "/robots.txt").status == 503


def canonical():
    """The article's canonical link, on the site's address (production_env's SITE_URL),
    which every page's links are made from whatever the request's host and scheme."""
    return f'<link rel="canonical" href="http://127.0.0.1{ARTICLE}">'


def https_links(launcher, response):
    return f"https://127.0.0.1:{launcher.port}/" in response.text


def test_a_readers_forwarded_proto_is_not_served_to_the_next_reader(launch):
    launcher = launch()
    forged = get(launcher.url, ARTICLE, headers={"X-Forwarded-Proto": "https"})
    assert (forged.status, forged.cache) == (200, "MISS")
    plain = get(launcher.url, ARTICLE)
    assert (plain.status, plain.cache) == (200, "HIT")
    assert canonical() in plain.text
    assert not https_links(launcher, plain)
    assert "Strict-Transport-Security" not in plain.headers


def proxied(launcher, path, client="203.0.113.7"):
    """A request as a TLS terminator sends it to Varnish: a PROXY protocol v1 line first."""
    with socket.create_connection(("127.0.0.1", launcher.tls_port), timeout=30) as conn:
        conn.sendall(
            f"PROXY TCP4 {client} 127.0.0.1 40000 443\r\n"
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{launcher.port}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, body = answer.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return Response(int(lines[0].split()[1]), headers, body)


def test_a_request_through_the_tls_terminators_address_gets_the_https_page(launch):
    launcher = launch(tls=True)
    secure = proxied(launcher, ARTICLE)
    assert secure.status == 200
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")
    # The links stay on the site's address (SITE_URL), whichever scheme was asked.
    assert canonical() in secure.text


def test_a_balancer_named_as_a_tls_proxy_is_believed_and_no_one_else(launch):
    launcher = launch(VARNISH_TLS_PROXIES="127.0.0.2, 10.9.0.0/16")
    says_https = {"X-Forwarded-Proto": "https"}
    secure = get(launcher.url, ARTICLE, headers=says_https, source="127.0.0.2")
    assert secure.status == 200
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")
    forged = get(launcher.url, ARTICLE, headers=says_https, source="127.0.0.3")
    assert (forged.status, forged.cache) == (200, "MISS")  # not the https copy
    assert "Strict-Transport-Security" not in forged.headers


def test_the_https_page_is_kept_apart_from_the_plain_one(launch):
    launcher = launch(tls=True)
    assert proxied(launcher, ARTICLE).cache == "MISS"
    assert proxied(launcher, ARTICLE).cache == "HIT"
    plain = get(launcher.url, ARTICLE)
    assert (plain.status, plain.cache) == (200, "MISS")
    assert not https_links(launcher, plain) and "Strict-Transport-Security" not in plain.headers
