"""Sending an issue: its deliveries planned in chunks (never every subscriber in memory),
then sent in batches over one connection each, paced to NEWSLETTER_MAX_PER_HOUR and each
provider's own rate (NEWSLETTER_MAX_PER_HOUR_AT)."""

from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from news.models import Article
from pagecache import purges

from . import compose, digests, suppression
from .dependencies import ARCHIVE
from .models import Delivery, Issue, Subscriber
from .sending import Refused, commit_then, quick_marks, transport

CHUNK = 2000


def story_article(issue):
    """The issue's article if it is public now; None if it will never be (unpublished,
    deleted); its publication time if it is scheduled for later."""
    article = Article.objects.filter(pk=issue.article_id).select_related("lead_image").first()
    if article is None or article.status != Article.Status.PUBLISHED:
        return None
    if article.published_at > timezone.now():
        return article.published_at
    return article


def cancel(issue):
    Issue.objects.filter(pk=issue.pk, state=Issue.State.PLANNED).update(state=Issue.State.CANCELLED)


def recipients(issue, article):
    if issue.kind == Issue.Kind.CORRECTION:
        return correction_recipients(article)
    return story_recipients(article)


def correction_recipients(article):
    """Who was sent the story and wants to hear of its corrections."""
    sent = Delivery.objects.filter(
        subscriber=OuterRef("pk"),
        issue__kind=Issue.Kind.STORY,
        issue__article=article,
        state=Delivery.State.SENT,
    )
    return Subscriber.objects.filter(Exists(sent), state=Subscriber.State.ACTIVE, corrections=True)


def story_recipients(article):
    """The active subscribers who get each story, of this one's topics or authors."""
    through_topics = Subscriber.topics.through.objects.filter(
        subscriber=OuterRef("pk"), tag__in=article.tags.values("pk")
    )
    through_authors = Subscriber.authors.through.objects.filter(
        subscriber=OuterRef("pk"), author__in=article.authorships.values("author")
    )
    return Subscriber.objects.filter(
        Q(everything=True) | Exists(through_topics) | Exists(through_authors),
        state=Subscriber.State.ACTIVE,
        frequency=Subscriber.Frequency.EACH,
    )


def plan_deliveries(issue, subscribers):
    """A delivery for each of ``subscribers`` (a queryset), written in chunks; safe to
    run again (one per pair)."""
    for ids in chunks(subscribers):
        Delivery.objects.bulk_create(
            [Delivery(issue_id=issue.pk, subscriber_id=pk) for pk in ids], ignore_conflicts=True
        )


def chunks(queryset):
    """The ids of ``queryset`` in lists of CHUNK, each read by a query of its own (by
    id, from the last one on): no read stays open while they are written from, which on
    SQLite would make the write fail at once ("database is locked", a stale snapshot)."""
    last = 0
    while True:
        ids = list(queryset.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:CHUNK])
        if not ids:
            return
        yield ids
        last = ids[-1]


def batches(issue):
    """(first id, last id, when it may start, lane) of each batch of the issue's
    deliveries: NEWSLETTER_BATCH_SIZE each, in id order, paced so that none starts
    before NEWSLETTER_MAX_PER_HOUR allows, nor before its lane's rate does. A lane is a
    provider's share of the deliveries (NEWSLETTER_MAX_PER_HOUR_AT: {"domains": [...]}),
    or the rest ({"other_than": [...]}, {} when no provider is listed)."""
    size, rate = settings.NEWSLETTER_BATCH_SIZE, settings.NEWSLETTER_MAX_PER_HOUR
    providers = settings.NEWSLETTER_MAX_PER_HOUR_AT
    limited = sorted(name for domains, _ in providers for name in domains)
    rest = {"other_than": limited} if limited else {}
    lanes = {name: index for index, (domains, _) in enumerate(providers) for name in domains}
    rates = [per_hour for _, per_hour in providers] + [0]
    open_batches = {}  # lane index -> [first id, last id, count]
    started = [0] * len(rates)  # batches so far, in each lane
    start, overall = timezone.now(), 0

    def close(lane):
        nonlocal overall
        first, last, _ = open_batches.pop(lane)
        waits = [overall * size / rate if rate else 0]
        if rates[lane]:
            waits.append(started[lane] * size / rates[lane])
        hours = max(waits)
        overall, started[lane] = overall + 1, started[lane] + 1
        what = {"domains": list(providers[lane][0])} if lane < len(providers) else rest
        return first, last, start + timedelta(hours=hours) if hours else None, what

    for delivery_id, email in delivery_addresses(issue):
        lane = lanes.get(email.rpartition("@")[2].lower(), len(providers))
        batch = open_batches.setdefault(lane, [delivery_id, delivery_id, 0])
        batch[1], batch[2] = delivery_id, batch[2] + 1
        if batch[2] == size:
            yield close(lane)
    for lane in sorted(open_batches):
        yield close(lane)


