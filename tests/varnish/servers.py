"""A real varnishd (deploy/varnish/skillo.vcl) in front of a real gunicorn, for tests.

Both are plain child processes on 127.0.0.1 with free ports, stopped by their process
ids. Varnish's working folder (``-n``) and its backend.vcl (the app server's port, the
purgers ACL) are in a temporary folder.
"""

import contextlib
import http.client
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
VCL_FOLDER = ROOT / "deploy" / "varnish"
LAUNCHER = VCL_FOLDER / "serve.sh"


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def text(self):
        return self.body.decode(errors="replace")

    @property
    def cache(self):
        return self.headers.get("X-Cache")

    @property
    def copy(self):
        """The stored copy Varnish served (the second number of X-Varnish on a hit)."""
        return self.headers.get("X-Varnish", "").split(" ")[-1]


def get(base, path, method="GET", headers=None, source=None):
    """The answer to one request; ``source``: the client's own address (on loopback)."""
    address = urlsplit(base)
    conn = http.client.HTTPConnection(
        address.hostname, address.port, timeout=30, source_address=source and (source, 0)
    )
    try:
        conn.request(method, path, headers=headers or {})
        answer = conn.getresponse()
        return Response(answer.status, answer.headers, answer.read())
    finally:
        conn.close()


def find_varnishd():
    return shutil.which("varnishd") or next(
        (path for path in ("/usr/sbin/varnishd",) if os.access(path, os.X_OK)), None
    )


def wait_for(url, process, what, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).close()
            return
        except urllib.error.HTTPError:
            return  # It answers (a 503 from Varnish with no backend is an answer).
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not answer on {url} within {timeout} s")


def stop(process):
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


class AppServer:
    """gunicorn on a port of its own; ``stop()`` and ``start()`` again on the same port."""

    def __init__(self, env, folder, workers=1):
        self.env, self.folder, self.workers = env, Path(folder), workers
        self.port = free_port()
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        log = open(self.folder / "gunicorn.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "skillo.wsgi:application",
                "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
                "--no-control-socket",
            ],
            cwd=ROOT, env=self.env, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        wait_for(f"{self.url}/robots.txt", self.process, "gunicorn")
        return self

    def stop(self):
        stop(self.process)
        self.process = None


