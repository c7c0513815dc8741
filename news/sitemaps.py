from collections import namedtuple
from collections.abc import Sequence
from datetime import timedelta
from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.core.paginator import Paginator
from django.db.models import Count, Exists, F, Max, OuterRef, Q, Window
from django.db.models.functions import Mod, RowNumber
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import cached_property

from pagecache.remembered import remember
from people.models import Author

from .dependencies import FEEDS, TOPICS
from .models import Article, ArticleAuthor, Correction, TaggedArticle
from .paths import origin
from .templatetags.news import author_url, tag_url
from .topics import all_topics, topic_count, topic_latest_changes

NEWS_SITEMAP_AGE = timedelta(days=2)


# Small pages keep each one fast to build (a page is one indexed slice, not the whole
# archive); the index lists them all.
PAGE_SIZE = 1000


def latest_update(articles):
    """When the latest of ``articles`` (published ones) changed: read from the index on
    (status, updated_at) newest first, so it costs a row or a few, whatever the archive's
    size (an aggregate read every published article)."""
    return articles.order_by("-updated_at").values_list("updated_at", flat=True).first()


def latest_change():
    """When a published article last changed: the home page's and the index's lastmod,
    worked out once per change (any public change purges FEEDS)."""
    return remember(
        "articles:latest-change", [FEEDS()], lambda: latest_update(Article.objects.published())
    )


def page_starts(size):
    """Where each page of ``size`` articles of the sitemap starts, newest first: the
    (published_at, id) of its first article, and the number of published articles. One
    walk along the index article_status_published per change (any public change purges
    FEEDS), so that each page is then one indexed range: with OFFSET, the last page of a
    million articles read all the others first (3.5 s), and walking every page was
    quadratic in the archive."""
    order = [F("published_at").desc(), F("pk").desc()]
    starts = (
        Article.objects.published()
        .annotate(row=Window(RowNumber(), order_by=order), total=Window(Count("pk")))
        .annotate(place=Mod(F("row") - 1, size))
        .filter(place=0)
        .order_by(*order)
        .values_list("published_at", "pk", "total")
    )
    return remember(f"articles:sitemap-pages:{size}", [FEEDS()], lambda: list(starts))


class PublishedArticlesPaginator(Paginator):
    """The sitemap's pages of articles, each read from where page_starts() says it
    starts; the index counts them from the same list, so the two agree."""

    @cached_property
    def starts(self):
        return page_starts(self.per_page)

    @cached_property
    def count(self):
        return self.starts[0][2] if self.starts else 0

    def page(self, number):
        number = self.validate_number(number)
        if not self.starts:  # no article: the one empty page
            return self._get_page(self.object_list.none(), number, self)
        at, pk, _ = self.starts[number - 1]
        # published_at <= at bounds the index scan; the OR then only sorts out ties.
        rows = self.object_list.filter(published_at__lte=at).filter(
            Q(published_at__lt=at) | Q(pk__lte=pk)
        )
        return self._get_page(rows[: self.per_page], number, self)


class OnSite(Sitemap):
    """A sitemap whose addresses are on the site's public address (news.paths.absolute),
    whatever host the request for it named."""

    @property
    def protocol(self):
        return urlsplit(origin()).scheme

    def get_domain(self, site=None):
        return urlsplit(origin()).netloc


class ArticleSitemap(OnSite):
    limit = PAGE_SIZE

    @property
    def paginator(self):
        return PublishedArticlesPaginator(self._items(), self.limit)

    def get_latest_lastmod(self):
        # For the index, one aggregate; Django's default would read every article.
        return latest_change()

    def items(self):
        # The id breaks ties (articles published at one moment), so pages of the sitemap
        # never change order between queries or databases.
        return (
            Article.objects.published().only("slug", "updated_at").order_by("-published_at", "-pk")
        )

    def lastmod(self, article):
        return article.updated_at


class TopicsPaginator(Paginator):
    """Pages of the topics' sitemap for the index, without reading all 5,000 topics'
    rows out of the cache (a few ms each time) just to count them."""

    @cached_property
    def count(self):
        return topic_count()


