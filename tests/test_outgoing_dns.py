"""An outgoing fetch stops waiting for a DNS server that never answers: the C resolver
takes no timeout, and glibc's own (here 30 s) would hold a worker's task that long.

The fetch runs in a network namespace of its own (`ip netns exec`), whose
/etc/resolv.conf (bind-mounted from /etc/netns/NAME/ by `ip netns exec`) names a DNS
server on the namespace's loopback that receives each query and never answers."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="a network namespace and /etc/netns need root (CI is root)"
)

FETCH = """
import os, socket, sys, threading
import django
django.setup()
import httpx
from outbound.client import client

dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dns.bind(("127.0.0.1", 53))
queries = []
threading.Thread(target=lambda: [queries.append(dns.recvfrom(512)) for _ in iter(int, 1)],
                 daemon=True).start()
try:
    client().get("http://silent-dns.example/")
    print("answered")
except httpx.ConnectTimeout as error:
    print(f"gave up while the DNS server held {len(queries)} queries: {error}")
sys.stdout.flush()
os._exit(0)  # not waiting for the resolver's thread, which glibc holds 30 s
"""


@pytest.fixture
def silent_dns_namespace():
    name = f"skillo-dns-{os.getpid()}"
    folder = Path("/etc/netns") / name
    folder.mkdir(parents=True)
    (folder / "resolv.conf").write_text("nameserver 127.0.0.1\noptions timeout:30 attempts:1\n")
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", name, "ip", "link", "set", "lo", "up"], check=True)
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)
        (folder / "resolv.conf").unlink()
        folder.rmdir()


def test_a_fetch_gives_up_on_a_dns_server_that_never_answers(silent_dns_namespace):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "skillo.settings.test"}
    done = subprocess.run(
        ["ip", "netns", "exec", silent_dns_namespace, sys.executable, "-c", FETCH],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert said.startswith("gave up while the DNS server held"), said
    assert "held 0 queries" not in said  # it asked the silent server, and stopped waiting
    assert "resolving silent-dns.example timed out" in said
