"""The production stack as the README recommends it, started once for a test run:
`make serve VARNISH=1` (Varnish in front of several gunicorn processes, and a background
worker) with the production settings, on a PostgreSQL cluster, with Redis as the shared
cache and the task queue, a real SMTP server, and a public host name: SITE_URL is
https://news.example.test, reached as a TLS terminator reaches Varnish (its PROXY
address, which Varnish serves as https).
"""

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from tests.mail_server import MailServer
from tests.postgres_server import Cluster
from tests.reader import Reader
from tests.redis_server import RedisServer, free_port
from tests.waiting import poll

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "news.example.test"
SITE_URL = f"https://{HOST}"
PROCESSES = 3
BEACONS_PER_MINUTE = 20


class Deployment:
    def __init__(self, folder, static, root=ROOT):
        self.folder, self.root = Path(folder), root
        self.static = static
        self.port, self.tls_port, self.backend_port = free_port(), free_port(), free_port()
        self.marker = f"SKILLO_TEST_DEPLOYMENT={uuid.uuid4().hex}"
        self.cluster, self.redis, self.mail, self.process = None, None, None, None

    @property
    def env(self):
        name, value = self.marker.split("=")
        env = {
            **os.environ,
            name: value,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
            "SECRET_KEY": self.secret,
            "SITE_URL": SITE_URL,
            "ALLOWED_HOSTS": f"{HOST},127.0.0.1",
            "SECURE_SSL_REDIRECT": "true",
            "DATABASE_URL": self.cluster.url,
            "CACHE_URL": self.redis.url,
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.mail.port),
            "STATIC_ROOT": str(self.folder / "static"),
            "MEDIA_ROOT": str(self.folder / "media"),
            "WEB_CONCURRENCY": str(PROCESSES),
            "VARNISH_WORKDIR": str(self.folder / "varnish"),
            "VARNISH_STORAGE": "64m",
            "VARNISH_TLS_BIND": f"127.0.0.1:{self.tls_port}",
            # What make serve VARNISH=1 sets for its own processes; manage.py run beside
            # them (an import, an editor's command) needs it too, to purge Varnish.
            "VARNISH_PURGE_URLS": f"http://127.0.0.1:{self.port}",
            "TRUSTED_PROXY_COUNT": "1",
            # Low enough for a test to cross: beacons an address may send a minute.
            "READERSHIP_PER_MINUTE": str(BEACONS_PER_MINUTE),
            # The followers' servers of these tests are on loopback (the documented
            # switch for tests; a deployment keeps the refusal).
            "ALLOW_PRIVATE_ADDRESSES": "true",
        }
        # Nor the flags of the make test running these tests (its jobs, its output held
        # until a target ends): make serve is started as a person types it.
        for name in ("LOCAL_TRIAL", "EMAIL_BACKEND", "PAGE_CACHE_PURGE_LOG", "DEBUG",
                     "DJANGO_ALLOW_ASYNC_UNSAFE", "MAKEFLAGS",
                     "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):  # fmt: skip
            env.pop(name, None)
        return env

    def start(self):
        self.secret = secrets.token_urlsafe(60)
        self.cluster = Cluster()
        self.cluster.create()
        self.redis = RedisServer()
        self.redis.start()
        self.mail = MailServer(self.folder / "mail")
        # The static files as production collects them, with the digest of their sources:
        # make serve finds nothing changed and does not collect again.
        shutil.copytree(self.static, self.folder / "static")
        self.manage("migrate", "--noinput")
        self.manage("load_demo")
        log = open(self.folder / "serve.log", "ab")  # noqa: SIM115 (the child keeps it)
        self.process = subprocess.Popen(
            ["make", "--no-print-directory", "serve", "VARNISH=1",
             f"SERVE_BIND=127.0.0.1:{self.port}",
             f"VARNISH_BACKEND_BIND=127.0.0.1:{self.backend_port}"],
            cwd=self.root, env=self.env, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        up = poll(self._answers, 240, 0.2)
        if not up:
            raise RuntimeError(f"make serve VARNISH=1 did not answer: {self.log()[-3000:]}")
        return self

    def _answers(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"make serve exited: {self.log()[-3000:]}")
        try:
            return self.reader().get("/robots.txt").status == 200
        except OSError:
            return False

    def log(self):
        return (self.folder / "serve.log").read_text(errors="replace")

    def reader(self, client="203.0.113.7"):
        """A reader's browser on https://news.example.test, through Varnish."""
        return Reader(SITE_URL, port=self.tls_port, proxied=True, client=client)

    def manage(self, *args):
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=self.root, env=self.env, check=True,
            capture_output=True, text=True, timeout=300,
        ).stdout  # fmt: skip

    def processes(self):
        """Every live process started for the deployment (they carry its marker)."""
        found, marker = [], self.marker.encode()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if marker in (entry / "environ").read_bytes().split(b"\0"):
                        found.append(int(entry.name))
        return found

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=60)
        for pid in self.processes():  # Left behind: never outlive the run.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            if self.mail is not None:
                self.mail.stop()
        if self.redis is not None:
            self.redis.close()
        if self.cluster is not None:
            self.cluster.remove()
