from datetime import timedelta

from django.contrib.sitemaps import Sitemap
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone

from pagecache.store import remember

from .dependencies import FEEDS
from .models import Article
from .templatetags.news import tag_url
from .topics import all_topics

NEWS_SITEMAP_AGE = timedelta(days=2)


# Small pages keep each one fast to build (a page is one indexed slice, not the whole
# archive); the index lists them all.
PAGE_SIZE = 1000


def latest_change():
    """When a published article last changed: the home page's and the index's lastmod,
    worked out once per change (any public change purges FEEDS)."""

    def latest():
        return Article.objects.published().aggregate(latest=Max("updated_at"))["latest"]

    return remember("articles:latest-change", [FEEDS()], latest)


class ArticleSitemap(Sitemap):
    limit = PAGE_SIZE

    def get_latest_lastmod(self):
        # For the index, one aggregate; Django's default would read every article.
        return latest_change()

    def items(self):
        return Article.objects.published().only("slug", "updated_at").order_by("-published_at")

    def lastmod(self, article):
        return article.updated_at


class TagSitemap(Sitemap):
    limit = PAGE_SIZE

    def items(self):
        return all_topics()

    def location(self, tag):
        return tag_url(tag)

    def lastmod(self, tag):
        return tag.latest_change

    def get_latest_lastmod(self):
        return max((tag.latest_change for tag in all_topics()), default=None)


class HomeSitemap(Sitemap):
    changefreq = "hourly"

    def items(self):
        return ["news:index"]

    def location(self, name):
        return reverse(name)

    def lastmod(self, name):
        return latest_change()


SITEMAPS = {"home": HomeSitemap, "articles": ArticleSitemap, "tags": TagSitemap}


def recent_news():
    """Articles for the Google News sitemap: published in the last two days, or else the
    newest one, since a sitemap must list at least one address (sitemaps.org schema)."""
    since = timezone.now() - NEWS_SITEMAP_AGE
    newest = Article.objects.published().only("title", "slug", "published_at")
    return list(newest.filter(published_at__gte=since)[:1000]) or list(newest[:1])
