from django.contrib.syndication.views import Feed
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from pagecache.dependencies import cached_page

from .dependencies import FEEDS
from .models import Article, tagged
from .templatetags.news import xml_text
from .topics import get_topic_or_404

FEED_SIZE = 20


# Feeds show every public article's dates: any public change counts.
@cached_page(FEEDS)
class LatestArticlesFeed(Feed):
    title = "Skillo"
    description = "The latest Skillo articles on tech releases, with their sources."

    def link(self):
        return reverse("news:index")

    def articles(self):
        return Article.objects.for_list().prefetch_related("sources")

    def items(self):
        return self.articles()[:FEED_SIZE]

    # Typed text goes through xml_text(): one stray control character would otherwise
    # make Django refuse to write the feed at all (a 500 for every reader).
    def item_title(self, item):
        return xml_text(item.title)

    def item_description(self, item):
        return xml_text(render_to_string("news/feed_item.html", {"article": item}))

    def item_categories(self, item):
        return [xml_text(tag.name) for tag in item.tags.all()]

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at


class LatestArticlesAtomFeed(LatestArticlesFeed):
    feed_type = Atom1Feed
    subtitle = LatestArticlesFeed.description


class TagFeed(LatestArticlesFeed):
    def get_object(self, request, slug):
        return get_topic_or_404(slug)

    def title(self, tag):
        return f"Skillo: {xml_text(tag.name)}"

    def description(self, tag):
        return f"The latest Skillo articles tagged {xml_text(tag.name)}."

    def link(self, tag):
        return reverse("news:tag", kwargs={"slug": tag.slug})

    def items(self, tag):
        return self.articles().filter(tagged(tag.pk, tag.article_count))[:FEED_SIZE]
