import copy
import io
from datetime import UTC, date, datetime, time
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.core.files.storage import default_storage
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.utils.feedgenerator import Atom1Feed, Enclosure, Rss201rev2Feed
from django.utils.html import escape

from images.renditions import social_rendition
from pagecache.dependencies import cached_page
from people.models import Author

from . import follow
from .dependencies import CORRECTIONS, FEEDS
from .models import Article, Correction, tagged, with_topics
from .paths import absolute, origin
from .templatetags.news import EDITORIAL_NAME, author_url, xml_text
from .topics import get_topic_or_404

FEED_SIZE = 20
AUTHOR = EDITORIAL_NAME
DUBLIN_CORE = "http://purl.org/dc/elements/1.1/"
# The date in the feeds' own ids: any date on which the id authority was Skillo's.
FEED_ID_DATE = date(2024, 1, 1)


def tag_uri(day, specific):
    """A permanent id (RFC 4151): neither a new slug nor a new host or scheme changes it,
    so no subscriber gets an article again as new. ``day`` is one on which the authority
    (FEED_ID_AUTHORITY) was Skillo's."""
    return f"tag:{settings.SKILLO_FEED_ID_AUTHORITY},{day:%Y-%m-%d}:{specific}"


def browser_note(about):
    """What a person who opened a feed in a browser reads first (the browser shows its
    source): how to follow it, and the page showing it to people, at ``about``."""
    return (
        "This is a feed, for feed readers: add its address to one to follow it. "
        f"To read it as a web page, with its addresses in every format, open {about}"
    )


def comment_safe(url):
    """``url`` without "--", which an XML comment cannot hold: "-%2D" in the path (the
    same address), and the path alone if the host has it (a punycode name)."""
    parts = urlsplit(url)
    path = url[len(f"{parts.scheme}://{parts.netloc}") :].replace("--", "-%2D")
    return path if "--" in parts.netloc else f"{parts.scheme}://{parts.netloc}{path}"


class WithBrowserNote:
    """An XML feed with browser_note() in a comment after the XML declaration, where a
    browser showing the feed's source shows it first. Feed readers skip comments: what
    they read is unchanged. (No stylesheet: browsers are dropping XSLT.)"""

    def write(self, outfile, encoding):
        about = self.feed.get("about_url")
        if not about:
            return super().write(outfile, encoding)
        document = io.StringIO()
        super().write(document, encoding)
        declaration, rest = document.getvalue().split("\n", 1)
        note = xml_text(browser_note(comment_safe(about)))
        outfile.write(f"{declaration}\n<!-- {note} -->\n{rest}")


class StableWhenEmpty:
    """A feed without items dates itself from ``updated_when_empty`` (the author's last
    change), not from the time of the request, as Django does: an author without
    articles yet has a feed that does not change on every request."""

    def latest_post_date(self):
        if not self.items and self.feed.get("updated_when_empty"):
            return self.feed["updated_when_empty"]
        return super().latest_post_date()


class RssWithCreators(WithBrowserNote, StableWhenEmpty, Rss201rev2Feed):
    """RSS 2.0 with each author of an item as a Dublin Core <dc:creator> (RSS's own
    <author> wants an e-mail address), the namespace declared once on the root."""

    def rss_attributes(self):
        return {**super().rss_attributes(), "xmlns:dc": DUBLIN_CORE}

    def add_item_elements(self, handler, item):
        # Django would write one creator, declaring the namespace on it: written here.
        super().add_item_elements(handler, {**item, "author_name": None})
        # The desk's name for an article without authors, as before bylines.
        for name in [name for name, _ in item["authors"]] or [item["author_name"]]:
            handler.addQuickElement("dc:creator", name)


class RssStableWhenEmpty(WithBrowserNote, StableWhenEmpty, Rss201rev2Feed):
    """RSS whose date, with no items, is ``updated_when_empty`` rather than the time of
    the request."""


class AtomWithContent(WithBrowserNote, StableWhenEmpty, Atom1Feed):
    """Atom with the whole article in <content type="html"> beside a short <summary>,
    and an <author> (name, page) per author of an entry."""

    def add_item_elements(self, handler, item):
        # Django writes one author per entry: the desk's, for an article without any.
        authors = item["authors"]
        super().add_item_elements(handler, {**item, "author_name": None} if authors else item)
        for name, uri in authors:
            handler.startElement("author", {})
            handler.addQuickElement("name", name)
            handler.addQuickElement("uri", uri)
            handler.endElement("author")
        handler.addQuickElement("content", item["content"], {"type": "html"})


class ShowsItsPage:
    """A feed that names its page for people (``about_url``, for WithBrowserNote and
    JSON Feed's ``user_comment``): ``followed(obj)`` says what it follows (news.follow),
    which also gives its title, description and link."""

    def __call__(self, request, *args, **kwargs):
        # One feed object serves every request (urls.py), perhaps in several threads: a
        # copy per request holds the request, for the feed's own address.
        feed = copy.copy(self)
        feed.request = request
        return super(ShowsItsPage, feed).__call__(request, *args, **kwargs)

    def followed(self, obj):
        raise NotImplementedError

    def title(self, obj):
        return xml_text(self.followed(obj).title)

    def description(self, obj):
        return xml_text(self.followed(obj).description)

    # Every address on the site's (news.paths.absolute): Django would make them from the
    # request's host, and feed readers keep what a feed says.
    def link(self, obj):
        return absolute(self.followed(obj).page)

    def feed_url(self, obj):
        return absolute(self.request.path)

    def item_link(self, item):
        return absolute(item.get_absolute_url())

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        feed.feed["about_url"] = absolute(self.followed(obj).about)
        return feed


