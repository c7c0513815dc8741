"""Shared pieces of bench/: a throwaway PostgreSQL cluster, gunicorn, wrk, manage.py.

Everything listens on 127.0.0.1 only, every child process has a time limit, and every
server started here is stopped by its process id when the ``with`` block ends (also on
Ctrl-C or SIGTERM, see ``exit_cleanly_on_sigterm``).
"""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRK_SCRIPT = Path(__file__).resolve().parent / "wrk.lua"
SETTINGS = "bench.settings"


class BenchError(Exception):
    """A step of the benchmark failed; the message says which."""


def log(message):
    # Progress goes to stderr: stdout holds only the results.
    print(message, file=sys.stderr, flush=True)


def log_tail(path, lines=40):
    """The end of a server log, after a failure (the log goes with the temp folder)."""
    if Path(path).exists():
        tail = Path(path).read_text(errors="replace").splitlines()[-lines:]
        log(f"Last lines of {Path(path).name}:\n" + "\n".join(tail))


def exit_cleanly_on_sigterm():
    """Turn SIGTERM into SystemExit, so ``with`` blocks stop the servers they started."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tags_for(articles):
    """Tag count for a database size: 500 at 1,000 articles, 5,000 from 10,000 on."""
    return min(5000, max(50, articles // 2))


def django_env(database_url, static_root, **extra):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DATABASE_URL": database_url,
        "STATIC_ROOT": str(static_root),
        "PYTHONPATH": str(ROOT),
        **extra,
    }
    return env


def manage(env, *args, timeout):
    """Run ``manage.py`` with its output on our stderr."""
    command = [sys.executable, "manage.py", *args]
    try:
        subprocess.run(command, cwd=ROOT, env=env, check=True, timeout=timeout, stdout=sys.stderr)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        raise BenchError(f"manage.py {' '.join(args)} failed: {error}") from error


def demo_site(work):
    """The environment of a fresh SQLite site in ``work`` with the demo content (what
    `make run` shows), its static files collected and its media kept there too."""
    env = django_env(
        f"sqlite:///{work / 'db.sqlite3'}", work / "static", MEDIA_ROOT=str(work / "media")
    )
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
    manage(env, "load_demo", timeout=600)
    return env


def prepare_database(env, articles, tags, timeout):
    """Migrate and seed a fresh database; returns the seconds seeding took."""
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    started = time.perf_counter()
    if articles:
        manage(
            env, "seed_synthetic", "--articles", str(articles), "--tags", str(tags),
            timeout=timeout,
        )  # fmt: skip
    return time.perf_counter() - started


def run_json(env, module, *args, timeout):
    """Run ``python -m module`` in the Django environment and parse its JSON stdout."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", module, *args],
            cwd=ROOT, env=env, check=True, timeout=timeout, stdout=subprocess.PIPE,
        )  # fmt: skip
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        raise BenchError(f"{module} failed: {error}") from error
    return json.loads(result.stdout)


def find_postgres():
    """The folder holding initdb and pg_ctl, or None."""
    initdb = shutil.which("initdb")
    candidates = [os.path.dirname(initdb)] if initdb else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if all(os.access(os.path.join(folder, tool), os.X_OK) for tool in ("initdb", "pg_ctl")):
            return folder
    return None


class PostgresCluster:
    """A throwaway cluster on 127.0.0.1 (as tests/with-postgres.sh makes one)."""

    def __init__(self):
        self.bin = find_postgres()
        if self.bin is None:
            raise BenchError("PostgreSQL server not found (initdb, pg_ctl).")
        self.root = None
        self.port = None

    def __enter__(self):
        self.root = tempfile.mkdtemp(prefix="skillo-bench-pg-")
        if os.geteuid() == 0:
            # initdb refuses to run as root.
            shutil.chown(self.root, "postgres")
        self.port = free_port()
        try:
            self._pg(
                "initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C.UTF-8", "--no-sync",
            )  # fmt: skip
            self._pg(
                "pg_ctl", "-D", self.data, "-l", f"{self.root}/server.log", "-w", "-t", "60",
                "-o", f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
                "-c fsync=off -c full_page_writes=off", "start",
            )  # fmt: skip
        except BaseException:
            self.__exit__(None, None, None)
            raise
        log(f"PostgreSQL cluster on 127.0.0.1:{self.port} ({self.root})")
        return self

    def __exit__(self, *exc_info):
        if os.path.exists(f"{self.data}/postmaster.pid"):
            try:
                self._pg("pg_ctl", "-D", self.data, "stop", "-m", "immediate")
            except BenchError as error:
                log(f"Could not stop PostgreSQL: {error}")
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def data(self):
        return f"{self.root}/data"

    def _pg(self, tool, *args):
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        command = [*as_postgres, os.path.join(self.bin, tool), *args]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if result.returncode:
            raise BenchError(f"{tool} failed: {result.stderr or result.stdout}")

    def create_database(self, name):
        """A new, empty database; returns its DATABASE_URL."""
        import psycopg

        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True, connect_timeout=10) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
            connection.execute(f'CREATE DATABASE "{name}"')
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"


