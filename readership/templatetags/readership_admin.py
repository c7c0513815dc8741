"""The readership figures in the newsroom's admin: the dashboard's module and the
article's "Readers" panel (the admin's templates load them: the editorial app, beside
this one, does not import it)."""

from dataclasses import dataclass

from django import template
from django.conf import settings
from django.utils import timezone

from readership import figures

register = template.Library()

# The chart's drawing units: each day a bar this wide with a gap, the tallest this high.
BAR, GAP, HEIGHT = 8, 2, 100


@dataclass(frozen=True)
class Bar:
    x: int
    y: float
    height: float
    day: object
    views: int


def bars(days):
    """The chart of views per day, drawn on the server: one bar a day."""
    most = max((day.views for day in days), default=0) or 1
    found = []
    for n, day in enumerate(days):
        height = round(HEIGHT * day.views / most, 2)
        found.append(Bar(n * (BAR + GAP), round(HEIGHT - height, 2), height, day.day, day.views))
    return found


@register.inclusion_tag("readership/admin/dashboard.html")
def readership_dashboard():
    periods, at = figures.dashboard()
    return {
        "periods": periods,
        "at": timezone.localtime(at),
        # A summary of another day says its date (the refresh has not run since).
        "today": timezone.localdate().isoformat(),
        "counting": settings.READERSHIP_COUNTING,
    }


@register.inclusion_tag("readership/admin/readers_panel.html")
def readers_panel(article):
    readers = figures.readers(article) if article is not None and article.pk else None
    return {
        "readers": readers,
        "bars": bars(readers.days) if readers else [],
        "width": len(readers.days) * (BAR + GAP) - GAP if readers else 0,
        "height": HEIGHT,
        "bar_width": BAR,
        "counting": settings.READERSHIP_COUNTING,
    }
