"""The folded figures as editors and scripts read them: per article, views and visitors
over a period, the sources of those views, an article's views day by day, and how far
it reached by the other channels (news.reach)."""

from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db.models import Sum
from django.utils import timezone

from news import reach
from news.models import Article

from .models import ArticleHour, SourceHour, Summary

# An article's chart shows at most this many days, the latest.
CHART_DAYS = 90
# The dashboard's summary, by its name in Summary.
DASHBOARD = "dashboard"


def since(days):
    return timezone.now() - timedelta(days=days)


def today_start():
    """Midnight today in the newsroom's time zone."""
    return timezone.make_aware(datetime.combine(timezone.localdate(), datetime.min.time()))


def most_read(days, limit=10, start=None):
    """The most read published articles of the last `days` days (or since `start`):
    (article, views, visitors), most readers first, then most views. Readers, not views,
    as on the site ("Most read", readership.most_read): one client's many views are one
    reader's."""
    totals = (
        ArticleHour.objects.filter(
            hour__gte=start or since(days), article__in=Article.objects.published()
        )
        .values("article")
        .annotate(views=Sum("views"), visitors=Sum("visitors"))
        .order_by("-visitors", "-views", "article")[:limit]
    )
    rows = list(totals)
    articles = Article.objects.only("title", "slug").in_bulk([row["article"] for row in rows])
    return [(articles[row["article"]], row["views"], row["visitors"]) for row in rows]


def top_sources(days, limit=10, start=None, article=None):
    """The sources of the last `days` days' views (or since `start`; of one article's
    only, and then of all time if neither is given): (source, views), most first."""
    rows = SourceHour.objects.all()
    if start is not None or days is not None:
        rows = rows.filter(hour__gte=start or since(days))
    if article is not None:
        rows = rows.filter(article=article)
    rows = rows.values("source").annotate(views=Sum("views")).order_by("-views", "source")[:limit]
    return [(row["source"], row["views"]) for row in rows]


@dataclass(frozen=True)
class Period:
    """The dashboard's figures for one period."""

    name: str
    views: int
    # Readers counted once a day per story: one reading two stories counts in each.
    visitors: int
    # [article id, title, views, visitors], most readers first.
    most_read: list
    # [source, views], most first.
    sources: list


def totals(hours):
    """(views, visitors) of the ArticleHour rows ``hours``."""
    found = hours.aggregate(views=Sum("views"), visitors=Sum("visitors"))
    return found["views"] or 0, found["visitors"] or 0


def period(name, start, limit=5):
    views, visitors = totals(ArticleHour.objects.filter(hour__gte=start))
    return Period(
        name=name,
        views=views,
        visitors=visitors,
        most_read=[
            [article.pk, article.title, views, visitors]
            for article, views, visitors in most_read(None, limit, start=start)
        ],
        sources=[list(row) for row in top_sources(None, limit, start=start)],
    )


def summarise():
    """Work out today's, the last 7 days' and the last 30 days' figures and keep them
    for the dashboard: on a big site the 30 days are a scan of a million rows, so the
    periodic refresh does it (readership.tasks) rather than each look at the dashboard.
    Returns the summary."""
    periods = [
        period("Today", today_start()),
        period("Last 7 days", since(7)),
        period("Last 30 days", since(30)),
    ]
    summary, _ = Summary.objects.update_or_create(
        name=DASHBOARD, defaults={"data": [asdict(p) for p in periods], "at": timezone.now()}
    )
    return summary


def dashboard():
    """(the dashboard's periods, when they were worked out): as the periodic refresh
    kept them, or worked out now if it has not run yet."""
    summary = Summary.objects.filter(name=DASHBOARD).first() or summarise()
    return [Period(**data) for data in summary.data], summary.at


@dataclass(frozen=True)
class Day:
    day: object
    views: int
    visitors: int


@dataclass(frozen=True)
class Readers:
    """An article's figures for its change form: views and visitors per day since it
    was published (the last CHART_DAYS), its sources and its reach."""

    days: list
    views: int
    visitors: int
    sources: list
    reach: list

    @property
    def last_day(self):
        return self.days[-1].day

    @property
    def most_in_a_day(self):
        return max((day.views for day in self.days), default=0)


def readers(article):
    """``article``'s figures; None while it has none and is not public (a draft; an
    unpublished article keeps the figures it had)."""
    if not article.is_published() and not ArticleHour.objects.filter(article=article).exists():
        return None
    today = timezone.localdate()
    published = (
        article.published_at or ArticleHour.objects.filter(article=article).earliest("hour").hour
    )
    # Not after today: an article read, then rescheduled, has figures before its date.
    first = min(today, max(timezone.localdate(published), today - timedelta(days=CHART_DAYS - 1)))
    per_day = {}
    start = timezone.make_aware(datetime.combine(first, datetime.min.time()))
    hours = ArticleHour.objects.filter(article=article, hour__gte=start).values_list(
        "hour", "views", "visitors"
    )
    for hour, views, visitors in hours:
        day = timezone.localdate(hour)
        seen = per_day.get(day, (0, 0))
        per_day[day] = (seen[0] + views, seen[1] + visitors)
    days = [
        Day(first + timedelta(days=n), *per_day.get(first + timedelta(days=n), (0, 0)))
        for n in range((today - first).days + 1)
    ]
    views, visitors = totals(ArticleHour.objects.filter(article=article))
    return Readers(
        days=days,
        views=views,
        visitors=visitors,
        sources=top_sources(None, 10, article=article),
        reach=reach.of(article),
    )
