"""A real redis-server (Debian's package) on 127.0.0.1 for the tests, stoppable at will."""

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    def __init__(self):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="skillo-redis-"))
        self.process = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self):
        # Data is saved on shutdown and loaded on start, like a real server restart:
        # what the cache held before an outage is still there after it.
        self.process = subprocess.Popen(
            [
                self.binary,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.dir),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "yes",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self):
        """Stop the server, saving its data to disk first (SHUTDOWN SAVE)."""
        if self.process is None:
            return
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(b"SHUTDOWN SAVE\r\n")
            sock.recv(16)
        self.process.wait(timeout=10)
        self.process = None

    def close(self):
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
