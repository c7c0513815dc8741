"""A live story's entries as feeds: Atom (Django's syndication framework) and JSON Feed
1.1, the newest FEED_SIZE entries, each entry's id a tag URI that no new address changes."""

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import JsonResponse
from django.utils.feedgenerator import Atom1Feed

from news.feeds import AUTHOR, FEED_ID_DATE, WithBrowserNote, browser_note, tag_uri
from news.paths import absolute
from news.templatetags.news import placed, xml_text
from pagecache.dependencies import cached_page

from .models import Entry
from .reading import entry_headline
from .views import published_coverage

FEED_SIZE = 50


def feed_entries(coverage):
    return list(Entry.objects.for_page().filter(coverage=coverage)[:FEED_SIZE])


def entry_id(entry):
    return tag_uri(FEED_ID_DATE, f"live-entry:{entry.pk}")


def entry_html(entry):
    # Pictures as one plain <img> with an absolute address, as the articles' feeds give.
    return xml_text(placed(entry.anchored_html, base=absolute("/")))


class AtomWithBrowserNote(WithBrowserNote, Atom1Feed):
    """Atom that says, to a person who opened it in a browser, that it is a feed and
    where the story is."""


@cached_page()
class LiveEntriesFeed(Feed):
    feed_type = AtomWithBrowserNote
    author_name = AUTHOR

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        feed.feed["about_url"] = absolute(obj.article.get_absolute_url())
        return feed

    def get_object(self, request, pk):
        return published_coverage(request, pk)

    def title(self, obj):
        return xml_text(f"{obj.article.title}: live updates")

    def link(self, obj):
        return obj.article.get_absolute_url()

    def feed_guid(self, obj):
        return tag_uri(FEED_ID_DATE, f"live:{obj.pk}")

    def subtitle(self, obj):
        return xml_text(obj.article.description)

    def items(self, obj):
        return feed_entries(obj)

    def item_title(self, item):
        return xml_text(entry_headline(item))

    def item_description(self, item):
        return entry_html(item)

    def item_link(self, item):
        return item.get_absolute_url()

    def item_guid(self, item):
        return entry_id(item)

    item_guid_is_permalink = False

    def item_pubdate(self, item):
        return item.posted_at

    def item_updateddate(self, item):
        return item.edited_at or item.posted_at

    def item_author_name(self, item):
        return ", ".join(author.name for author in item.authors.all()) or AUTHOR


@cached_page()
def json_feed(request, pk):
    """JSON Feed 1.1 of the story's entries."""
    coverage = published_coverage(request, pk)
    article = coverage.article

    def item(entry):
        authors = [{"name": author.name} for author in entry.authors.all()]
        return {
            "id": entry_id(entry),
            "url": absolute(entry.get_absolute_url()),
            "title": entry_headline(entry),
            "content_html": entry_html(entry),
            "date_published": entry.posted_at.replace(microsecond=0).isoformat(),
            **(
                {"date_modified": entry.edited_at.replace(microsecond=0).isoformat()}
                if entry.edited_at
                else {}
            ),
            **({"authors": authors} if authors else {}),
            "tags": ["key event"] if entry.key_event else [],
        }

    return JsonResponse(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "user_comment": browser_note(absolute(article.get_absolute_url())),
            "title": f"{article.title}: live updates",
            "home_page_url": absolute(article.get_absolute_url()),
            "feed_url": absolute(request.path),
            "description": article.description,
            "language": settings.LANGUAGE_CODE,
            "authors": [{"name": AUTHOR}],
            "items": [item(entry) for entry in feed_entries(coverage)],
        },
        content_type="application/feed+json",
        json_dumps_params={"ensure_ascii": False},
    )
