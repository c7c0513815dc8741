"""Live coverage as readers get it: entries rendered (the article page, the story's other
pages, the updates open pages fetch), its structured data and its pages of entries."""

from dataclasses import dataclass

from django.db.models import prefetch_related_objects
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.utils.text import Truncator

from news.dependencies import AUTHOR, EMBED
from news.models import ArticleAuthor, byline_prefetch
from news.paths import absolute
from news.rendering import lone_links
from news.templatetags.news import byline_structured_data, organization, placed, ready_embeds

from .models import Entry

# Entries on a page; older ones on the next pages (the article page shows the first).
PAGE_SIZE = 50
# Key events listed at the top of the story.
KEY_EVENTS = 10
# Google shows at most this much of a headline.
HEADLINE_CHARS = 110


@dataclass(frozen=True)
class Shown:
    """Entries rendered, and the dependency keys their HTML brings (link cards, the
    authors named)."""

    html: list
    dependencies: tuple


def render_entries(entries):
    """Each entry's <li> (live/entry.html), its pictures and link cards placed as in
    articles. One query for the cards of all of them, one per entry placing pictures."""
    entries = list(entries)
    embeds = ready_embeds("".join(entry.body_html for entry in entries))
    html = [
        render_to_string(
            "live/entry.html",
            {"entry": entry, "body": placed(entry.anchored_html, embeds=embeds)},
        )
        for entry in entries
    ]
    urls = {url for entry in entries for url in lone_links(entry.body_html)}
    # The entries' bylines name their authors: a renamed author purges them (AUTHOR).
    authors = {author.pk for entry in entries for author in entry.authors.all()}
    return Shown([mark_safe(item) for item in html], (*EMBED.each(urls), *AUTHOR.each(authors)))


def page_of_entries(coverage, number=1, oldest_first=False):
    """(entries of page ``number``, whether there is a next page); readers' entries only."""
    entries = Entry.objects.for_page().filter(coverage=coverage)
    if oldest_first:
        entries = entries.order_by("posted_at", "pk")
    start = (number - 1) * PAGE_SIZE
    found = list(entries[start : start + PAGE_SIZE + 1])
    return found[:PAGE_SIZE], len(found) > PAGE_SIZE


def key_events(coverage):
    return list(
        Entry.objects.published()
        .filter(coverage=coverage, key_event=True)
        .only("pk", "headline", "body_text", "posted_at")[:KEY_EVENTS]
    )


def entry_headline(entry):
    """An entry's headline, or its first words: every update needs one (Google)."""
    return Truncator(entry.headline or entry.body_text).chars(HEADLINE_CHARS, truncate="…")


def structured_data(coverage, article, entries):
    """schema.org LiveBlogPosting of the story, with ``entries`` as its updates:
    coverageStartTime, coverageEndTime once it has ended (a time to come would be a
    guess), and each update a BlogPosting with its headline, time and text."""
    # The byline as the article's own JSON-LD gives it, the authors' links as sameAs.
    prefetch_related_objects(
        [article], byline_prefetch(ArticleAuthor.objects.prefetch_related("author__links"))
    )
    url = absolute(article.get_absolute_url())

    def time(value):
        return value.replace(microsecond=0).isoformat()

    latest = max([article.updated_at, *(entry.edited_at or entry.posted_at for entry in entries)])
    data = {
        "@context": "https://schema.org",
        "@type": "LiveBlogPosting",
        "@id": f"{url}#live",
        "headline": article.title,
        "description": article.description,
        "url": url,
        "datePublished": time(article.published_at),
        "dateModified": time(latest),
        "author": byline_structured_data(article.byline),
        "publisher": organization(),
        "image": article.structured_images(absolute),
    }
    if coverage.starts_at:
        data["coverageStartTime"] = time(coverage.starts_at)
    if coverage.has_ended and coverage.ended_at:
        data["coverageEndTime"] = time(coverage.ended_at)
    data["liveBlogUpdate"] = [
        {
            "@type": "BlogPosting",
            "headline": entry_headline(entry),
            "url": f"{url}#{entry.anchor}",
            "datePublished": time(entry.posted_at),
            **({"dateModified": time(entry.edited_at)} if entry.edited_at else {}),
            "articleBody": entry.body_text,
            **(
                {"author": [{"@type": "Person", "name": a.name} for a in entry.authors.all()]}
                if entry.authors.all()
                else {}
            ),
        }
        for entry in entries
    ]
    return data