class Varnish:
    """varnishd in the foreground (-F) with skillo.vcl, in front of ``backend_port`` (a
    port, or a list of them: each a backend of the director)."""

    def __init__(self, varnishd, folder, backend_port, port=None):
        self.varnishd, self.folder, self.backend_port = varnishd, Path(folder), backend_port
        self.port = port or free_port()
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "backend.vcl").write_text(backend_vcl(self.backend_port))
        log = open(self.folder / "varnishd.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.process = subprocess.Popen(
            [
                self.varnishd, "-F", "-n", str(self.folder / "work"),
                "-a", f"127.0.0.1:{self.port}",
                "-f", str(VCL_FOLDER / "skillo.vcl"),
                "-p", f"vcl_path={self.folder}:{VCL_FOLDER}",
                "-s", "malloc,64m",
                # No privilege separation: the temporary folder is this user's alone.
                "-j", "none",
            ],
            stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        try:
            wait_for(f"{self.url}/robots.txt", self.process, "varnishd")
        except RuntimeError as error:
            raise RuntimeError(f"{error}: {(self.folder / 'varnishd.log').read_text()}") from None
        return self

    def stop(self):
        stop(self.process)
        self.process = None


def backend_vcl(ports, purgers=("127.0.0.1", "::1"), tls_proxies=()):
    """As deploy/varnish/serve.sh writes it: a backend per port in the director, each
    probed if there are several."""
    ports = [ports] if isinstance(ports, int) else ports
    probed = len(ports) > 1
    backends = "".join(
        f'backend app_{n} {{\n    .host = "127.0.0.1";\n    .port = "{port}";\n'
        "    .connect_timeout = 1s;\n    .first_byte_timeout = 30s;\n"
        f"{'    .probe = skillo_alive;' + chr(10) if probed else ''}}}\n"
        for n, port in enumerate(ports, 1)
    )
    if probed:
        backends = 'include "probe.vcl";\n' + backends
    added = "".join(f"    app.add_backend(app_{n});\n" for n in range(1, len(ports) + 1))
    acl = "".join(f'    "{address}";\n' for address in purgers)
    trusted = "".join(f'    "{address}";\n' for address in tls_proxies)
    return (
        f"{backends}sub vcl_init {{\n{added}}}\n\nacl purgers {{\n{acl}}}\n"
        f"acl tls_proxies {{\n{trusted}}}\n"
    )


def as_from_a_terminal():
    """SIGINT as a terminal's Ctrl-C finds it. A make run as a background job (CI's, a
    script's `make test &`) ignores SIGINT, every process under it inherits that, and a
    shell cannot trap a signal ignored when it started: the launcher would never hear
    the Ctrl-C the test sends it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Launcher:
    """deploy/varnish/serve.sh as `make serve VARNISH=1` runs it: varnishd on a free port
    (and, with ``tls``, a PROXY-protocol address for a TLS terminator) in front of
    ``command``, by default gunicorn on another free port with ``env``.

    Every process it starts inherits a marker in its environment, so ``processes()``
    finds them all, those left behind included; ``stop()`` kills any that are.
    """

    def __init__(self, env, folder, command=None, tls=False):
        self.env, self.folder = env, Path(folder)
        self.port, self.backend_port = free_port(), free_port()
        self.tls_port = free_port() if tls else None
        self.command = command or [
            sys.executable, "-m", "gunicorn", "skillo.wsgi:application",
            "--bind", f"127.0.0.1:{self.backend_port}", "--workers", "1",
            "--no-control-socket",
        ]  # fmt: skip
        self.marker = f"SKILLO_TEST_LAUNCHER={uuid.uuid4().hex}".encode()
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_file(self):
        return self.folder / "serve.log"

    def log(self):
        return self.log_file.read_text(errors="replace")

    def start(self, wait=True):
        self.folder.mkdir(parents=True, exist_ok=True)
        name, value = self.marker.decode().split("=")
        env = {
            **self.env, name: value, "VARNISH_WORKDIR": str(self.folder / "varnish"),
            "VARNISH_STORAGE": "64m",
            "VARNISH_TLS_BIND": f"127.0.0.1:{self.tls_port}" if self.tls_port else "",
        }  # fmt: skip
        log = open(self.log_file, "ab")  # noqa: SIM115 (the child keeps it)
        self.process = subprocess.Popen(
            [str(LAUNCHER), f"127.0.0.1:{self.port}", f"127.0.0.1:{self.backend_port}",
             *self.command],
            cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True,
            preexec_fn=as_from_a_terminal,
        )  # fmt: skip
        log.close()
        if wait:
            try:
                url = f"http://127.0.0.1:{self.backend_port}/robots.txt"
                wait_for(url, self.process, "the launcher's app server")
                wait_for(f"{self.url}/robots.txt", self.process, "the launcher's varnishd")
            except RuntimeError as error:
                self.stop()
                raise RuntimeError(f"{error}: {self.log()}") from None
        return self

    def processes(self):
        """{pid: command line} of every live process the launcher started, itself too."""
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                environ = (entry / "environ").read_bytes().split(b"\0")
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue  # Gone, or not ours to read.
            if self.marker in environ:
                found[int(entry.name)] = command.decode(errors="replace")
        return found

    def app_master(self):
        """The app server's process id: the launcher's child running ``command``."""
        for pid, command in self.processes().items():
            parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
            if int(parent) == self.process.pid and "gunicorn" in command:
                return pid
        return None

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        for pid in self.processes():  # Left behind (a test failed): never outlive the test.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
