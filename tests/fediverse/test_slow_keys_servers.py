"""Six inbox requests naming keys on a server that does not answer used to hold every
sync worker of gunicorn for as long as it did not answer, and readers waited behind them
(a /search/ took 18.4 s). Here: gunicorn with two workers, six such requests at once,
and a reader's search, all answered while the key server still holds every fetch."""

import http.client
import json
import os
import subprocess
import sys
import threading

import pytest

from tests.fediverse_server import RemoteServer
from tests.varnish.servers import ROOT, AppServer

from .test_following import ACTIVITY, SITE, follow_activity

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own server on a SQLite file; once, in the SQLite pass, is enough",
)


@pytest.fixture
def app(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SITE_URL": SITE,
        # The key server is on loopback (the documented switch for tests).
        "ALLOW_PRIVATE_ADDRESSES": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "STATIC_ROOT": str(tmp_path / "static"),
        "CACHE_URL": f"file://{tmp_path / 'cache'}",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, check=True,
        capture_output=True,
    )  # fmt: skip
    server = AppServer(env, tmp_path, workers=2).start()
    yield server
    server.stop()


def request(server, method, path, body=None, headers=None, timeout=20):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def test_unanswered_key_fetches_hold_no_worker_and_no_reader(app):
    with RemoteServer("127.0.0.2") as remote:
        remote.release = threading.Event()
        answers, start = [None] * 6, threading.Barrier(6)

        def send(n):
            activity = follow_activity(remote, f"user{n}")
            body = json.dumps(activity).encode()
            headers = remote.cavage_headers(f"user{n}", SITE + "/ap/inbox", body)
            start.wait()
            answers[n] = request(
                app, "POST", "/ap/inbox", body, {**headers, "Content-Type": ACTIVITY}
            )

        threads = [threading.Thread(target=send, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        reader = request(app, "GET", "/search/?q=python")
        # All of it while the key server still holds every fetch it was sent.
        assert not remote.release.is_set()
        assert [status for status, _ in answers] == [202] * 6, answers
        assert reader[0] == 200
        assert remote.gets, "no key was fetched at all"