def delivery_addresses(issue):
    """(id, address) of each of the issue's deliveries, by id, CHUNK at a time."""
    last = 0
    while True:
        rows = list(
            issue.deliveries.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "subscriber__email")[:CHUNK]
        )
        if not rows:
            return
        yield from rows
        last = rows[-1][0]


def in_lane(deliveries, lane):
    """The deliveries of ``lane`` (see batches)."""
    at = Q()
    for name in lane.get("domains") or lane.get("other_than") or []:
        at |= Q(subscriber__email__iendswith=f"@{name}")
    if "domains" in lane:
        return deliveries.filter(at)
    if lane.get("other_than"):
        return deliveries.exclude(at)
    return deliveries


def send(issue_id, first_id, last_id, lane=None):
    issue = Issue.objects.get(pk=issue_id)
    if issue.state == Issue.State.CANCELLED:
        return "cancelled"
    queued = in_lane(
        Delivery.objects.filter(
            issue=issue, pk__range=(first_id, last_id), state=Delivery.State.QUEUED
        ),
        lane or {},
    )
    if issue.lists_stories:
        found = digests.stories(issue)
        shared = compose.digest_context(issue, found)
        # What each subscriber chose, for their share of the stories: two queries a batch.
        queued = queued.prefetch_related("subscriber__topics", "subscriber__authors")
    else:
        article = story_article(issue)
        if not isinstance(article, Article):
            queued.update(state=Delivery.State.SKIPPED, error="The story is no longer public.")
            return "the story is no longer public"
        shared = compose.story_context(article, issue.correction)
        if issue.kind == Issue.Kind.LIVE_ENDED:
            shared |= compose.live_ended_context(article)
    queued = list(queued.select_related("subscriber").order_by("pk"))
    blocked = suppression.suppressed(d.subscriber.email for d in queued)
    deferred = sent = 0
    with transport() as carrier, quick_marks():
        for delivery in queued:
            subscriber = delivery.subscriber
            if not subscriber.receives_mail or subscriber.email in blocked:
                mark(delivery, Delivery.State.SKIPPED)
                continue
            if issue.lists_stories:
                mine = (
                    found
                    if not issue.is_digest
                    else digests.share(
                        found,
                        subscriber,
                        {tag.pk for tag in subscriber.topics.all()},
                        {author.pk for author in subscriber.authors.all()},
                    )
                )
                if not mine:
                    mark(delivery, Delivery.State.SKIPPED, "None of its stories was chosen.")
                    continue
                mail = compose.mail(issue, {**shared, "stories": mine}, subscriber)
            else:
                mail = compose.mail(issue, shared, subscriber)
            data = compose.as_bytes(mail) if carrier.raw else mail
            try:
                if carrier.send(mail.from_email, subscriber.email, data, marker(delivery)):
                    sent += 1
            except Refused as refusal:
                if refusal.permanent:
                    mark(delivery, Delivery.State.FAILED, str(refusal))
                    suppression.refused(subscriber.email, refusal.code, refusal.text)
                else:
                    mark(delivery, Delivery.State.QUEUED, str(refusal))
                    deferred += 1
    finish(issue.pk)
    if deferred:
        # The worker tries the batch again with back-off; what was sent stays sent.
        raise ConnectionError(f"{deferred} message(s) deferred by the mail server")
    return sent


def marker(delivery):
    def mark_sent(end):
        queued = Delivery.objects.filter(pk=delivery.pk, state=Delivery.State.QUEUED)
        return commit_then(queued, end, state=Delivery.State.SENT, sent_at=timezone.now(), error="")

    return mark_sent


def mark(delivery, state, error=""):
    Delivery.objects.filter(pk=delivery.pk).update(state=state, error=error[:500])


def finish(issue_id):
    """Sent once none of its deliveries is queued."""
    if not Delivery.objects.filter(issue_id=issue_id, state=Delivery.State.QUEUED).exists():
        finished = Issue.objects.filter(pk=issue_id, state=Issue.State.SENDING).update(
            state=Issue.State.SENT, sent_at=timezone.now()
        )
        if finished:
            purges.purge({ARCHIVE()})  # the web archive lists it now
