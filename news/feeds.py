import contextvars
from datetime import date

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.core.files.storage import default_storage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed, Enclosure
from django.utils.html import escape

from images.renditions import social_rendition
from pagecache.dependencies import cached_page

from .dependencies import FEEDS
from .models import Article, tagged
from .templatetags.news import xml_text
from .topics import get_topic_or_404

FEED_SIZE = 20
_site = contextvars.ContextVar("site", default="")
AUTHOR = "Skillo editorial"
# The date in the feeds' own ids: any date on which the id authority was Skillo's.
FEED_ID_DATE = date(2024, 1, 1)


def tag_uri(day, specific):
    """A permanent id (RFC 4151): neither a new slug nor a new host or scheme changes it,
    so no subscriber gets an article again as new. ``day`` is one on which the authority
    (FEED_ID_AUTHORITY) was Skillo's."""
    return f"tag:{settings.SKILLO_FEED_ID_AUTHORITY},{day:%Y-%m-%d}:{specific}"


class AtomWithContent(Atom1Feed):
    """Atom with the whole article in <content type="html"> beside a short <summary>."""

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        handler.addQuickElement("content", item["content"], {"type": "html"})


# Feeds show every public article's dates: any public change counts.
@cached_page(FEEDS)
class LatestArticlesFeed(Feed):
    title = "Skillo"
    description = "The latest Skillo articles on tech releases, with their sources."
    # RFC 4287 wants an author for every entry; until articles have bylines, the desk.
    author_name = AUTHOR
    item_author_name = AUTHOR
    item_guid_is_permalink = False

    def feed_guid(self):
        return tag_uri(FEED_ID_DATE, "feed")

    def link(self):
        return reverse("news:index")

    def articles(self):
        return Article.objects.for_list().select_related("lead_image").prefetch_related("sources")

    def items(self):
        return self.articles()[:FEED_SIZE]

    # Typed text goes through xml_text(): one stray control character would otherwise
    # make Django refuse to write the feed at all (a 500 for every reader).
    def item_title(self, item):
        return xml_text(item.title)

    def item_description(self, item):
        return self.full_text(item)

    @staticmethod
    def full_text(item):
        context = {"article": item, "base": _site.get()}
        return xml_text(render_to_string("news/feed_item.html", context))

    def item_guid(self, item):
        # The id is the article's primary key, which a whole-site backup restores; its
        # creation time is not restored, so it is not part of the id.
        return tag_uri(FEED_ID_DATE, f"article:{item.pk}")

    def item_categories(self, item):
        return [xml_text(tag.name) for tag in item.tags.all()]

    def item_enclosures(self, item):
        # The lead image as link previews show it (1200 x 630, JPEG): RSS <enclosure>,
        # Atom <link rel="enclosure">.
        if not item.lead_image_id:
            return []
        card = social_rendition(item.lead_image, "card")
        try:
            length = default_storage.size(card.name)
        except OSError:
            length = 0  # not made yet (restored without renditions): the URL still stands
        return [Enclosure(card.url, str(length), card.mime_type)]

    def get_feed(self, obj, request):
        # Pictures in the full text need absolute URLs; the Feed API passes the request
        # to none of the item methods.
        _site.set(request.build_absolute_uri("/")[:-1])
        feed = super().get_feed(obj, request)
        # Django makes links absolute but not enclosures; MEDIA_URL is a path by default.
        for item in feed.items:
            for enclosure in item["enclosures"]:
                enclosure.url = request.build_absolute_uri(enclosure.url)
        return feed

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at


class LatestArticlesAtomFeed(LatestArticlesFeed):
    feed_type = AtomWithContent
    subtitle = LatestArticlesFeed.description

    def feed_guid(self):
        return tag_uri(FEED_ID_DATE, "feed:atom")

    def item_description(self, item):
        # Atom's summary is type="html": a teaser of plain text is escaped into HTML.
        return xml_text(escape(item.teaser))

    def item_extra_kwargs(self, item):
        return {"content": self.full_text(item)}


class TagFeed(LatestArticlesFeed):
    def get_object(self, request, slug):
        return get_topic_or_404(slug)

    def feed_guid(self, tag):
        return tag_uri(FEED_ID_DATE, f"topic:{tag.pk}")

    def title(self, tag):
        return f"Skillo: {xml_text(tag.name)}"

    def description(self, tag):
        return f"The latest Skillo articles tagged {xml_text(tag.name)}."

    def link(self, tag):
        return reverse("news:tag", kwargs={"slug": tag.slug})

    def items(self, tag):
        return self.articles().filter(tagged(tag.pk, tag.article_count))[:FEED_SIZE]
