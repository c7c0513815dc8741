"""'Most read' on the site: ranked every few minutes by a periodic task from the folded
figures and kept in the database (MostRead); pages show it from the cache until the
ranking changes, when MOST_READ is purged like every other list. Drafts are never
ranked (readership.figures.most_read counts published articles only) and an article
unpublished since has no card, so it drops out of every page that shows the list."""

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from news import fragments
from news.dependencies import ARTICLE
from news.purge import on_commit
from pagecache.dependencies import depends_on
from pagecache.purges import purge
from pagecache.remembered import remember

from . import figures
from .dependencies import MOST_READ
from .models import MostRead

# The periods tried, shortest first: the last day, else the last week (a young or a quiet
# site, whose last day has too few readers to rank).
PERIODS = (1, 7)


@dataclass(frozen=True)
class Ranked:
    """The list as a page shows it: its period and the cards of its articles, in order."""

    days: int
    cards: list


def ranking():
    """(days, [(article id, readers)]) for the first period in PERIODS with enough
    readers to mean anything: at least READERSHIP_MOST_READ_MIN_ARTICLES articles of at
    least READERSHIP_MOST_READ_MIN_READERS readers each. (None, []) otherwise. Readers,
    not views: a client's 800 views of three stories were three stories on top of every
    page; they are one reader of each."""
    size = settings.READERSHIP_MOST_READ_SIZE
    for days in PERIODS:
        rows = [
            (article.pk, readers)
            for article, _, readers in figures.most_read(days, size)
            if readers >= settings.READERSHIP_MOST_READ_MIN_READERS
        ]
        if len(rows) >= settings.READERSHIP_MOST_READ_MIN_ARTICLES:
            return days, rows
    return None, []


@transaction.atomic
def refresh():
    """Rank again; when the list shown changes, store it and purge the pages showing it.
    Returns whether it changed."""
    days, rows = ranking()
    shown = list(MostRead.objects.values_list("article_id", "days"))
    if shown == [(pk, days) for pk, _ in rows]:
        return False
    MostRead.objects.all().delete()
    MostRead.objects.bulk_create(
        MostRead(rank=rank, article_id=pk, readers=readers, days=days)
        for rank, (pk, readers) in enumerate(rows, start=1)
    )
    on_commit(lambda: purge({MOST_READ()}))
    return True


def ranked_ids():
    """[days, [article ids]] as last ranked, remembered until the ranking changes."""

    def stored():
        rows = list(MostRead.objects.values_list("article_id", "days"))
        return [rows[0][1] if rows else None, [pk for pk, _ in rows]]

    return remember("readership:most-read", [MOST_READ()], stored)


def for_page(request, leave_out=None, limit=None):
    """The list as ``request``'s page shows it (leaving out the article ``leave_out``,
    the one being read), recorded among the page's dependencies; None when there is
    nothing to show."""
    days, ranked = ranked_ids()
    depends_on(request, MOST_READ(), *ARTICLE.each(ranked))
    pks = [pk for pk in ranked if pk != leave_out][:limit]
    if not pks:
        return None
    cards = list(fragments.cards_of([("title", pk) for pk in pks]).values())
    # Beside an article of the list, the others are enough.
    if len(cards) < settings.READERSHIP_MOST_READ_MIN_ARTICLES - (leave_out in ranked):
        return None
    return Ranked(days, cards)