# Feeds show every public article's dates and its authors' names: any public change,
# and any author's, counts.
@cached_page(FEEDS)
class LatestArticlesFeed(ShowsItsPage, Feed):
    feed_type = RssWithCreators
    # RFC 4287 wants an author for every entry: the desk, for articles without authors.
    author_name = AUTHOR
    item_author_name = AUTHOR
    item_guid_is_permalink = False

    def feed_guid(self):
        return tag_uri(FEED_ID_DATE, "feed")

    def followed(self, obj):
        return follow.site()

    def articles(self):
        return Article.objects.for_list().select_related("lead_image").prefetch_related("sources")

    def chosen(self, articles, obj):
        """Those of the published ``articles`` the feed of ``obj`` carries (its first
        FEED_SIZE, as its page shows them)."""
        return articles

    def items(self, obj):
        return with_topics(self.chosen(self.articles(), obj)[:FEED_SIZE])

    # Typed text goes through xml_text(): one stray control character would otherwise
    # make Django refuse to write the feed at all (a 500 for every reader).
    def item_title(self, item):
        return xml_text(item.title)

    def item_description(self, item):
        return self.full_text(item)

    def full_text(self, item):
        # Pictures in the full text need absolute URLs.
        context = {"article": item, "base": origin()}
        return xml_text(render_to_string("news/feed_item.html", context))

    def item_guid(self, item):
        # The id is the article's primary key, which a whole-site backup restores; its
        # creation time is not restored, so it is not part of the id.
        return tag_uri(FEED_ID_DATE, f"article:{item.pk}")

    def item_categories(self, item):
        return [xml_text(tag.name) for tag in item.topics]

    def item_enclosures(self, item):
        # The lead image as link previews show it (1200 x 630, JPEG): RSS <enclosure>,
        # Atom <link rel="enclosure">.
        if not (item.lead_image_id and item.lead_image.crops_ready):
            return []
        card = social_rendition(item.lead_image, "card")
        try:
            length = default_storage.size(card.name)
        except OSError:
            length = 0  # not made yet (restored without renditions): the URL still stands
        return [Enclosure(card.url, str(length), card.mime_type)]

    def get_feed(self, obj, request):
        feed = super().get_feed(obj, request)
        # Django makes links absolute but not enclosures; MEDIA_URL is a path by default.
        for item in feed.items:
            for enclosure in item["enclosures"]:
                enclosure.url = absolute(enclosure.url)
        return feed

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at

    def item_extra_kwargs(self, item):
        return {
            "authors": [
                (
                    xml_text(author.name),
                    absolute(author_url(author)),
                )
                for author in item.byline
            ]
        }


class LatestArticlesAtomFeed(LatestArticlesFeed):
    feed_type = AtomWithContent

    def subtitle(self, obj):
        return self.description(obj)

    def feed_guid(self):
        return tag_uri(FEED_ID_DATE, "feed:atom")

    def item_description(self, item):
        # Atom's summary is type="html": a teaser of plain text is escaped into HTML.
        return xml_text(escape(item.teaser))

    def item_extra_kwargs(self, item):
        return {**super().item_extra_kwargs(item), "content": self.full_text(item)}


class TagFeed(LatestArticlesFeed):
    def get_object(self, request, slug):
        return get_topic_or_404(slug)

    def feed_guid(self, tag):
        return tag_uri(FEED_ID_DATE, f"topic:{tag.pk}")

    def followed(self, tag):
        return follow.topic(tag)

    def chosen(self, articles, tag):
        return articles.filter(tagged(tag.pk, tag.article_count))


class TagAtomFeed(TagFeed, LatestArticlesAtomFeed):
    def feed_guid(self, tag):
        # By its slug, its address: a site restore gives topics new ids (tags.txt has
        # none), and a feed's id must survive it as its articles' ids do.
        return tag_uri(FEED_ID_DATE, f"topic:{tag.slug}:atom")


class AuthorFeed(LatestArticlesFeed):
    def get_object(self, request, slug):
        return get_object_or_404(Author, slug=slug)

    def feed_guid(self, author):
        return tag_uri(FEED_ID_DATE, f"author:{author.pk}")

    def followed(self, author):
        return follow.author(author)

    def chosen(self, articles, author):
        return articles.filter(authorships__author=author.pk)

    def feed_extra_kwargs(self, author):
        return {"updated_when_empty": author.updated_at}


class AuthorAtomFeed(AuthorFeed, LatestArticlesAtomFeed):
    def feed_guid(self, author):
        return tag_uri(FEED_ID_DATE, f"author:{author.pk}:atom")


# Article titles (any public change purges FEEDS) and the corrections themselves.
@cached_page(FEEDS, CORRECTIONS)
class CorrectionsFeed(ShowsItsPage, Feed):
    """Every correction, newest first, each linking to its place on the article page."""

    feed_type = RssStableWhenEmpty
    item_guid_is_permalink = False

    def feed_guid(self):
        return tag_uri(FEED_ID_DATE, "feed:corrections")

    def followed(self, obj):
        return follow.corrections()

    def items(self):
        return Correction.objects.public()[:FEED_SIZE]

    def feed_extra_kwargs(self, obj):
        # Without corrections yet the feed does not change on every request.
        return {"updated_when_empty": datetime.combine(FEED_ID_DATE, time.min, tzinfo=UTC)}

    def item_title(self, correction):
        return xml_text(f"Correction: {correction.article.title}")

    def item_description(self, correction):
        return xml_text(escape(correction.note))

    def item_link(self, correction):
        return absolute(correction.get_absolute_url())

    def item_guid(self, correction):
        return tag_uri(FEED_ID_DATE, f"correction:{correction.pk}")

    def item_pubdate(self, correction):
        return correction.published_at
