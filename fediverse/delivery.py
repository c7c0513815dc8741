"""Sending activities to other servers' inboxes: the worker's side.

One Delivery row per activity and inbox, sent by the ``deliver`` task, signed by the
sending actor. A failure (a network error, a 5xx, a 429) is tried again 1, 2, 4...
minutes later, for two days; a 4xx other than 429 is final. A server that keeps
failing (SKILLO_FEDIVERSE_INSTANCE_FAILURES in a row) is backed off: nothing is sent
to it for hours, then days; once it has failed for SKILLO_FEDIVERSE_GIVE_UP_DAYS its
deliveries fail at once and its followers are kept, not retried, until it is heard
from again (any signed request from it). Deliveries also spend their host's budget,
with its key fetches (outbound.budget): while the host is backed off after a request
it did not answer, they are put off, no attempt counted."""

import json
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.tasks import task
from django.utils import timezone

from background.limits import backoff
from news.models import Article
from outbound import budget
from outbound.client import Refused, client

from .actors import key_id
from .models import Delivery, Instance
from .remote import domain_of
from .signatures import sign

RETRY_FIRST = timedelta(minutes=1)
# Deliveries a task sends in turn: the task queue's own cost (a claim, a result) counts
# once per batch, and the batch's connections to one server are reused.
BATCH = 20
GIVE_UP_AFTER = timedelta(days=2)
CONTENT_TYPE = "application/activity+json"


def queue(actor, activity, inboxes, article_id=None):
    """Deliveries of ``activity`` from ``actor`` to each of ``inboxes``, with their tasks,
    in one transaction. Returns the rows."""
    now = timezone.now()
    rows = [
        Delivery(
            actor=actor,
            inbox=inbox,
            domain=domain_of(inbox),
            activity=activity,
            article_id=article_id,
            due_at=now,
        )
        for inbox in dict.fromkeys(inboxes)
    ]
    with transaction.atomic():
        Delivery.objects.bulk_create(rows)
        for start in range(0, len(rows), BATCH):
            deliver_many.enqueue([row.pk for row in rows[start : start + BATCH]])
    return rows


def still_wanted(delivery):
    """A Create of an article is sent only while the article is public."""
    if delivery.article_id is None or delivery.activity.get("type") != "Create":
        return True
    return Article.objects.published().filter(pk=delivery.article_id).exists()


def post(delivery):
    """POST the delivery's activity, signed; the status code."""
    body = json.dumps(delivery.activity, separators=(",", ":")).encode()
    actor = delivery.actor
    headers = sign(
        "POST",
        delivery.inbox,
        actor.private_key_pem,
        key_id(actor),
        body=body,
        headers={
            "Content-Type": CONTENT_TYPE,
            "Accept": CONTENT_TYPE,
            "User-Agent": settings.SKILLO_FEDIVERSE_USER_AGENT,
        },
    )
    with client().stream("POST", delivery.inbox, content=body, headers=headers) as response:
        # An inbox's answer is not kept: read a little, so the connection can be reused.
        for _chunk in response.iter_bytes():
            break
        return response.status_code


def instance_for(domain):
    instance, _ = Instance.objects.get_or_create(domain=domain)
    return instance


def succeeded(instance, now):
    if (
        instance.failures == 0
        and instance.last_success_at
        and (now - instance.last_success_at < timedelta(minutes=5))
    ):
        return  # nothing to say again: spares a write per delivery
    Instance.objects.filter(pk=instance.pk).update(
        failures=0, retry_after=None, given_up_at=None, failing_since=None, last_success_at=now
    )


