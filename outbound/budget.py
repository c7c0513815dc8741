"""What one remote host may cost Skillo's outgoing requests (the fediverse's key fetches
and deliveries), whichever process or machine makes them: a silent or slow host spends
its own budget, not the worker's.

Kept in the database (outbound.models.Host, one row a host), so every process agrees
without a shared cache:

- A request that gets no answer (a timeout, a refused or dropped connection) backs its
  host off: for OUTBOUND_BACKOFF_SECONDS, doubling with each such request in a row, at
  most OUTBOUND_BACKOFF_MAX_SECONDS. Until then requests to it fail at once (BackedOff)
  without a connection; an answer (any status) ends it.
- Requests to a host take at most OUTBOUND_HOST_SECONDS a minute in all. A request
  counts its timeout when it starts and what it took when it ends, so the same figure
  also bounds how many wait on a host at once (60 s at 10 s each: six).

A request costs two writes (its reservation, then what it took), three the first time a
host is asked.

Callers say what to do with BackedOff: put the work off until ``until``, or answer 429.
"""

import math
import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
from django.conf import settings
from django.db.models import Case, F, Q, Value, When
from django.utils import timezone

from .models import Host

WINDOW = 60
# What a request is counted at while it runs: the client's read timeout (outbound.client).
RESERVED = 10.0


class BackedOff(Exception):
    """No request may go to ``host`` before ``until``."""

    def __init__(self, host, until):
        super().__init__(f"{host} is not asked again before {until:%H:%M:%S} UTC")
        self.host, self.until = host, until

    @property
    def retry_after(self):
        """Whole seconds until then, at least 1 (an HTTP Retry-After)."""
        return max(1, math.ceil((self.until - timezone.now()).total_seconds()))


class Request:
    """A request in a host's budget: answered unless the caller says ``failed()`` (it got
    no answer, and the caller turned the network's error into one of its own) or
    ``unknown()`` (the caller stopped waiting; the request goes on elsewhere)."""

    def __init__(self):
        self.answered = True

    def failed(self):
        self.answered = False

    def unknown(self):
        self.answered = None


def minute(now):
    return int(now.timestamp() // WINDOW)


def barrier(row, now, limit=None):
    """Until when ``row``'s host may not be asked (None: it may be now)."""
    limit = settings.SKILLO_OUTBOUND_HOST_SECONDS if limit is None else limit
    if row.backed_off_until and row.backed_off_until > now:
        return row.backed_off_until
    if row.window == minute(now) and row.seconds >= limit:
        return datetime.fromtimestamp((row.window + 1) * WINDOW, tz=UTC)
    return None


def check(host):
    """BackedOff if ``host`` may not be asked now."""
    now = timezone.now()
    row = Host.objects.filter(name=host).first()
    if row is not None and (until := barrier(row, now)):
        raise BackedOff(host, until)


def spent(seconds, window):
    """The update adding ``seconds`` to the window ``window`` (a new window starts at 0)."""
    return {
        "seconds": Case(When(window=window, then=F("seconds") + seconds), default=Value(seconds)),
        "window": window,
    }


def reserve(host, seconds, now, limit=None):
    """Count ``seconds`` in ``host``'s minute if it may be asked now; whether it may.
    One statement, so two processes cannot both take the minute's last seconds."""
    limit = settings.SKILLO_OUTBOUND_HOST_SECONDS if limit is None else limit
    window = minute(now)
    not_backed_off = Q(backed_off_until__isnull=True) | Q(backed_off_until__lte=now)
    within = ~Q(window=window) | Q(seconds__lt=limit)
    return Host.objects.filter(not_backed_off, within, name=host).update(**spent(seconds, window))


@contextmanager
def spending(host, reserved=RESERVED, limit=None):
    """Count the request made inside in ``host``'s budget: BackedOff at once, before any
    connection, if the host is backed off or has spent its minute (``limit`` seconds,
    OUTBOUND_HOST_SECONDS by default). An httpx transport error (no answer) coming out,
    or ``failed()``, backs the host off."""
    now = timezone.now()
    if not reserve(host, reserved, now, limit):
        # A host not asked before, or one that may not be asked: which, and until when.
        row, _ = Host.objects.get_or_create(name=host)
        if until := barrier(row, now, limit):
            raise BackedOff(host, until)
        reserve(host, reserved, now, limit)
    window = minute(now)
    request, started = Request(), time.monotonic()
    try:
        yield request
    except httpx.TransportError:
        request.failed()
        raise
    finally:
        took = time.monotonic() - started
        # The reservation is returned to the window it was taken from; one that has
        # ended keeps it (its requests are over).
        refund = took - reserved if minute(timezone.now()) == window else 0
        changes = spent(refund, window) if refund else {}
        if request.answered:
            changes |= {"failures": 0, "backed_off_until": None}
        elif request.answered is False:
            failures = Host.objects.values_list("failures", flat=True).get(name=host) + 1
            wait = min(
                settings.SKILLO_OUTBOUND_BACKOFF_SECONDS * 2 ** min(failures - 1, 20),
                settings.SKILLO_OUTBOUND_BACKOFF_MAX_SECONDS,
            )
            changes |= {
                "failures": failures,
                "backed_off_until": timezone.now() + timedelta(seconds=wait),
            }
        if changes:
            Host.objects.filter(name=host).update(**changes)


def wait(host):
    """Seconds until ``host`` may be asked (0: now)."""
    try:
        check(host)
    except BackedOff as backed_off:
        return backed_off.retry_after
    return 0


def failing(host):
    """Whether the last request to ``host`` got no answer."""
    return Host.objects.filter(name=host, failures__gt=0).exists()
