"""Handing e-mails to the mail server so that each (issue, subscriber) pair is sent once,
also when a worker is killed mid-batch.

Over SMTP the delivery is marked sent in the database after the message's data has been
written and before the dot that ends it: a worker killed before the mark's commit leaves
the server a transaction without its end, which it discards (RFC 5321, 4.1.1.4), and the
delivery queued for the next try. The commit and the dot are the two halves of one step
that two servers cannot make atomic, so they go out back to back (commit_then): on
PostgreSQL the COMMIT is written to its socket, then the dot to the mail server's, and
only then are both answers read, so that a kill between them falls in the few
microseconds between two writes rather than in a round trip to the database. A worker
killed in that instant still loses that message (it is marked sent); marking after the
mail server's answer would turn each such loss into a message sent twice, and a
newsletter sent twice is the worse error. bench/newsletter.py measures it with a worker
killed every 5 s (docs/benchmarks.md, "Newsletter sending"). On SQLite the commit is a
write to its log in this process; quick_marks keeps an fsync and a checkpoint out of the
time between that write and the dot.

Through any other backend (the console in development, a provider's API through
django-anymail) the mail is sent through Django and marked sent just after: a kill
between the two sends it again."""

import re
import select
import smtplib
import socket
import ssl
from contextlib import contextmanager

from django.conf import settings
from django.core.mail import get_connection
from django.db import connections, transaction
from django.utils.module_loading import import_string

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"


def smtp_options():
    """The default mailer's SMTP options, or None when it is not Django's SMTP backend."""
    mailer = settings.MAILERS["default"]
    backend = import_string(mailer["BACKEND"])
    smtp = import_string(SMTP_BACKEND)
    if not issubclass(backend, smtp):
        return None
    return mailer.get("OPTIONS", {})


class Refused(Exception):
    def __init__(self, code, text):
        super().__init__(f"{code} {text}")
        self.code, self.text = code, text

    @property
    def permanent(self):
        return self.code >= 500


def wire_format(data):
    data = re.sub(rb"\r\n|\n|\r", b"\r\n", data)
    if not data.endswith(b"\r\n"):
        data += b"\r\n"
    return re.sub(rb"(?m)^\.", b"..", data)  # a line's leading dot doubled (4.5.2)


class SMTPTransport:
    raw = True  # takes the message as bytes (signed: newsletters.compose)

    def __init__(self, options):
        self.options = options
        self.smtp = None

    def __enter__(self):
        self.connect()
        return self

    def __exit__(self, *exc_info):
        self.close()

    def connect(self):
        options = self.options
        host, port = options.get("host", "localhost"), int(options.get("port", 25))
        timeout = options.get("timeout", 30)
        if options.get("use_ssl"):
            self.smtp = smtplib.SMTP_SSL(
                host, port, timeout=timeout, context=ssl.create_default_context()
            )
        else:
            self.smtp = smtplib.SMTP(host, port, timeout=timeout)
        # Each message is four exchanges: without this, the small writes between them wait
        # out delayed acknowledgements (Nagle), 40 ms a message where 2 ms do.
        self.smtp.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.smtp.ehlo()
        if options.get("use_tls"):
            self.smtp.starttls(context=ssl.create_default_context())
            self.smtp.ehlo()
        if options.get("username"):
            self.smtp.login(options["username"], options.get("password", ""))

    def close(self):
        if self.smtp is not None:
            try:
                self.smtp.quit()
            except (smtplib.SMTPException, OSError):
                self.smtp.close()
            self.smtp = None

    def abandon(self):
        """Drop the connection in the middle of a message: the server discards it."""
        self.smtp.close()
        self.smtp = None
        self.connect()

    def send(self, sender, recipient, data, mark_sent):
        """Send ``data`` (the whole message, bytes) to ``recipient``. ``mark_sent(end)``
        is called between its data and the dot that ends it; it calls ``end()`` (which
        writes the dot) as its mark is committed, or returns False when the message
        must not go after all. Raises Refused when the server refuses it."""
        smtp = self.smtp
        code, text = smtp.mail(sender)
        if code != 250:
            smtp.rset()
            raise Refused(code, text.decode(errors="replace"))
        code, text = smtp.rcpt(recipient)
        if code not in (250, 251):
            smtp.rset()
            raise Refused(code, text.decode(errors="replace"))
        smtp.putcmd("data")
        code, text = smtp.getreply()
        if code != 354:
            smtp.rset()
            raise Refused(code, text.decode(errors="replace"))
        smtp.send(wire_format(data))
        ended = False

        def end():
            nonlocal ended
            smtp.send(b".\r\n")
            ended = True

        try:
            go = mark_sent(end)
        except BaseException:
            if not ended:
                self.abandon()
            raise
        if not go:
            self.abandon()
            return False
        code, text = smtp.getreply()
        if code != 250:
            raise Refused(code, text.decode(errors="replace"))
        return True


