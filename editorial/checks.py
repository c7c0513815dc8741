"""Checks before publishing: what an editor should look at, worked out from the form's
unsaved data and shown as a checklist in the preview. Warnings an editor may publish
past; the rules of news/rules.py stay hard errors of the form."""

import operator
import re
from dataclasses import dataclass
from functools import reduce

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from images.models import KEY_LENGTH, Image
from news.models import Article, Tag, TaggedArticle
from news.rendering import placements
from news.rules import MIN_LEAD_IMAGE_WIDTH
from sources.models import WORKING, SourceURL

# A search result shows about this much of a description.
SUMMARY_SHOWN = 160
_HEADING_LEVEL = re.compile(r"<h([2-6])[ >]")
_LINK = re.compile(r'<a href="(https?://[^"]+)"')


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str


def months_ago(day):
    today = timezone.localdate()
    return (today.year - day.year) * 12 + today.month - day.month


def image_alt(body_html, lead_image):
    missing = []
    keys = [key for key, words in placements(body_html) if not words.get("alt")]
    if keys:
        query = reduce(operator.or_, (Q(sha256__startswith=key) for key in keys))
        by_key = {image.key: image for image in Image.objects.filter(query)}
        for key in keys:
            image = by_key.get(key[:KEY_LENGTH])
            if image is not None and not image.alt and not image.decorative:
                missing.append(image.original_name or image.key)
    if lead_image is not None and not lead_image.alt and not lead_image.decorative:
        missing.append(f"the lead image ({lead_image.original_name or lead_image.key})")
    if missing:
        return warn("Images have alt text", "No alt text: " + ", ".join(missing) + ".")
    return ok("Images have alt text", "Every picture is described.")


def heading_levels(body_html):
    levels = [int(level) for level in _HEADING_LEVEL.findall(body_html)]
    previous = 2
    for level in levels:
        if level > previous + 1:
            return warn(
                "Headings in order",
                f"A level-{level} heading follows a level-{previous} one: a level is skipped "
                "(screen readers list headings by level).",
            )
        previous = level
    return ok("Headings in order", "No heading level is skipped.")


def broken_links(body_html, sources):
    urls = set(_LINK.findall(body_html)) | {source.url for source in sources if source.url}
    if not urls:
        return ok("Links work", "No links to check.")
    broken = list(
        SourceURL.objects.filter(url__in=urls)
        .exclude(state__in=[*WORKING, "unchecked"])
        .values_list("url", "state")
    )
    if broken:
        words = "; ".join(f"{url} ({state})" for url, state in broken)
        return warn("Links work", f"The source checker found these broken: {words}.")
    return ok("Links work", "None of the links is known to be broken.")


def ok(name, detail):
    return Check(name, True, detail)


def warn(name, detail):
    return Check(name, False, detail)


def lead_image_check(lead_image):
    if lead_image is None:
        return ok("Lead image", "None: link previews show a drawn card.")
    if lead_image.width < MIN_LEAD_IMAGE_WIDTH:
        return warn(
            "Lead image",
            f"{lead_image.width:,} px wide: below the {MIN_LEAD_IMAGE_WIDTH:,} px a lead image "
            "needs (the save will refuse it).",
        )
    return ok("Lead image", f"{lead_image.width:,} px wide.")


def summary_check(summary):
    if not summary:
        return warn("Summary", "No summary: lists and search show the first paragraph.")
    if len(summary) > SUMMARY_SHOWN:
        return warn(
            "Summary",
            f"{len(summary)} characters: search results show about the first {SUMMARY_SHOWN}.",
        )
    return ok("Summary", f"{len(summary)} characters.")


def facts_check(facts_verified):
    limit = settings.SKILLO_FACTS_MAX_AGE_MONTHS
    if facts_verified is None:
        return warn("Facts verified", "No month of verification given.")
    if months_ago(facts_verified) > limit:
        return warn(
            "Facts verified", f"Verified in {facts_verified:%B %Y}, more than {limit} months ago."
        )
    return ok("Facts verified", f"Verified in {facts_verified:%B %Y}.")


def related_check(related_targets):
    targets = [pk for pk in related_targets if pk]
    unpublished = list(
        Article.objects.filter(pk__in=targets).not_public().values_list("title", flat=True)
    )
    if unpublished:
        names = ", ".join(f"“{title}”" for title in unpublished)
        return warn("Related links", f"Not public yet, so shown without a link: {names}.")
    return ok("Related links", "Every related article is public.")


# What publishing makes of a new topic, said where an editor is asked to confirm one.
NEW_TOPIC_MAKES = (
    "its own page, three feeds, an account on the fediverse and a line in the newsletter"
)
NEW_TOPIC = "new topic, needs an editor"


def new_topics(names):
    """Of the tag ``names`` (as Tag.objects.spellings gives them), those that are no
    public topic yet: carried by no article published or scheduled, and not set up by an
    editor (an intro, a place in the header). Publishing an article with one makes it a
    public topic, which is an editor's act; a writer's draft saved with a new tag made
    only its row."""
    names = list(dict.fromkeys(names))
    if not names:
        return []
    # EXISTS stops at a topic's first published article; a join read every tagging of
    # the article's topics (327,300 rows for four at 1,000,000 articles: 2.2 s a form).
    published = Exists(
        TaggedArticle.objects.filter(
            tag=OuterRef("pk"), content_object__status=Article.Status.PUBLISHED
        )
    )
    established = set(
        Tag.objects.filter(name__in=names)
        .filter(published | ~Q(intro="") | Q(header_position__isnull=False))
        .values_list("name", flat=True)
    )
    return [name for name in names if name not in established]


def quoted(names):
    return ", ".join(f"“{name}”" for name in names)


def topics_check(tags):
    new = new_topics(tags)
    if new:
        return warn(
            "Topics",
            f"{quoted(new)}: {NEW_TOPIC}. Publishing makes each a public topic "
            f"({NEW_TOPIC_MAKES}); an editor publishing a writer's asks first.",
        )
    return ok("Topics", "Every tag is a topic readers know already." if tags else "No tags.")


def checklist(*, summary, body_html, lead_image, sources, related_targets, facts_verified, tags=()):
    """[Check] for the article as the form holds it."""
    return [
        topics_check(tags),
        image_alt(body_html, lead_image),
        ok("Sources", f"{len(sources)} cited.")
        if sources
        else warn("Sources", "No sources: readers cannot check the facts."),
        lead_image_check(lead_image),
        summary_check(summary),
        facts_check(facts_verified),
        related_check(related_targets),
        heading_levels(body_html),
        broken_links(body_html, sources),
    ]
