"""The editorial calendar: scheduled and published stories by day, a month or a week at
a time, in the newsroom's time zone; and moving a scheduled story to another day."""

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from django.utils import timezone
from django.utils.dateparse import parse_date

from news.models import Article
from news.rules import EARLIEST_YEAR, LATEST_YEAR

MONTH, WEEK = "month", "week"
# A day shows this many stories; the rest are a link to the day's list.
PER_DAY = 12


@dataclass
class Day:
    date: date
    in_period: bool
    is_today: bool
    stories: list = field(default_factory=list)
    more: int = 0


@dataclass
class Period:
    kind: str
    first: date
    last: date
    weeks: list
    title: str
    previous: str  # the query string of the period before, after, and of today's
    next: str
    today: str
    other_kind: str  # the same time as the other kind of view
    count: int = 0


def _query(kind, day):
    if kind == MONTH:
        return f"?month={day:%Y-%m}"
    year, week, _ = day.isocalendar()
    return f"?week={year}-W{week:02d}"


def chosen(query):
    """The view and the day it shows, from ``?month=YYYY-MM`` or ``?week=YYYY-Www``
    (today's month when neither parses)."""
    today = timezone.localdate()
    if week := query.get("week"):
        try:
            year, number = week.split("-W")
            found = date.fromisocalendar(int(year), int(number), 1)
        except ValueError:
            found = None
        return WEEK, found if found and EARLIEST_YEAR <= found.year <= LATEST_YEAR else today
    month = query.get("month", "")
    try:
        found = parse_date(f"{month}-01") if len(month) == 7 else None
    except ValueError:
        found = None  # "2026-13": this month
    if found and EARLIEST_YEAR <= found.year <= LATEST_YEAR:
        return MONTH, found
    return MONTH, today


def _bounds(kind, day):
    """The period's first and last days, and the grid's (whole weeks, Monday first)."""
    if kind == WEEK:
        first = day - timedelta(days=day.weekday())
        return first, first + timedelta(days=6), first, first + timedelta(days=6)
    first = day.replace(day=1)
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return (
        first,
        last,
        first - timedelta(days=first.weekday()),
        last + timedelta(6 - last.weekday()),
    )


def _moment(day):
    return timezone.make_aware(datetime.combine(day, time.min))


def period(kind, day):
    """The calendar of ``kind`` around ``day``: its weeks of Days with their stories."""
    first, last, grid_first, grid_last = _bounds(kind, day)
    today = timezone.localdate()
    now = timezone.now()
    days = {}
    for offset in range((grid_last - grid_first).days + 1):
        current = grid_first + timedelta(days=offset)
        days[current] = Day(current, first <= current <= last, current == today)
    stories = (
        Article.objects.filter(
            status=Article.Status.PUBLISHED,
            published_at__gte=_moment(grid_first),
            published_at__lt=_moment(grid_last + timedelta(days=1)),
        )
        .only("pk", "title", "slug", "status", "published_at", "version")
        .order_by("published_at", "pk")
    )
    count = 0
    for story in stories:
        story.scheduled = story.published_at > now
        cell = days[timezone.localdate(story.published_at)]
        if len(cell.stories) < PER_DAY:
            cell.stories.append(story)
        else:
            cell.more += 1
        count += cell.in_period
    ordered = list(days.values())
    if kind == MONTH:
        title = f"{first:%B %Y}"
        before, after = first - timedelta(days=1), last + timedelta(days=1)
    else:
        same_month = first.month == last.month
        title = f"{first:%-d}{'' if same_month else f' {first:%B}'}\N{EN DASH}{last:%-d %B %Y}"
        before, after = first - timedelta(days=7), first + timedelta(days=7)
    return Period(
        kind=kind,
        first=first,
        last=last,
        weeks=[ordered[n : n + 7] for n in range(0, len(ordered), 7)],
        title=title,
        previous=_query(kind, before),
        next=_query(kind, after),
        today=_query(kind, today),
        # A week belongs to the month of its Thursday, as ISO weeks belong to years.
        other_kind=_query(
            WEEK if kind == MONTH else MONTH, first + timedelta(3) if kind == WEEK else day
        ),
        count=count,
    )


class CannotMove(Exception):
    """Why a story cannot move to the day asked for, in words for the editor."""


def move(article, day):
    """``article``'s new publication time on ``day`` (the same time of day), or
    CannotMove. Only scheduled stories move, and only to a time still to come."""
    if not article.is_scheduled:
        raise CannotMove(
            f"“{article.title}” is already public: only scheduled stories move in the calendar."
        )
    try:
        new_day = parse_date(day or "") if isinstance(day, str) else day
    except ValueError:
        new_day = None
    if new_day is None:
        raise CannotMove("Choose the day as YYYY-MM-DD, for example 2026-12-03.")
    local = timezone.localtime(article.published_at)
    moment = timezone.make_aware(datetime.combine(new_day, local.time().replace(tzinfo=None)))
    if moment <= timezone.now():
        raise CannotMove(
            f"{moment:%-d %B %Y, %H:%M} has passed: moving “{article.title}” there would "
            "publish it at once. Choose a later day, or publish it now from its page."
        )
    return moment
