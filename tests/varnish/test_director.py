"""Several app servers behind one varnishd (deploy/varnish/skillo.vcl's director and probes).

Two plain HTTP servers on loopback answer as the app does (its health address, a page
never stored); one is killed while a reader keeps asking. The reader must see no error:
a request that finds it dead is tried on the other, and the probe soon marks it sick.
"""

import os
import signal
import subprocess
import sys

import pytest

from tests.redis_server import free_port
from tests.varnish.servers import Varnish, get, wait_for
from tests.waiting import until

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="no database: once, in the SQLite pass, is enough",
)

# An app server as Varnish sees one: 200 on every GET, saying which server answered,
# nothing Varnish may keep (each reader's request reaches a backend).
APP = """
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = sys.argv[2].encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "private")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
"""


@pytest.fixture
def two_backends(tmp_path, varnishd):
    servers = {}
    try:
        for name in ("first", "second"):
            port = free_port()
            process = subprocess.Popen([sys.executable, "-c", APP, str(port), name])
            servers[name] = (port, process)
            wait_for(f"http://127.0.0.1:{port}/health/", process, f"the {name} backend")
        ports = [port for port, _ in servers.values()]
        varnish = Varnish(varnishd, tmp_path / "varnish", ports).start()
        yield varnish, servers
        varnish.stop()
    finally:
        for _, process in servers.values():
            process.kill()
            process.wait(timeout=15)


def backends(varnish):
    """varnishadm's backend.list: each backend's name and whether its probe finds it
    healthy."""
    out = subprocess.run(
        ["varnishadm", "-n", str(varnish.folder / "work"), "backend.list"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return {
        line.split()[0].rsplit(".", 1)[-1]: "healthy" in line.lower()
        for line in out.splitlines()[1:]
        if line.strip()
    }


def test_a_killed_app_server_costs_the_reader_no_error(two_backends):
    varnish, servers = two_backends
    answers = []

    def ask():
        response = get(varnish.url, "/articles/x/")
        answers.append((response.status, response.text))
        return response

    # Round robin: both serve readers.
    until(lambda: {ask().text for _ in range(4)} == {"first", "second"}, "both backends serve")
    answers.clear()

    servers["first"][1].send_signal(signal.SIGKILL)
    servers["first"][1].wait(timeout=15)

    # The reader keeps asking until the probe has marked the dead one sick, and beyond.
    until(lambda: ask() and not backends(varnish)["app_1"], "the probe marks it sick")
    for _ in range(20):
        ask()
    errors = [answer for answer in answers if answer[0] != 200]
    assert errors == [], f"{len(errors)} of {len(answers)} requests failed"
    assert {text for _, text in answers} == {"second"}
    health = backends(varnish)
    assert (health["app_1"], health["app_2"]) == (False, True)