def stop_process_group(process):
    """Stop a server started in a process group of its own (and its children): politely,
    then by force after 15 s. Nothing to do if it never started or has exited."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


class Gunicorn:
    """The production server (bench settings) on a free port of 127.0.0.1."""

    def __init__(self, env, log_path, workers=2):
        self.env, self.log_path, self.workers = env, log_path, workers
        self.port = free_port()
        self.process = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        command = [
            sys.executable, "-m", "gunicorn", "skillo.wsgi:application",
            "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
            # gunicorn 27 shares one control socket between instances by default.
            "--no-control-socket", "--log-level", "warning",
        ]  # fmt: skip
        with open(self.log_path, "ab") as server_log:
            # Its own process group, so stopping it stops its workers too.
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=server_log, stderr=server_log,
                start_new_session=True,
            )  # fmt: skip
        try:
            self._wait_until_up(timeout=60)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc_info):
        stop_process_group(self.process)

    def _wait_until_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BenchError(f"gunicorn exited; see {self.log_path}")
            try:
                self.get("/robots.txt")
                return
            except (OSError, BenchError):
                time.sleep(0.2)
        raise BenchError(f"gunicorn did not answer within {timeout} s; see {self.log_path}")

    def get(self, path, timeout=60):
        """The body of ``path``; anything but 200 is an error."""
        try:
            with urllib.request.urlopen(self.base_url + path, timeout=timeout) as response:
                if response.status != 200:
                    raise BenchError(f"GET {path}: {response.status}")
                return response.read()
        except urllib.error.HTTPError as error:
            raise BenchError(f"GET {path}: {error.code}; see {self.log_path}") from error


def wrk(url, duration, connections, threads, paths=(), timeout=5, headers=()):
    """Run wrk against ``url`` (or spread over ``paths`` on its host); returns the
    figures of bench/wrk.lua, with requests per second added. ``headers``: "Name: value"
    strings sent with every request."""
    command = [
        "wrk", f"--threads={threads}", f"--connections={connections}",
        f"--duration={max(1, round(duration))}s", f"--timeout={timeout}s",
        *(f"--header={header}" for header in headers),
        f"--script={WRK_SCRIPT}", url, *(["--", *paths] if paths else []),
    ]  # fmt: skip
    if shutil.which("wrk") is None:
        raise BenchError("wrk not found: apt-get install -y wrk")
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, check=True, timeout=duration + 60
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as error:
        raise BenchError(f"wrk failed: {error}") from error
    line = next(
        (line for line in result.stdout.splitlines() if line.startswith("WRK_RESULT ")), None
    )
    if line is None:
        raise BenchError(f"wrk printed no result:\n{result.stdout}{result.stderr}")
    figures = json.loads(line.removeprefix("WRK_RESULT "))
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    figures["socket_errors"] = sum(figures[k] for k in ("connect", "read", "write", "timeout"))
    return figures


class _PlainProcess:
    """A server run in the foreground as a child process of its own group, stopped by
    its process id; ``command()`` and ``prepare()`` say what and how."""

    name = "server"

    def __init__(self, folder):
        self.folder = Path(folder)
        self.port = free_port()
        self.process = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self):
        return self.folder / f"{self.name}.log"

    def __enter__(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        command = self.prepare()
        with open(self.log_path, "ab") as server_log:
            self.process = subprocess.Popen(
                command, stdout=server_log, stderr=server_log, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log_tail(self.log_path)
                raise BenchError(f"{self.name} exited; see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.__exit__(None, None, None)
        raise BenchError(f"{self.name} did not listen within 60 s; see {self.log_path}")

    def __exit__(self, *exc_info):
        stop_process_group(self.process)


def find_varnishd():
    found = shutil.which("varnishd")
    return found or ("/usr/sbin/varnishd" if os.access("/usr/sbin/varnishd", os.X_OK) else None)


def find_nginx():
    found = shutil.which("nginx")
    return found or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)


class Varnish(_PlainProcess):
    """varnishd (Debian's, with deploy/varnish/skillo.vcl) in front of ``backend_port``,
    64 MB of memory for its cache; its working folder in ``folder``."""

    name = "varnishd"

    def __init__(self, folder, backend_port):
        super().__init__(folder)
        self.backend_port = backend_port

    def prepare(self):
        varnishd = find_varnishd()
        if varnishd is None:
            raise BenchError("varnishd not found: apt-get install -y varnish varnish-modules")
        (self.folder / "backend.vcl").write_text(
            f'backend skillo {{ .host = "127.0.0.1"; .port = "{self.backend_port}"; }}\n'
            'acl purgers { "127.0.0.1"; }\nacl tls_proxies { }\n'
        )
        vcl = ROOT / "deploy" / "varnish"
        return [
            varnishd, "-F", "-n", str(self.folder / "work"), "-a", f"127.0.0.1:{self.port}",
            "-f", str(vcl / "skillo.vcl"), "-p", f"vcl_path={self.folder}:{vcl}",
            "-s", "malloc,64m", "-j", "none",
        ]  # fmt: skip


class Nginx(_PlainProcess):
    """Debian's nginx serving the files of ``folder``/www (with their .gz copies, as
    gzip_static does), daemon off, its pid, logs and temporary files in ``folder``."""

    name = "nginx"

    def __init__(self, folder, workers=None):
        super().__init__(folder)
        self.workers = workers or os.cpu_count() or 1

    @property
    def root(self):
        return self.folder / "www"

    def prepare(self):
        nginx = find_nginx()
        if nginx is None:
            raise BenchError("nginx not found: apt-get install -y nginx")
        folder = self.folder
        # As root its workers would run as nobody, who cannot read a private temp folder.
        user = "user root;" if os.geteuid() == 0 else ""
        temp = " ".join(
            f"{kind}_temp_path {folder}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (folder / "nginx.conf").write_text(
            f"{user} daemon off; worker_processes {self.workers}; pid {folder}/nginx.pid;\n"
            f"error_log {folder}/error.log warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{ access_log off; {temp} sendfile on; tcp_nopush on;\n"
            "  gzip_static on; default_type text/html; keepalive_requests 1000000;\n"
            f"  server {{ listen 127.0.0.1:{self.port}; root {self.root}; }} }}\n"
        )
        return [
            nginx,
            "-c",
            str(folder / "nginx.conf"),
            "-p",
            str(folder),
            "-e",
            f"{folder}/error.log",
        ]
