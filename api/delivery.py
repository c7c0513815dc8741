"""Sending webhook deliveries: the task workers' periodic send-webhooks (api.tasks), or
``manage.py send_webhooks`` once by hand.

Each delivery is claimed (its due time moved on by a lease, so two workers never send
the same one at once), sent outside any transaction, and logged as an ``Attempt``. A
failure is tried again 1, 2, 4, 8... minutes later, for a day. Within the receiver's
host's budget (outbound.budget): a host that gave no answer is backed off, and its other
deliveries wait until then, no attempt made or counted; a silent receiver costs the
worker one timeout a back-off, not one per delivery.

Where it may go is checked at every attempt, not only when the webhook was saved: the
scheme (http or https), the host (allowed in the admin), and every address the host
resolves to (public only, unless ``SKILLO_ALLOW_PRIVATE_ADDRESSES``: outbound.addresses).
The connection then goes to the address that was checked, so DNS cannot answer
differently in between.
"""

import base64
import hashlib
import hmac
import http.client
import json
import socket
import ssl
import time
from urllib.parse import urlsplit

from django.utils import timezone

from background.limits import backoff
from news.models import Article
from outbound import budget
from outbound.addresses import Refused, checked_address

from .models import RETRY_FIRST, Attempt, Delivery, signing_key, url_problem

TIMEOUT = 10.0  # seconds for a receiver to answer; a slow one only slows the worker
LEASE = 5 * 60  # seconds a claimed delivery is kept from other workers
BATCH = 50


class PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to the checked address, sending the URL's host name."""

    def __init__(self, host, address, **kwargs):
        super().__init__(host, **kwargs)
        self.address = address

    def connect(self):
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host, address, **kwargs):
        super().__init__(host, context=ssl.create_default_context(), **kwargs)
        self.address = address

    def connect(self):
        sock = socket.create_connection((self.address, self.port), self.timeout)
        # The certificate is checked against the host name, not the address.
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post(url, body, headers):
    """POST ``body`` to ``url``; the status code. Redirects are not followed (they could
    lead anywhere): a 3xx counts as a failure."""
    problem = url_problem(url)
    if problem:
        raise Refused(problem)
    parts = urlsplit(url)
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    address = checked_address(parts.hostname, port)
    connection_class = PinnedHTTPSConnection if https else PinnedHTTPConnection
    connection = connection_class(parts.hostname, address, port=port, timeout=TIMEOUT)
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(64 * 1024)  # a receiver's answer is not kept
        return response.status
    finally:
        connection.close()


def still_due(delivery):
    """A scheduled publication is announced only if the article is still scheduled for
    that time and has now become public."""
    if delivery.scheduled_for is None:
        return True
    return (
        Article.objects.published()
        .filter(pk=delivery.article_id, published_at=delivery.scheduled_for)
        .exists()
    )


def claim(delivery, now):
    """Take ``delivery`` for this worker (False if another one took it first)."""
    lease = now + timezone.timedelta(seconds=LEASE)
    return bool(
        Delivery.objects.filter(
            pk=delivery.pk, state=Delivery.State.PENDING, due_at=delivery.due_at
        ).update(due_at=lease)
    )


def attempt(delivery):
    """Send ``delivery`` once and record the attempt; returns the Attempt (BackedOff,
    recording nothing, if its host may not be asked now)."""
    hook = delivery.webhook
    body = json.dumps(delivery.payload, separators=(",", ":")).encode()
    now = timezone.now()
    timestamp = int(now.timestamp())
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Skillo-Webhooks/2",
        "webhook-id": delivery.msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(hook.signing_secrets(now), delivery.msg_id, timestamp, body),
    }
    record = Attempt(delivery=delivery, at=now)
    started = time.monotonic()
    with budget.spending(urlsplit(hook.url).hostname or "", TIMEOUT) as request:
        try:
            record.status_code = post(hook.url, body, headers)
        except Refused as error:
            record.error = f"Refused: {error}"[:300]
        except (OSError, http.client.HTTPException) as error:
            # Any network failure (refused, reset, timeout, TLS): tried again later.
            record.error = f"{type(error).__name__}: {error}"[:300]
            request.failed()
    record.duration_ms = round((time.monotonic() - started) * 1000)
    record.save()
    return record


def finish(delivery, record, now):
    delivery.attempts += 1
    delivery.last_status = str(record.status_code or record.error)[:200]
    if record.ok:
        delivery.state = Delivery.State.DELIVERED
    else:
        wait = backoff(RETRY_FIRST, delivery.attempts)
        if now + wait > delivery.gives_up_at:
            delivery.state = Delivery.State.FAILED
        else:
            delivery.due_at = now + wait
    delivery.save(update_fields=["attempts", "last_status", "state", "due_at"])


def send_due(now=None, limit=BATCH):
    """Send every delivery that is due (at most ``limit``); returns how many were tried."""
    now = now or timezone.now()
    due = list(
        Delivery.objects.filter(state=Delivery.State.PENDING, due_at__lte=now)
        .select_related("webhook")
        .order_by("due_at", "pk")[:limit]
    )
    tried = 0
    for delivery in due:
        if not claim(delivery, now):
            continue
        if not delivery.webhook.active or not still_due(delivery):
            delivery.state = Delivery.State.CANCELLED
            delivery.save(update_fields=["state"])
            continue
        try:
            record = attempt(delivery)
        except budget.BackedOff as backed_off:
            Delivery.objects.filter(pk=delivery.pk).update(due_at=backed_off.until)
            continue
        finish(delivery, record, timezone.now())
        tried += 1
    return tried


def send_again(deliveries):
    """The admin's "send again": due now, with a fresh day of retries."""
    now = timezone.now()
    return deliveries.update(
        state=Delivery.State.PENDING, due_at=now, created_at=now, scheduled_for=None
    )


def signature(secrets, message_id, timestamp, body):
    """The ``webhook-signature`` header: ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>."
    + body>`` for each secret, space-separated; a receiver accepts the delivery when one
    of them verifies with its secret (so a rotation goes unnoticed)."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    return " ".join(
        "v1,"
        + base64.b64encode(hmac.new(signing_key(secret), signed, hashlib.sha256).digest()).decode()
        for secret in secrets
    )
