"""Handing e-mails to the mail server so that each (issue, subscriber) pair is sent once,
also when a worker is killed mid-batch.

Over SMTP the delivery is marked sent in the database after the message's data has been
written and before the dot that ends it: a worker killed before the mark leaves the
server a transaction without its end, which it discards (RFC 5321, 4.1.1.4), and the
delivery queued for the next try; killed after the mark, the dot is one write away and
the server takes the message. The one gap left is between the mark's commit and that
write of three bytes: a worker killed in that instant loses that message (it is marked
sent). bench/newsletter.py measured it, with a worker killed every 5 s: none sent twice;
lost, 1 of 100,000 on SQLite (about 120 kills), 5 of 100,000 on PostgreSQL (51 kills),
where the commit is a round trip. Marking after the server's answer would turn each
loss into a message sent twice; no order of the two gives neither, but sending the
COMMIT and the dot back to back would narrow the gap (docs/benchmarks.md).

Through any other backend (the console in development, a provider's API through
django-anymail) the mail is sent through Django and marked sent just after: a kill
between the two sends it again."""

import re
import smtplib
import socket
import ssl

from django.conf import settings
from django.core.mail import get_connection
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
        """Send ``data`` (the whole message, bytes) to ``recipient``; ``mark_sent()``
        is called between its data and the dot that ends it and returns False when the
        message must not go after all. Raises Refused when the server refuses it."""
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
        try:
            go = mark_sent()
        except BaseException:
            self.abandon()
            raise
        if not go:
            self.abandon()
            return False
        smtp.send(b".\r\n")
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
        return mark_sent()


def transport():
    options = smtp_options()
    return SMTPTransport(options) if options is not None else DjangoTransport()
