from django import template
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from live.dependencies import LIVE
from live.models import LiveCoverage
from live.reading import key_events, page_of_entries, render_entries, structured_data
from live.stories import live_story_ids
from pagecache.dependencies import depends_on

register = template.Library()


@register.simple_tag(takes_context=True)
def live_feed_links(context, article):
    """The <link rel="alternate"> of a live story's feeds, for the page's head, where
    feed readers look for them; nothing for an article without coverage."""
    depends_on(context["request"], LIVE(article.pk))
    if article.pk not in live_story_ids():
        return ""
    title = f"{article.title}: live updates"
    return format_html(
        '<link rel="alternate" type="application/atom+xml" title="{} (Atom)" href="{}">\n'
        '  <link rel="alternate" type="application/feed+json" title="{} (JSON Feed)" href="{}">',
        title, reverse("live:feed", args=[article.pk]),
        title, reverse("live:json-feed", args=[article.pk]),
    )  # fmt: skip


@register.simple_tag(takes_context=True)
def live_coverage(context, article):
    """An article page's live coverage, if it has any: its state, "What we know", key
    events and newest entries. The page depends on the coverage (LIVE) either way, so
    that turning coverage on shows it. No query for an article without coverage once the
    live stories are remembered (live.stories)."""
    request = context["request"]
    depends_on(request, LIVE(article.pk))
    if article.pk not in live_story_ids():
        return ""
    coverage = LiveCoverage.objects.filter(pk=article.pk).first()
    if coverage is None:
        return ""
    entries, more = page_of_entries(coverage)
    shown = render_entries(entries)
    depends_on(request, *shown.dependencies)
    return mark_safe(
        render_to_string(
            "live/coverage.html",
            {
                "coverage": coverage,
                "article": article,
                "entries": shown.html,
                "count": len(entries),
                "more": more,
                "key_events": key_events(coverage),
                "structured_data": structured_data(coverage, article, entries),
            },
        )
    )


@register.simple_tag
def live_key_events(article, base=""):
    """A live story's key events, newest first, as the fediverse's copy of the story
    shows them above its text (a new one sends followers an Update); nothing for an
    article without coverage, at no query once the live stories are remembered."""
    if article.pk not in live_story_ids():
        return ""
    events = key_events(LiveCoverage(pk=article.pk))
    if not events:
        return ""
    return mark_safe(
        render_to_string(
            "live/fediverse_key_events.html",
            {"events": events, "url": base + article.get_absolute_url()},
        )
    )