class DjangoTransport:
    """Any other mail backend: send, then mark."""

    raw = False  # takes Django's EmailMessage

    def __enter__(self):
        self.connection = get_connection()
        self.connection.open()
        return self

    def __exit__(self, *exc_info):
        self.connection.close()

    def send(self, sender, recipient, message, mark_sent):
        message.connection = self.connection
        message.send()
        return mark_sent(lambda: None)


def transport():
    options = smtp_options()
    return SMTPTransport(options) if options is not None else DjangoTransport()


@contextmanager
def quick_marks(using="default"):
    """On SQLite, for a batch's marks: a commit that returns once its log write is made
    (synchronous=NORMAL: it survives a killed process, not a power cut, which would send
    the marked messages again) and no checkpoint inside it; the log is checkpointed
    after the batch. The settings' FULL waits for an fsync between the commit and the
    dot, milliseconds in which a kill loses the message."""
    connection = connections[using]
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield  # in a caller's transaction (a test's) the marks commit with it
        return
    connection.ensure_connection()
    with connection.cursor() as cursor:
        (synchronous,) = cursor.execute("PRAGMA synchronous").fetchone()
        (pages,) = cursor.execute("PRAGMA wal_autocheckpoint").fetchone()
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA wal_autocheckpoint=0")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA synchronous={int(synchronous)}")
            cursor.execute(f"PRAGMA wal_autocheckpoint={int(pages)}")
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")


def commit_then(queryset, end, **values):
    """``queryset.update(**values)``; when that changed one row, commit it and call
    ``end()`` with as little as can be between the two. False, and no call, otherwise."""
    connection = connections[queryset.db]
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        with transaction.atomic(using=queryset.db):
            if queryset.update(**values) != 1:
                return False
            _commit_beside(connection.connection.pgconn, end)
        return True  # Django's commit on the way out found the transaction over
    # SQLite commits in the process, a write to its log just before end(); inside a
    # caller's transaction (a test's) there is no commit of ours to make.
    if queryset.update(**values) != 1:
        return False
    end()
    return True


def _commit_beside(pgconn, end):
    """COMMIT written to PostgreSQL, ``end()`` called, then COMMIT's answer read
    (psycopg's libpq interface: the connection is in non-blocking mode)."""
    from psycopg import pq

    pgconn.send_query(b"COMMIT")
    while pgconn.flush():
        select.select([], [pgconn.socket], [])
    end()
    error = None
    while True:
        while pgconn.is_busy():
            select.select([pgconn.socket], [], [])
            pgconn.consume_input()
        result = pgconn.get_result()
        if result is None:
            break
        if result.status != pq.ExecStatus.COMMAND_OK:
            error = (result.error_message or b"").decode(errors="replace")
    if error:
        # The message has gone; its mark has not: the next try sends it again.
        raise ConnectionError(f"COMMIT failed after the message was handed over: {error}")
