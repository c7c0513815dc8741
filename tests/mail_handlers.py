"""aiosmtpd handlers for tests/mail_server.py, in a module of their own so that the
server's process imports no more than it needs."""

import os
import signal
from pathlib import Path

from aiosmtpd.handlers import Mailbox


class KillingMailbox(Mailbox):
    """aiosmtpd's maildir handler that kills a process as it names a recipient, when the
    file ``kill`` beside the maildir holds the process's id (emptied then).

    The sender is then stopped while it waits for the server's answer to RCPT: before its
    message is sent or marked sent. A kill timed from outside the server lands anywhere,
    sometimes, on a busy machine, between a mark's commit and the message's final dot,
    the one moment newsletters.sending leaves (a message lost there is a kill's doing,
    not a worker's)."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        order = Path(self.mail_dir).with_name("kill")
        try:
            pid = int(order.read_text() or 0)
        except (OSError, ValueError):
            pid = 0
        if pid:
            order.write_text("")
            os.kill(pid, signal.SIGKILL)
        envelope.rcpt_tos.append(address)
        return "250 OK"
