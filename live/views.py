"""Readers' pages of a live story beyond its article page: all its entries page by page
(newest or oldest first), and the updates an open page asks for (live/static/live/live.js).

All are public pages kept by the page cache and Varnish until the story's coverage
changes (LIVE): however many readers have the story open, the app builds each answer
once per change.
"""

from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string

from news.dependencies import ARTICLE, NAV
from pagecache.dependencies import cached_page, depends_on

from .dependencies import LIVE
from .models import Entry, LiveCoverage, RemovedEntry
from .reading import page_of_entries, render_entries

# An open page further behind than this many changed entries is told to reload.
UPDATES_AT_MOST = 50


def published_coverage(request, pk):
    """The story's coverage, if readers may see the story. Its pages show the coverage
    (LIVE) and the article (its title; whether it is public at all), so unpublishing the
    article purges them too (the coverage's pk is its article's)."""
    depends_on(request, LIVE(pk), ARTICLE(pk))
    return get_object_or_404(LiveCoverage.objects.published().select_related("article"), pk=pk)


# Past any page or version a story has, and within the databases' 64-bit integers once
# made an offset: a larger number is no page (?page= with 20 digits was a 500).
LARGEST = 2**53


def whole_number(value):
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number <= LARGEST else None


@cached_page(NAV, parameters=["page", "order"])
def entries(request, pk):
    """Every entry, 50 a page: newest first, or (order=oldest) from the start."""
    coverage = published_coverage(request, pk)
    number = whole_number(request.GET.get("page", "1"))
    oldest_first = request.GET.get("order") == "oldest"
    if not number:
        raise Http404("No such page.")
    found, more = page_of_entries(coverage, number, oldest_first=oldest_first)
    if not found and number > 1:
        raise Http404("No such page.")
    shown = render_entries(found)
    depends_on(request, *shown.dependencies)
    return render(
        request,
        "live/entries.html",
        {
            "coverage": coverage,
            "article": coverage.article,
            "entries": shown.html,
            "number": number,
            "more": more,
            "oldest_first": oldest_first,
        },
    )


@cached_page(parameters=["since"])
def updates(request, pk):
    """What changed since the version an open page shows (``since``): the story's version
    and state (and its words), the entries posted or changed since (their HTML, as on the
    page), the numbers of those deleted, and "What we know" if it changed. Without ``since``, or
    with the current version, only the version and state: a few dozen bytes."""
    coverage = published_coverage(request, pk)
    since = whole_number(request.GET.get("since"))
    answer = {
        "version": coverage.version,
        "state": coverage.state,
    }
    if since is not None and since < coverage.version:
        # The state's words (Live since ..., Ended at ...): it may have started or ended.
        answer["status"] = render_to_string("live/state.html", {"coverage": coverage}).strip()
        changed = list(
            Entry.objects.for_page()
            .filter(coverage=coverage, version__gt=since)
            .order_by("posted_at", "pk")[: UPDATES_AT_MOST + 1]
        )
        if len(changed) > UPDATES_AT_MOST:
            answer["reload"] = True
        else:
            shown = render_entries(changed)
            depends_on(request, *shown.dependencies)
            answer["entries"] = [
                {"id": entry.pk, "version": entry.version, "html": html}
                for entry, html in zip(changed, shown.html, strict=True)
            ]
            answer["removed"] = list(
                RemovedEntry.objects.filter(coverage=coverage, version__gt=since).values_list(
                    "entry_id", flat=True
                )
            )
            if coverage.summary_version > since:
                answer["summary"] = coverage.summary_html
    response = JsonResponse(answer)
    response["X-Robots-Tag"] = "noindex"
    return response