class TagSitemap(OnSite):
    limit = PAGE_SIZE

    @property
    def paginator(self):
        return TopicsPaginator(self._items(), self.limit)

    def items(self):
        return all_topics()

    def location(self, tag):
        return tag_url(tag)

    @cached_property
    def latest_changes(self):
        return topic_latest_changes()

    def lastmod(self, tag):
        return self.latest_changes.get(tag.pk)

    def get_latest_lastmod(self):
        # For the index: the latest of every topic's lastmod is the latest change of a
        # published article with a topic, without working out each topic's (which reads
        # every tagging of every published article).
        tagged = Exists(TaggedArticle.objects.filter(content_object=OuterRef("pk")))
        return remember(
            "topics:latest-change",
            [TOPICS(), FEEDS()],
            lambda: latest_update(Article.objects.published().filter(tagged)),
        )


def author_pages():
    """(slug, lastmod) of every author page: the later of the author's own change and
    their latest published article's, worked out once per change (an author's change and
    any public article's purge FEEDS)."""

    def pages():
        authors = Author.objects.annotate(
            latest_article=Max(
                "authorships__article__updated_at",
                filter=Q(authorships__article__in=Article.objects.published()),
            )
        ).order_by("slug")
        return [
            (author.slug, max(filter(None, [author.updated_at, author.latest_article])))
            for author in authors
        ]

    return remember("authors:pages", [FEEDS()], pages)


AuthorPage = namedtuple("AuthorPage", "slug updated_at")


class AuthorPages(Sequence):
    """The author pages as AuthorPage pairs (plain pairs: making 300 Author objects twice
    per request cost more than the rest), worked out only when a page of them is read:
    the index counts them from the authors' table, not from every byline."""

    def __len__(self):
        # An author's change, a new one's included, purges FEEDS.
        return remember("authors:count", [FEEDS()], Author.objects.count)

    def __getitem__(self, index):
        return [AuthorPage(slug, lastmod) for slug, lastmod in author_pages()][index]


class AuthorSitemap(OnSite):
    limit = PAGE_SIZE
    # A site may have no authors yet: then the index leaves this section out.
    may_be_empty = True

    def items(self):
        return AuthorPages()

    def location(self, author):
        return author_url(author)

    def lastmod(self, author):
        return author.updated_at

    def get_latest_lastmod(self):
        # For the index, as the topics': the latest author change or change of a published
        # article with a byline, without each author's (bylines x articles).
        return remember("authors:latest-change", [FEEDS()], authors_latest_change)


def authors_latest_change():
    bylined = Exists(ArticleAuthor.objects.filter(article=OuterRef("pk")))
    article = latest_update(Article.objects.published().filter(bylined))
    author = Author.objects.order_by("-updated_at").values_list("updated_at", flat=True).first()
    return max(filter(None, [article, author]), default=None)


class HomeSitemap(OnSite):
    changefreq = "hourly"

    def items(self):
        return ["news:index"]

    def location(self, name):
        return reverse(name)

    def lastmod(self, name):
        return latest_change()


def latest_correction():
    """When the newest public correction was published (the corrections page's lastmod),
    worked out once per change (a correction, and any public article change, purge
    FEEDS)."""

    def latest():
        return Correction.objects.public().values_list("published_at", flat=True).first()

    return remember("corrections:latest", [FEEDS()], latest)


class CorrectionsSitemap(OnSite):
    # Listed once there is a correction (an empty page has no lastmod worth giving).
    may_be_empty = True

    def items(self):
        return ["news:corrections"] if latest_correction() else []

    def location(self, name):
        return reverse(name)

    def lastmod(self, name):
        return latest_correction()

    def get_latest_lastmod(self):
        return latest_correction()


class Sections(dict):
    """The sitemaps by section. The index (which reads ``items()``) leaves out a section
    that may be empty while it is: a sitemap must list at least one address."""

    def items(self):
        return [
            (name, site)
            for name, site in super().items()
            if not getattr(site, "may_be_empty", False) or site().items()
        ]


SITEMAPS = Sections(
    home=HomeSitemap,
    articles=ArticleSitemap,
    tags=TagSitemap,
    authors=AuthorSitemap,
    corrections=CorrectionsSitemap,
)


def recent_news():
    """Articles for the Google News sitemap: published in the last two days, or else the
    newest one, since a sitemap must list at least one address (sitemaps.org schema)."""
    since = timezone.now() - NEWS_SITEMAP_AGE
    # Rows, not Article objects: making a thousand of them was most of the page.
    newest = Article.objects.published().values_list("title", "slug", "published_at", named=True)
    return list(newest.filter(published_at__gte=since)[:1000]) or list(newest[:1])
