"""The production stack as the README recommends it, started once for a test run:
`make serve VARNISH=1` (Varnish in front of several gunicorn processes, and a background
worker) with the production settings, on a PostgreSQL cluster, with Redis as the shared
cache, a real SMTP server, and a public host name: SITE_URL is
https://news.example.test, reached as a TLS terminator reaches Varnish (its PROXY
address, which Varnish serves as https).

With ``second`` (another checkout of the code, at another path), it is two app machines
as docs/scaling.md sets them up: machine A runs `make serve VARNISH=1` with both machines
in Varnish's director (VARNISH_BACKENDS), machine B `make serve` on its own port and
folders, purging A's Varnish; both on the PostgreSQL primary and a streaming replica
(DATABASE_REPLICA_URLS), with their media in a bucket on an S3 server.
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
from tests.postgres_server import Cluster, Replica
from tests.reader import Reader
from tests.redis_server import RedisServer, free_port
from tests.s3_server import S3Server
from tests.waiting import poll

ROOT = Path(__file__).resolve().parent.parent.parent
HOST = "news.example.test"
SITE_URL = f"https://{HOST}"
PROCESSES = 3
BEACONS_PER_MINUTE = 20


def copy_of_checkout(folder):
    """The project's files as they are now (committed or not), with this checkout's
    virtual environment: another machine's checkout of the same code."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.split(b"\0")):
        source = ROOT / os.fsdecode(name)
        if source.is_file():  # Not a file deleted but still in git's index.
            target = folder / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)  # Its time too: make finds the venv up to date.
    (folder / ".venv").symlink_to(ROOT / ".venv")
    return folder


class Deployment:
    def __init__(self, folder, static, root=ROOT, second=None):
        self.folder, self.root, self.second = Path(folder), root, second
        self.static = static
        self.port = self.tls_port = self.backend_port = self.second_port = None
        self.marker = f"SKILLO_TEST_DEPLOYMENT={uuid.uuid4().hex}"
        self.cluster, self.redis, self.mail, self.process = None, None, None, None
        self.replica, self.s3, self.bucket, self.second_process = None, None, None, None

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
        if self.second:
            env |= {
                "VARNISH_BACKENDS": f"127.0.0.1:{self.backend_port},127.0.0.1:{self.second_port}",
                "DATABASE_REPLICA_URLS": self.replica.url,
                **self.s3.environ(self.bucket),
                # Each machine's requests in its own log (which one answered).
                "ACCESS_LOG": "-",
            }
        # Nor the flags of the make test running these tests (its jobs, its output held
        # until a target ends): make serve is started as a person types it.
        for name in ("LOCAL_TRIAL", "EMAIL_BACKEND", "DEBUG",
                     "DJANGO_ALLOW_ASYNC_UNSAFE", "MAKEFLAGS",
                     "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):  # fmt: skip
            env.pop(name, None)
        return env

    def start(self):
        self.secret = secrets.token_urlsafe(60)
        self.cluster = Cluster()
        self.cluster.create()
        if self.second:
            self.replica = Replica(self.cluster)
            self.replica.create()
            self.s3 = S3Server()
            self.bucket = self.s3.new_bucket()
        self.redis = RedisServer()
        self.redis.start()
        self.mail = MailServer(self.folder / "mail")
        # Chosen once the other servers listen: a free port is only free until taken.
        self.port, self.tls_port, self.backend_port = free_port(), free_port(), free_port()
        self.second_port = free_port() if self.second else None
        # The static files as production collects them, with the digest of their sources:
        # make serve finds nothing changed and does not collect again.
        shutil.copytree(self.static, self.folder / "static")
        self.manage("migrate", "--noinput")
        self.manage("load_demo")
        self.process = self._serve(
            self.root, "serve.log", self.env, "VARNISH=1", f"SERVE_BIND=127.0.0.1:{self.port}",
            f"VARNISH_BACKEND_BIND=127.0.0.1:{self.backend_port}",
        )  # fmt: skip
        if self.second:
            self.start_second()
        up = poll(self._answers, 240, 0.2)
        if not up:
            raise RuntimeError(f"make serve VARNISH=1 did not answer: {self.log()[-3000:]}")
        return self

    def start_second(self):
        """Machine B: make serve on its own checkout, port and static folder."""
        static = self.folder / "static-b"
        if not static.exists():
            shutil.copytree(self.static, static)
        env = {**self.env, "STATIC_ROOT": str(static)}
        self.second_process = self._serve(
            self.second, "serve-b.log", env, f"SERVE_BIND=127.0.0.1:{self.second_port}"
        )
        up = poll(lambda: self._machine_answers(self.second_port, "serve-b.log"), 240, 0.2)
        if not up:
            raise RuntimeError(f"machine B did not answer: {self.log('serve-b.log')[-3000:]}")

    def _serve(self, root, log_name, env, *arguments):
        log = open(self.folder / log_name, "ab")  # noqa: SIM115 (the child keeps it)
        process = subprocess.Popen(
            ["make", "--no-print-directory", "serve", *arguments],
            cwd=root, env=env, stdout=log, stderr=log, start_new_session=True,
        )  # fmt: skip
        log.close()
        return process

    def _answers(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"make serve exited: {self.log()[-3000:]}")
        try:
            return self.reader().get("/robots.txt").status == 200
        except OSError:
            return False

    def _machine_answers(self, port, log_name):
        if self.second_process.poll() is not None:
            raise RuntimeError(f"machine B's make serve exited: {self.log(log_name)[-3000:]}")
        try:
            return self.machine(port).get("/robots.txt").status == 200
        except OSError:
            return False

    def log(self, name="serve.log"):
        return (self.folder / name).read_text(errors="replace")

    def machine(self, port, client="203.0.113.7"):
        """A browser reaching one app machine's gunicorn directly, as Varnish does (it
        names the reader and says https)."""
        headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": client}
        return Reader(SITE_URL, port=port, client=client, headers=headers)

    def stop_second(self):
        """Machine B lost: its make serve and every process it started, killed."""
        os.killpg(self.second_process.pid, signal.SIGKILL)
        self.second_process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            for pid in self.processes(f"127.0.0.1:{self.second_port}"):
                os.kill(pid, signal.SIGKILL)

    def reader(self, client="203.0.113.7"):
        """A reader's browser on https://news.example.test, through Varnish."""
        return Reader(SITE_URL, port=self.tls_port, proxied=True, client=client)

    def manage(self, *args):
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=self.root, env=self.env, check=True,
            capture_output=True, text=True, timeout=300,
        ).stdout  # fmt: skip

    def processes(self, named=None):
        """Every live process started for the deployment (they carry its marker); with
        ``named``, those whose command line names it."""
        found, marker = [], self.marker.encode()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if marker in (entry / "environ").read_bytes().split(b"\0") and (
                        named is None or named.encode() in (entry / "cmdline").read_bytes()
                    ):
                        found.append(int(entry.name))
        return found

    def stop(self):
        for process in (self.process, self.second_process):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=60)
        for pid in self.processes():  # Left behind: never outlive the run.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            if self.mail is not None:
                self.mail.stop()
        if self.redis is not None:
            self.redis.close()
        if self.s3 is not None:
            self.s3.close()
        for cluster in (self.replica, self.cluster):
            if cluster is not None:
                cluster.remove()
