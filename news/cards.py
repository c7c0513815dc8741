"""Article cards kept as rendered HTML: a list page reads its twenty cards with its one
query and renders none of them, except those changed since they were last shown.

A card (includes/article_card.html: title, date, byline, teaser, topics) took about 0.5 ms
of template work on these machines, half of an uncached list page. Each is now rendered
once per change, when a page first shows it, and kept in ArticleCard.

A kept card is right as long as nothing it shows changed:

- whatever changes what a card shows (the article, its byline, its topics, a topic's or an
  author's name: see ``forget``, called from news.signals) draws a new serial for the cards
  concerned and empties them, in the change's own transaction;
- a card is rendered from what a reader's request read, then kept only where the serial is
  still the one read before (``keep``): a change committed in between wins;
- a card rendered by other code or another template (``version``) is rendered again.
"""

import contextlib
import functools
import hashlib
import importlib
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.db import DatabaseError, connection, transaction
from django.template.loader import get_template, render_to_string
from django.utils.safestring import SafeString

from .models import Article, ArticleCard

logger = logging.getLogger(__name__)

TEMPLATE = "includes/article_card.html"
# The Python a card's HTML comes from (the byline and tag_list tags, the long_date
# filter, the URL paths): a change to either module renders every kept card again.
CODE = ("news.templatetags.news", "news.paths")
# Raise for any other change that alters cards (a model's teaser, say).
FORMAT = 1

COLUMNS = (
    "pk",
    "stored_card__serial",
    "stored_card__version",
    "stored_card__html",
    "stored_card__event_html",
    "stored_card__authors",
)


@dataclass(frozen=True, slots=True)
class Card:
    pk: int
    authors: tuple
    html: SafeString
    event_html: SafeString


def code_digest(templates, modules, format):
    """A hash of what kept HTML is made with: templates' sources and modules' code (and
    a number to raise for any other change), for cards here and pages (news.kept)."""
    digest = hashlib.blake2b(f"{format}\n".encode(), digest_size=8)
    for name in templates:
        digest.update(get_template(name).template.source.encode())
    for name in modules:
        digest.update(Path(importlib.import_module(name).__file__).read_bytes())
    return digest


@functools.cache
def version():
    """Of the card's template and code, as deployed: kept cards of another are stale."""
    return code_digest([TEMPLATE], CODE, FORMAT).hexdigest()


def rows(articles):
    """What ``cards`` needs of each article of a queryset: one query, no model instances."""
    return articles.values_list(*COLUMNS)


def cards(rows):
    """The cards of ``rows`` (from ``rows()``), in their order; those not kept or stale
    are rendered (in two queries for the lot) and kept."""
    current = version()
    found, stale = {}, {}
    for pk, serial, kept_version, html, event_html, authors in rows:
        if html and kept_version == current:
            found[pk] = Card(pk, tuple(authors), SafeString(html), SafeString(event_html))
        else:
            stale[pk] = serial
    if stale:
        found.update(render(stale))
    # An article deleted since the list was read has no card.
    return [found[row[0]] for row in rows if row[0] in found]


def render(serials):
    """Render the cards of {article id: serial read with it, None if no card row yet}."""
    serials = with_rows(serials)
    # As lists read articles: an article unpublished since the list was read has no card.
    articles = Article.objects.for_list().filter(pk__in=serials)
    rendered = {
        article.pk: Card(
            article.pk,
            tuple(author.pk for author in article.byline),
            render_to_string(TEMPLATE, {"article": article}),
            render_to_string(TEMPLATE, {"article": article, "event_dates": True}),
        )
        for article in articles
    }
    keep(rendered, serials)
    return rendered


def with_rows(serials):
    """A card row for every article without one, so that a change from now on draws a new
    serial for it (``forget``) and a card rendered from what was read before then is not
    kept. Their serials are read back: another request may have made the row first."""
    missing = [pk for pk, serial in serials.items() if serial is None]
    if not missing:
        return serials
    try:
        with brief_wait():
            make_rows(missing)
    except DatabaseError as error:
        # Busy (an import holds the write lock) or read-only: expected, not a fault.
        logger.info("Card rows not made this time: %s", error)
        return serials
    made = dict(ArticleCard.objects.filter(article__in=missing).values_list("article", "serial"))
    return {**serials, **made}


def make_rows(articles):
    """Card rows, with a serial and nothing kept yet, for ``articles`` (ids) without one."""
    ArticleCard.objects.bulk_create(
        [ArticleCard(article_id=pk, serial=_new_serial()) for pk in articles],
        ignore_conflicts=True,
    )


def keep(rendered, serials):
    """Keep each rendered card where its serial is still the one read before rendering."""
    current = version()
    try:
        with brief_wait(), transaction.atomic():
            for pk, card in rendered.items():
                if serials.get(pk) is None:
                    continue  # no card row: not kept (see with_rows)
                ArticleCard.objects.filter(article=pk, serial=serials[pk]).update(
                    version=current,
                    html=card.html,
                    event_html=card.event_html,
                    authors=list(card.authors),
                )
    except DatabaseError as error:
        # A read-only or busy database: the page is shown all the same, the cards are
        # rendered again next time.
        logger.info("Rendered cards not kept this time: %s", error)


def forget(articles):
    """The kept cards and pages (news.kept) of ``articles`` (ids, or a one-column queryset
    of them) are stale: called in the transaction that changes what they show."""
    ArticleCard.objects.filter(article__in=articles).update(
        serial=_new_serial(), version="", html="", event_html="", page_version="", page=None
    )


def _new_serial():
    return secrets.randbits(62)


@contextlib.contextmanager
def brief_wait(ms=50):
    """A reader's request waits at most ``ms`` for SQLite's write lock (an editor's save or
    an import may hold it for seconds; settings give writes 20 s): a busy database only
    means the cards are kept by a later request."""
    if connection.vendor != "sqlite" or connection.in_atomic_block:
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout")
        (usual,) = cursor.fetchone()
        cursor.execute(f"PRAGMA busy_timeout = {int(ms)}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {int(usual)}")
