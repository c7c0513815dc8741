"""An SMTP server that takes every message and writes one line per message (its
recipients and Message-ID) to a file: bench/newsletter.py counts deliveries there.

    python -m aiosmtpd -n -l 127.0.0.1:PORT -c bench.smtp_sink.Counter /path/to/log
"""

import re

MESSAGE_ID = re.compile(rb"^Message-ID:\s*(<[^>]+>)", re.IGNORECASE | re.MULTILINE)


class Counter:
    def __init__(self, path):
        self.log = open(path, "a", buffering=1)  # noqa: SIM115 (for the server's life)

    async def handle_DATA(self, server, session, envelope):
        found = MESSAGE_ID.search(envelope.content)
        message_id = found[1].decode() if found else "-"
        self.log.write(f"{','.join(envelope.rcpt_tos)}\t{message_id}\n")
        return "250 OK"

    @classmethod
    def from_cli(cls, parser, *args):
        if len(args) != 1:
            parser.error("the sink needs the path of its log")
        return cls(args[0])


def count(path):
    """(messages received, distinct (recipient, Message-ID) pairs, recipients)."""
    lines = path.read_text().splitlines() if path.exists() else []
    return len(lines), len(set(lines)), len({line.split("\t")[0] for line in lines})
