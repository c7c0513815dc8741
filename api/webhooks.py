"""Which webhook events an article change makes, queued after the commit.

news.purge sends ``articles_changed`` after the transaction commits, with each changed
article's footprint before and after (whether it was public, its title and slug). This
module turns that into events and writes one ``Delivery`` row per subscribed webhook:
an insert, never a request to a receiver, so an editor's save waits for no one. The
worker (``manage.py send_webhooks``, api.delivery) sends them.
"""

import hashlib
import hmac

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from news import purge
from news.models import Correction
from news.purge import articles_changed, footprint

from .models import Delivery, Event, Webhook

SIGNATURE_HEADER = "Skillo-Signature"


def events_for(old, new):
    """[(event, footprint to describe, due time or None)] for one article's change.

    Readers' view decides: a draft's edits or deletion make no event, and a scheduled
    article makes "published" at its time (if it still is scheduled for it then)."""
    was_public = old is not None and old.public
    if new is None:
        return [(Event.DELETED, old, None)] if was_public else []
    if new.public:
        return [(Event.UPDATED if was_public else Event.PUBLISHED, new, None)]
    events = [(Event.UNPUBLISHED, new, None)] if was_public else []
    if new.scheduled and (old is None or not old.scheduled or old.published_at != new.published_at):
        events.append((Event.PUBLISHED, new, new.published_at))
    return events


def site_url(path):
    return settings.SKILLO_SITE_URL.rstrip("/") + path


def article_payload(pk, fp, gone=False):
    """What a receiver is told: which article, where to read it (the API has the rest)."""
    data = {"id": pk, "slug": fp.slug, "title": fp.title}
    if not gone:
        data["url"] = site_url(reverse("news:article", kwargs={"slug": fp.slug}))
        data["api_url"] = site_url(reverse("api:article", kwargs={"slug": fp.slug}))
        data["published_at"] = fp.published_at.isoformat()
    return data


@receiver(articles_changed)
def queue_deliveries(sender, changes, **kwargs):
    hooks = None
    rows = []
    for pk, (old, new) in changes.items():
        for event, fp, due in events_for(old, new):
            if hooks is None:  # one query, and only when some change makes an event
                hooks = list(Webhook.objects.filter(active=True))
            payload = {
                "event": event.value,
                "article": article_payload(pk, fp, gone=event == Event.DELETED),
            }
            rows += [
                Delivery(
                    webhook=hook,
                    event=event,
                    article_id=pk,
                    payload=payload,
                    due_at=due or timezone.now(),
                    scheduled_for=due,
                )
                for hook in hooks
                if event in hook.events
            ]
    if rows:
        Delivery.objects.bulk_create(rows)


@receiver(post_save, sender=Correction)
def queue_correction(sender, instance, created, **kwargs):
    """A correction (not an update: those come as "updated") on a public article."""
    if not created or instance.kind != Correction.Kind.CORRECTION:
        return

    def queue():
        fp = footprint(instance.article_id)
        if fp is None or not fp.public:
            return
        payload = {
            "event": Event.CORRECTION.value,
            "article": article_payload(instance.article_id, fp),
            "correction": {
                "note": instance.note,
                "published_at": instance.published_at.isoformat(),
            },
        }
        Delivery.objects.bulk_create(
            Delivery(
                webhook=hook,
                event=Event.CORRECTION,
                article_id=instance.article_id,
                payload=payload,
                due_at=timezone.now(),
            )
            for hook in Webhook.objects.filter(active=True)
            if Event.CORRECTION in hook.events
        )

    # news.purge's on_commit: after the commit, like the other events (and replaceable
    # in tests, where pytest-django's transactions never commit).
    purge.on_commit(queue)


def signature(secret, timestamp, body):
    """``t=<unix time>,v1=<hex HMAC-SHA256 of "<t>." + body>``: the receiver recomputes
    it with the shared secret, and refuses an old ``t`` (a replay)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret, header, body, now, tolerance=300):
    """What a receiver does (docs/api.md, "Webhooks"); here for the tests and as an example."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(parts["t"])
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))
