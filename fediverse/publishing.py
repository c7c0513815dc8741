"""Articles to their followers on the fediverse.

When an article becomes public (now, or at its scheduled time) the ``announce`` task
sends one ``Create`` to each inbox of the followers of the site, its authors and its
topics: one per inbox, however many of those a follower follows, and one per shared
inbox (a whole instance). A server shows a post to the followers of the actor that sent
it, so each inbox gets it from the first of the site, an author, a topic that is
followed there. An edit or a correction that changes what they were shown sends an
``Update``, an unpublish or a deletion a ``Delete``, each to the inboxes the ``Create``
went to, from the same actor (fediverse.models.Publication)."""

import time
from collections import defaultdict
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.tasks import task
from django.utils import timezone

from live.desk import entry_published
from news import purge
from news.models import Correction
from news.purge import articles_changed, publication_time

from .actors import CONTEXT, PUBLIC, actor_id
from .delivery import queue
from .models import (
    ArticleState,
    BlockedDomain,
    Delivery,
    Follower,
    LocalActor,
    Publication,
    ReceivedSignature,
)
from .objects import article_object, digest, object_id, public_article, tombstone

RANK = {LocalActor.Kind.SITE: 0, LocalActor.Kind.AUTHOR: 1, LocalActor.Kind.TOPIC: 2}


@receiver(articles_changed)
def article_changes(sender, changes, **kwargs):
    now = timezone.now()
    for pk, (old, new) in changes.items():
        due = publication_time(old, new)
        if due is not None:
            announce.using(run_after=due if due > now else None).enqueue(pk)
        if old is not None and old.public:
            tell_changed.enqueue(pk)


@receiver(post_save, sender=Correction)
def correction_published(sender, instance, created, **kwargs):
    restored = purge.is_restoring()  # a backup's correction, told long ago
    if created and instance.kind == Correction.Kind.CORRECTION and not restored:
        purge.on_commit(lambda: tell_changed.enqueue(instance.article_id))


@receiver(entry_published)
def key_event_published(sender, coverage, entry, **kwargs):
    # A live story's key events are in its object (live_key_events): followers get an
    # Update for each, never for an ordinary entry. Sent after the entry's commit.
    if entry.key_event:
        tell_changed.enqueue(coverage.pk)


def blocked(domain, blocked_domains):
    parts = domain.split(".")
    return any(".".join(parts[i:]) in blocked_domains for i in range(len(parts)))


def recipients(article):
    """{actor: [inboxes]} for a public ``article``: each inbox once, from its best actor."""
    query = Q(local__kind=LocalActor.Kind.SITE)
    if authors := [author.pk for author in article.byline]:
        query |= Q(local__author_id__in=authors)
    if tags := [tag.pk for tag in article.topics]:
        query |= Q(local__tag_id__in=tags)
    blocked_domains = set(BlockedDomain.objects.values_list("domain", flat=True))
    best = {}
    for follower in (
        Follower.objects.filter(query, remote__blocked=False)
        .select_related("local", "remote")
        .order_by("pk")
    ):
        remote = follower.remote
        if blocked(remote.domain, blocked_domains):
            continue
        inbox = remote.delivery_inbox
        rank = (RANK[follower.local.kind], follower.local.pk)
        if inbox not in best or rank < best[inbox][0]:
            best[inbox] = (rank, follower.local)
    by_actor = defaultdict(list)
    for inbox, (_, actor) in best.items():
        by_actor[actor].append(inbox)
    return by_actor


def activity(kind, actor, document, suffix, **extra):
    ident = actor_id(actor)
    return {
        "@context": CONTEXT,
        "id": f"{document['id']}#{suffix}",
        "type": kind,
        "actor": ident,
        "to": [PUBLIC],
        "cc": [f"{ident}/followers"],
        **extra,
        "object": {key: value for key, value in document.items() if key != "@context"},
    }


@task(queue_name="remote")
def announce(article_id):
    """Send a newly public article to its followers (at its time, if scheduled)."""
    return announce_now(article_id)


@task(queue_name="remote")
def tell_changed(article_id):
    return update_now(article_id)


@task
def prune():
    """Forget accepted signatures once they are too old to be replayed, and finished
    deliveries after a week."""
    return prune_now()


def announce_now(article_id):
    article = public_article(article_id)
    if article is None:
        return "not public"
    document = article_object(article)
    with transaction.atomic():
        state, _ = ArticleState.objects.select_for_update().get_or_create(article_id=article_id)
        if Publication.objects.filter(article_id=article_id).exists():
            return "announced before"
        state.digest, state.deleted_at = digest(document), None
        state.save(update_fields=["digest", "deleted_at"])
        sent = 0
        for actor, inboxes in recipients(article).items():
            create = activity(
                "Create", actor, document, f"create-{actor.pk}", published=document["published"]
            )
            queue(actor, create, inboxes, article_id=article_id)
            Publication.objects.bulk_create(
                [Publication(article_id=article_id, inbox=inbox, actor=actor) for inbox in inboxes]
            )
            sent += len(inboxes)
    return f"{sent} inboxes"


def by_actor(publications):
    grouped = defaultdict(list)
    for publication in publications:
        grouped[publication.actor].append(publication.inbox)
    return grouped


def update_now(article_id):
    """Tell the inboxes that were sent the article what changed: an Update, or a Delete
    once it is no longer public."""
    article = public_article(article_id)
    with transaction.atomic():
        state = ArticleState.objects.select_for_update().filter(article_id=article_id).first()
        if state is None or state.deleted_at is not None:
            return "never announced"
        publications = list(
            Publication.objects.filter(article_id=article_id).select_related("actor")
        )
        stamp = int(time.time() * 1000)
        if article is None:
            state.deleted_at = timezone.now()
            state.save(update_fields=["deleted_at"])
            gone = tombstone(article_id, state.deleted_at)
            for actor, inboxes in by_actor(publications).items():
                queue(actor, activity("Delete", actor, gone, f"delete-{stamp}"), inboxes)
            Publication.objects.filter(article_id=article_id).delete()
            return "deleted"
        document = article_object(article)
        new = digest(document)
        if new == state.digest:
            return "unchanged"
        state.digest = new
        state.save(update_fields=["digest"])
        for actor, inboxes in by_actor(publications).items():
            queue(actor, activity("Update", actor, document, f"update-{stamp}"), inboxes)
    return "updated"


def prune_now():
    now = timezone.now()
    window = timedelta(seconds=2 * settings.SKILLO_FEDIVERSE_SIGNATURE_WINDOW)
    signatures, _ = ReceivedSignature.objects.filter(received_at__lt=now - window).delete()
    deliveries, _ = Delivery.objects.filter(
        created_at__lt=now - timedelta(days=7),
        state__in=[Delivery.State.DELIVERED, Delivery.State.FAILED],
    ).delete()
    return f"{signatures} signatures, {deliveries} deliveries"


__all__ = ["announce_now", "object_id", "prune_now", "update_now"]
