"""A real varnishd (deploy/varnish/skillo.vcl) in front of a real gunicorn, for tests.

Both are plain child processes on 127.0.0.1 with free ports, stopped by their process
ids. Varnish's working folder (``-n``) and its backend.vcl (the app server's port, the
purgers ACL) are in a temporary folder.
"""

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parent.parent.parent
VCL_FOLDER = ROOT / "deploy" / "varnish"


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
    """varnishd in the foreground (-F) with skillo.vcl, in front of ``backend_port``."""

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


def backend_vcl(port, purgers=("127.0.0.1", "::1")):
    acl = "".join(f'    "{address}";\n' for address in purgers)
    return (
        f'backend skillo {{\n    .host = "127.0.0.1";\n    .port = "{port}";\n'
        "    .connect_timeout = 1s;\n    .first_byte_timeout = 30s;\n}\n\n"
        f"acl purgers {{\n{acl}}}\n"
    )
