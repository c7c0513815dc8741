"""Mails printed on the console in development (``make run``), as their reader sees them.

Django's console backend prints a mail as it goes over the wire: quoted-printable text,
whose soft line breaks ("=" every 76 characters) cut a confirmation link in two, and
subjects in RFC 2047 words. This one prints the headers and each text part decoded (a
link prints whole), and names attachments by file name, type and size.

It lives here because the worker is where mails are printed: the editorial workflow's
and the newsletter's mails are sent by tasks, and both apps (which do not depend on each
other) sit above this one.
"""

from django.core.mail.backends.console import EmailBackend as ConsoleEmailBackend

# Said once in the parts below, decoded.
PART_HEADERS = ("content-", "mime-version")


class EmailBackend(ConsoleEmailBackend):
    def write_message(self, message):
        mail = message.message()
        lines = [
            f"{name}: {value}"
            for name, value in mail.items()
            if not name.lower().startswith(PART_HEADERS)
        ]
        for part in mail.walk():
            if part.is_multipart():
                continue
            kind = part.get_content_type()
            if part.get_content_maintype() == "text" and not part.is_attachment():
                lines += ["", f"--- {kind} ---", part.get_content().rstrip("\n")]
            else:
                size = len(part.get_payload(decode=True) or b"")
                name = part.get_filename() or "(no name)"
                lines += ["", f"--- attachment {name} ({kind}, {size} bytes) ---"]
        text = "\n".join([*lines, "-" * 79, ""])
        # A console that cannot show a character (an ASCII locale) gets an escape rather
        # than failing the task that sends the mail.
        encoding = getattr(self.stream, "encoding", None) or "utf-8"
        self.stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
