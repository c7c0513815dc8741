from datetime import timedelta

from django.contrib.sitemaps import Sitemap
from django.urls import reverse
from django.utils import timezone

from .models import Article
from .templatetags.news import tag_url
from .topics import all_topics

NEWS_SITEMAP_AGE = timedelta(days=2)


# Small pages keep each one fast to build (a page is one indexed slice, not the whole
# archive); the index lists them all.
PAGE_SIZE = 1000


class ArticleSitemap(Sitemap):
    limit = PAGE_SIZE

    def get_latest_lastmod(self):
        # Django's default reads every article; the index does not need it.
        return None

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


class HomeSitemap(Sitemap):
    changefreq = "hourly"

    def items(self):
        return ["news:index"]

    def location(self, name):
        return reverse(name)


SITEMAPS = {"home": HomeSitemap, "articles": ArticleSitemap, "tags": TagSitemap}


def recent_news():
    """Articles for the Google News sitemap: published in the last two days."""
    since = timezone.now() - NEWS_SITEMAP_AGE
    return (
        Article.objects.published()
        .filter(published_at__gte=since)
        .only("title", "slug", "published_at")
        .order_by("-published_at")[:1000]
    )
