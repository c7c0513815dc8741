"""Daily and weekly digests: the stories that went public in the period (by when they
were published on Skillo, not by their published date, which may be backdated to the
event), each subscriber's own share of them, the editors' lead story first.

A digest is planned an hour before it is due (NEWSLETTER_DIGEST_HOUR in
NEWSLETTER_TIME_ZONE, weekly ones on NEWSLETTER_WEEKLY_DAY), so an editor can give it an
intro in the admin; its stories are chosen when it is sent. A machine that was off plans
only the latest digest of each kind, not one per day missed."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import formats

from news.models import Article, FrontPin

from .models import Issue, Subscriber

PLAN_AHEAD = timedelta(hours=1)


def boundary(kind, now):
    """The end of the latest period of ``kind`` that is due within PLAN_AHEAD of
    ``now``: the digest to plan."""
    zone = ZoneInfo(settings.NEWSLETTER_TIME_ZONE)
    local = (now + PLAN_AHEAD).astimezone(zone)
    end = datetime.combine(local.date(), time(settings.NEWSLETTER_DIGEST_HOUR), zone)
    if end > local:
        end -= timedelta(days=1)
    if kind == Issue.Kind.WEEKLY:
        end -= timedelta(days=(end.weekday() - settings.NEWSLETTER_WEEKLY_DAY) % 7)
    return end


def length(kind):
    return timedelta(days=7 if kind == Issue.Kind.WEEKLY else 1)


def planned(kind, now):
    """The digest of ``kind`` to plan at ``now``: (period end, and get_or_create's
    defaults)."""
    end = boundary(kind, now)
    name = "Skillo daily" if kind == Issue.Kind.DAILY else "Skillo weekly"
    day = formats.date_format(end - timedelta(seconds=1), "j F Y")
    return end, {"period_start": end - length(kind), "due_at": end, "subject": f"{name}, {day}"}


def stories(issue):
    """The public stories of the issue's period, the editors' lead first, then newest
    first; a one-off's, those its editor chose."""
    if issue.kind == Issue.Kind.ONE_OFF:
        return list(
            Article.objects.published()
            .filter(pk__in=issue.articles.values("pk"))
            .prefetch_related("tags", "authorships")
            .order_by("-published_at", "-pk")
        )
    published = Issue.objects.filter(
        kind=Issue.Kind.STORY,
        article=OuterRef("pk"),
        due_at__gte=issue.period_start,
        due_at__lt=issue.period_end,
    )
    found = list(
        Article.objects.published()
        .filter(Exists(published))
        .prefetch_related("tags", "authorships")
        .order_by("-published_at", "-pk")
    )
    lead = FrontPin.objects.active().filter(lead=True).values_list("article_id", flat=True)
    lead = set(lead)
    return sorted(found, key=lambda article: article.pk not in lead)


def recipients(issue, found):
    """Active subscribers of the issue's frequency with at least one of its stories;
    every active subscriber for a one-off."""
    if issue.kind == Issue.Kind.ONE_OFF:
        return Subscriber.objects.filter(state=Subscriber.State.ACTIVE)
    tags = {tag.pk for article in found for tag in article.tags.all()}
    authors = {a.author_id for article in found for a in article.authorships.all()}
    through_topics = Subscriber.topics.through.objects.filter(
        subscriber=OuterRef("pk"), tag__in=tags
    )
    through_authors = Subscriber.authors.through.objects.filter(
        subscriber=OuterRef("pk"), author__in=authors
    )
    return Subscriber.objects.filter(
        Q(everything=True) | Exists(through_topics) | Exists(through_authors),
        state=Subscriber.State.ACTIVE,
        frequency=issue.kind,
    )


def share(found, subscriber, topics, authors):
    """The stories of ``found`` that ``subscriber`` chose (``topics`` and ``authors``:
    the ids they follow)."""
    if subscriber.everything:
        return found
    return [
        article
        for article in found
        if topics & {tag.pk for tag in article.tags.all()}
        or authors & {a.author_id for a in article.authorships.all()}
    ]