def failed(instance, now):
    """Count a failure of ``instance``; backs it off or gives it up when it keeps failing."""
    Instance.objects.filter(pk=instance.pk).update(failures=F("failures") + 1)
    instance.refresh_from_db()
    changes = {}
    if instance.failing_since is None:
        changes["failing_since"] = now
    over = instance.failures - settings.SKILLO_FEDIVERSE_INSTANCE_FAILURES
    if over >= 0:
        changes["retry_after"] = now + backoff(
            timedelta(hours=1), over + 1, timedelta(days=settings.SKILLO_FEDIVERSE_BACKOFF_DAYS)
        )
        since = instance.failing_since or now
        if now - since >= timedelta(days=settings.SKILLO_FEDIVERSE_GIVE_UP_DAYS):
            changes["given_up_at"] = now
    if changes:
        Instance.objects.filter(pk=instance.pk).update(**changes)


def heard_from(domain):
    """A server that signs a request to Skillo is alive: deliveries to it resume."""
    Instance.objects.filter(domain=domain).exclude(given_up_at=None, retry_after=None).update(
        given_up_at=None, retry_after=None, failures=0, failing_since=None
    )


def put_off(delivery, until):
    """Send ``delivery`` at ``until``, not now, without counting an attempt."""
    delivery.due_at = until
    delivery.save(update_fields=["due_at"])
    deliver.using(run_after=until).enqueue(delivery.pk)
    return "backed off"


def finish(delivery, state, error=""):
    delivery.state, delivery.last_error = state, error[:300]
    delivery.save(update_fields=["state", "last_error", "attempts", "due_at"])


@task(queue_name="remote")
def deliver(delivery_id):
    return send(delivery_id)


@task(queue_name="remote")
def deliver_many(delivery_ids):
    """Send each delivery in turn; one that was sent before (a retried batch) is skipped,
    and one that cannot be sent at all fails alone, not the batch."""
    return [send_or_fail(delivery_id) for delivery_id in delivery_ids]


def send_or_fail(delivery_id):
    try:
        return send(delivery_id)
    except Exception as error:  # an address httpx cannot even parse, say
        failing = Delivery.objects.filter(pk=delivery_id, state=Delivery.State.PENDING)
        failing.update(
            state=Delivery.State.FAILED, last_error=f"{type(error).__name__}: {error}"[:300]
        )
        return "failed"


def send(delivery_id):
    """Send one delivery if it is pending and due; what happened, in a word."""
    now = timezone.now()
    delivery = Delivery.objects.select_related("actor").filter(pk=delivery_id).first()
    if delivery is None or delivery.state != Delivery.State.PENDING:
        return "done before"
    if not still_wanted(delivery):
        finish(delivery, Delivery.State.FAILED, "the article is no longer public")
        return "withdrawn"
    instance = instance_for(delivery.domain)
    if instance.given_up_at is not None:
        finish(delivery, Delivery.State.FAILED, "the server has been failing for days")
        return "given up"
    if instance.retry_after is not None and instance.retry_after > now:
        return put_off(delivery, instance.retry_after)
    try:
        # In the host's budget, shared with key fetches: a host that did not answer a
        # moment ago is not tried again by each delivery queued for it.
        with budget.spending(delivery.domain):
            delivery.attempts += 1
            status = post(delivery)
        error = "" if 200 <= status < 300 else f"HTTP {status}"
    except budget.BackedOff as backed_off:
        return put_off(delivery, backed_off.until)
    except Refused as refused:
        finish(delivery, Delivery.State.FAILED, f"Refused: {refused}")
        return "refused"
    except (httpx.HTTPError, httpx.InvalidURL, OSError, UnicodeError) as network:
        status, error = None, f"{type(network).__name__}: {network}"
    if not error:
        finish(delivery, Delivery.State.DELIVERED)
        succeeded(instance, now)
        return "delivered"
    if status is not None and 400 <= status < 500 and status not in {408, 429}:
        finish(delivery, Delivery.State.FAILED, error)
        return "rejected"
    failed(instance, now)
    wait = backoff(RETRY_FIRST, delivery.attempts)
    if now + wait - delivery.created_at > GIVE_UP_AFTER:
        finish(delivery, Delivery.State.FAILED, error)
        return "failed"
    delivery.due_at = now + wait
    finish(delivery, Delivery.State.PENDING, error)
    deliver.using(run_after=delivery.due_at).enqueue(delivery.pk)
    return "retrying"
