"""A real SMTP server (aiosmtpd) in its own process on 127.0.0.1, keeping what it is
sent in a maildir the test reads."""

import mailbox
import socket
import subprocess
import sys
from email.utils import parsedate_to_datetime
from pathlib import Path

import pytest

from .redis_server import free_port
from .waiting import until


def takes_connections(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


class MailServer:
    def __init__(self, folder, handler="aiosmtpd.handlers.Mailbox"):
        self.port = free_port()
        self.folder = folder
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{self.port}",
                "-c", handler, str(folder),
            ],
            cwd=Path(__file__).resolve().parent.parent,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        until(lambda: takes_connections(self.port), "the SMTP server takes connections", 30)

    def messages(self):
        """What it received, oldest first (email.message.Message objects)."""
        box = mailbox.Maildir(self.folder, create=False)
        return sorted(box, key=lambda message: parsedate_to_datetime(message["Date"]))

    def kill_at_next_recipient(self, pid):
        """With tests.mail_handlers.KillingMailbox: kill ``pid`` as it next names a
        recipient."""
        (self.folder.parent / "kill").write_text(str(pid))

    def to(self, address):
        return [m for m in self.messages() if address in m.get("To", "")]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def mail_server(tmp_path, settings):
    """Django's SMTP backend pointed at a real server of the test's own."""
    server = MailServer(tmp_path / "maildir")
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": server.port, "timeout": 5},
        }
    }
    yield server
    server.stop()
