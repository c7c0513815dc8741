"""Each request's id, in its ``X-Request-ID`` response header and in every line logged
about it (production's LOGGING), so that a reader's report of an error page ("request
4f1c...") finds its traceback in the server's log.

The id is the trusted proxy's (its ``X-Request-ID``, so the proxy's log and ours name the
same request) when TRUSTED_PROXY_COUNT says one is in front, else made here: with no
proxy, any client could write the header, and fill the log with whatever it likes.

Written here rather than taken from django-log-request-id: that trusts the header from
anyone, and finds the request through a thread-local; Django's own log records of a
request carry it (``record.request``).
"""

import logging
import re
import uuid

from django.conf import settings

HEADER = "X-Request-ID"
# What a proxy's id may be: one token of printable characters (nginx's $request_id,
# a UUID, AWS's Root=1-...), nothing a log line could be forged with.
PROXY_ID = re.compile(r"[\w.:;=+/@-]{1,200}", re.ASCII)


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get(HEADER, "")
        trusted = settings.TRUSTED_PROXY_COUNT > 0 and PROXY_ID.fullmatch(given)
        request.request_id = given if trusted else uuid.uuid4().hex
        response = self.get_response(request)
        response[HEADER] = request.request_id
        return response


class RequestIdFilter(logging.Filter):
    """Gives each record a ``request_id``: its request's, or "-"."""

    def filter(self, record):
        record.request_id = getattr(getattr(record, "request", None), "request_id", "-")
        return True


class LogFormatter(logging.Formatter):
    """A 500 with its traceback; any other error or refusal (a Host header not allowed,
    a 503 while the database is down) in one line, however many come: a traceback
    each would bury the 500s."""

    def format(self, record):
        if getattr(record, "status_code", 500) == 500 or not record.exc_info:
            return super().format(record)
        record.message = record.getMessage()
        record.asctime = self.formatTime(record, self.datefmt)
        line = self.formatMessage(record)
        error = record.exc_info[1]
        words = " ".join(str(error).split())
        if error is not None and words not in record.message:
            line += f" ({type(error).__name__}: {words})"
        return line
