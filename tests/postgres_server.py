"""A throwaway PostgreSQL cluster of a test's own (initdb and pg_ctl, as the postgres
user when the tests run as root), for tests that stop, restart or deploy on it."""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .redis_server import free_port


def postgres_bin():
    found = shutil.which("initdb")
    # Debian links initdb and pg_ctl into the PATH, but not createdb: use their real folder.
    candidates = [Path(found).resolve().parent] if found else []
    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
    usable = [d for d in candidates if (d / "initdb").exists() and (d / "pg_ctl").exists()]
    return usable[0] if usable else None


class Cluster:
    """A throwaway PostgreSQL cluster on 127.0.0.1 (as root, run as the postgres user)."""

    def __init__(self):
        self.bin = postgres_bin()
        self.root = Path(tempfile.mkdtemp(prefix="skillo-postgres-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(self.root, "postgres")
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/skillo"

    def run(self, *args):
        subprocess.run([*self.as_postgres, *args], check=True, capture_output=True, timeout=60)

    def create(self):
        self.run(
            self.bin / "initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync",
        )  # fmt: skip
        self.start()
        self.run(
            self.bin / "createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
            "skillo",
        )  # fmt: skip

    def start(self):
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off"
        self.run(
            self.bin / "pg_ctl", "-D", self.data, "-l", self.root / "server.log", "-w",
            "-o", options, "start",
        )  # fmt: skip

    def stop(self):
        # Fast: open connections are cut, as in a crash or failover.
        self.run(self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop")

    def postmaster_pid(self):
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def remove(self):
        subprocess.run(
            [*self.as_postgres, self.bin / "pg_ctl", "-D", self.data, "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(self.root, ignore_errors=True)


class Replica(Cluster):
    """A streaming replica of ``primary``: its base backup, following it."""

    def __init__(self, primary):
        super().__init__()
        self.primary = primary

    def create(self):
        self.run(
            self.bin / "pg_basebackup", "-h", "127.0.0.1", "-p", str(self.primary.port),
            "-U", "postgres", "-D", self.data, "-R", "-X", "stream", "--checkpoint=fast",
        )  # fmt: skip
        self.start()
