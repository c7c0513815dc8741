"""Which webhook events an article change makes, queued after the commit.

news.purge sends ``articles_changed`` after the transaction commits, with each changed
article's footprint before and after (whether it was public, its title and slug). This
module turns that into events and writes one ``Delivery`` row per subscribed webhook:
an insert, never a request to a receiver, so an editor's save waits for no one. The
task workers (the periodic send-webhooks, api.delivery) send them, in the Standard Webhooks
format (standardwebhooks.com): the payload is ``{"type", "timestamp", "data"}``, signed
as ``signature()`` says.
"""

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone

from news import purge
from news.models import Correction
from news.paths import absolute
from news.purge import articles_changed, footprint

from .models import Delivery, Event, Webhook
from .tasks import send_due_webhooks


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


def article_payload(pk, fp, gone=False):
    """What a receiver is told: which article, where to read it (the API has the rest)."""
    data = {"id": pk, "slug": fp.slug, "title": fp.title}
    if not gone:
        data["url"] = absolute(reverse("news:article", kwargs={"slug": fp.slug}))
        data["api_url"] = absolute(reverse("api:article", kwargs={"slug": fp.slug}))
        data["published_at"] = fp.published_at.isoformat()
    return data


def standard_payload(event, when, data):
    """A delivery's body: ``when`` is the event's time (a scheduled publication's is its
    publication), the same on every attempt; the attempt's own is ``webhook-timestamp``."""
    return {"type": event.value, "timestamp": when.isoformat(), "data": data}


@receiver(articles_changed)
def queue_deliveries(sender, changes, **kwargs):
    hooks = None
    rows = []
    now = timezone.now()
    for pk, (old, new) in changes.items():
        for event, fp, due in events_for(old, new):
            if hooks is None:  # one query, and only when some change makes an event
                hooks = list(Webhook.objects.filter(active=True))
            payload = standard_payload(
                event,
                due or now,
                {"article": article_payload(pk, fp, gone=event == Event.DELETED)},
            )
            rows += [
                Delivery(
                    webhook=hook,
                    event=event,
                    article_id=pk,
                    payload=payload,
                    due_at=due or now,
                    scheduled_for=due,
                    created_at=now,
                )
                for hook in hooks
                if event in hook.events
            ]
    if rows:
        with transaction.atomic():  # the deliveries and the task that sends them, or neither
            Delivery.objects.bulk_create(rows)
            send_due_webhooks.enqueue()


@receiver(post_save, sender=Correction)
def queue_correction(sender, instance, created, **kwargs):
    """A correction (not an update: those come as "updated") on a public article; not
    one of a restored backup (news.purge.restoring)."""
    if not created or instance.kind != Correction.Kind.CORRECTION or purge.is_restoring():
        return

    def queue():
        fp = footprint(instance.article_id)
        if fp is None or not fp.public:
            return
        now = timezone.now()
        payload = standard_payload(
            Event.CORRECTION,
            now,
            {
                "article": article_payload(instance.article_id, fp),
                "correction": {
                    "note": instance.note,
                    "published_at": instance.published_at.isoformat(),
                },
            },
        )
        rows = [
            Delivery(
                webhook=hook,
                event=Event.CORRECTION,
                article_id=instance.article_id,
                payload=payload,
                due_at=now,
                created_at=now,
            )
            for hook in Webhook.objects.filter(active=True)
            if Event.CORRECTION in hook.events
        ]
        if rows:
            with transaction.atomic():
                Delivery.objects.bulk_create(rows)
                send_due_webhooks.enqueue()

    # news.purge's on_commit: after the commit, like the other events (and replaceable
    # in tests, where pytest-django's transactions never commit).
    purge.on_commit(queue)
