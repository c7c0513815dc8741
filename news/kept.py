"""An article's page kept as rendered HTML, but for what changes with other articles.

Rendering an article page's own parts (its head's Open Graph tags and JSON-LD, its
header, notices, lead picture, sources and footer) and reading what they show
(topics, sources, corrections, bylines with their authors' links: five queries) was
about half of an uncached article page. They are rendered once per change, when the
page is first shown, and kept beside the article's card (ArticleCard.page). What changes
with other articles is read and rendered at each request as before: the related links
(their targets' titles and publication), the articles around it, the site's header.

A kept page is exact by the rules of news.cards, under the card's own serial:

- whatever changes what the page shows draws a new serial for it and empties it, in the
  change's own transaction (cards.forget, from news.signals: the article, its topics,
  sources, corrections, byline, its authors' names and links, its pictures, its sources'
  archived copies, render_bodies);
- a page is kept only where the serial is still the one read with the article, before
  its parts were read (``keep``);
- a page rendered by other templates or code (``version``) is rendered again.

The head holds absolute URLs: they are kept with ORIGIN in place of the scheme and host
the page was rendered for, and given the current request's at each response.

Editors' previews neither read nor keep pages: they may show what readers must not.
"""

import functools
import logging

from django.db import DatabaseError
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.safestring import mark_safe

from . import cards
from .models import ArticleCard
from .templatetags.news import with_images

logger = logging.getLogger(__name__)

HEAD, MAIN, END = "news/article_head.html", "news/article_main.html", "news/article_end.html"
# Every template and module a kept page's HTML comes from: a change to any renders every
# kept page again (lazily, as each is next shown).
TEMPLATES = (HEAD, MAIN, END, "includes/notices.html", "images/figure.html")
CODE = (
    "news.templatetags.news",
    "news.paths",
    "news.models",
    "news.rendering",
    "images.templatetags.images",
    "images.renditions",
    "images.cards",
)
# Raise for any other change that alters kept pages.
FORMAT = 1
# Stands for the request's scheme and host in a kept head. "<" is escaped wherever an
# editor's words go in a head (&lt; in attributes, \u003C in JSON-LD): no text holds it.
ORIGIN = "<skillo-origin>"
# Stands for the article's text in a kept page: the text is in the article's row, read
# anyway, so it is not kept twice (with_images() places its pictures at each request, at
# no cost for a text without any). No escaped value holds "<" either.
BODY = "<skillo-body>"


@functools.cache
def code_digest():
    return cards.code_digest(TEMPLATES, CODE, FORMAT)


def version():
    """Of the templates and code, as deployed, and of the static file names a head shows
    (Skillo's logo, in the JSON-LD: its hashed name changes with the file)."""
    digest = code_digest().copy()
    digest.update(static("icons/skillo-512.png").encode())
    return digest.hexdigest()


def stored(article):
    """The page kept for ``article`` (read with it by news.detail.load_article), or None
    if there is none or it is stale."""
    card = article.stored_page
    if card is None or not card.page or card.page_version != version():
        return None
    return card.page


def render(request, article, corrections, updates, structured_data):
    """The page's own parts, as kept: HTML and what the page needs to know of them."""
    origin = _origin(request)
    head = render_to_string(
        HEAD, {"article": article, "structured_data": structured_data, "request": request}
    )
    return {
        # Absolute URLs stand in quotes, in attributes and in JSON alike.
        "head": head.replace(f'"{origin}/', f'"{ORIGIN}/'),
        "main": render_to_string(
            MAIN,
            {
                "article": article,
                "corrections": corrections,
                "updates": updates,
                "body": mark_safe(BODY),
            },
        ),
        "end": render_to_string(END, {"article": article}),
        "tags": [[tag.pk, tag.name, tag.slug] for tag in article.tags.all()],
        "authors": [author.pk for author in article.byline],
        "sources": [source.url for source in article.sources.all() if source.url],
    }


def html(page, request, article):
    """The kept page's parts for the templates, with this request's origin and the
    article's text."""
    return {
        "head": mark_safe(page["head"].replace(f'"{ORIGIN}/', f'"{_origin(request)}/')),
        "main": mark_safe(page["main"].replace(BODY, with_images(article.body_html), 1)),
        "end": mark_safe(page["end"]),
    }


def keep(article, page):
    """Keep ``page`` where the serial read with ``article`` is still current."""
    card = article.stored_page
    if card is None:
        # A card row first, so that a change from now on draws a new serial: the page,
        # read before it existed, is kept by a later request.
        cards.with_rows({article.pk: None})
        return
    try:
        with cards.brief_wait():
            ArticleCard.objects.filter(article=article.pk, serial=card.serial).update(
                page_version=version(), page=page
            )
    except DatabaseError as error:
        # Busy or read-only: the page is shown all the same, and kept by a later request.
        logger.info("Article page not kept this time: %s", error)


def _origin(request):
    return request.build_absolute_uri("/")[:-1]
