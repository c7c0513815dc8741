import heapq
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET
from django.views.generic import DetailView, ListView, TemplateView

from images.cards import card_key, ensure_title_card
from images.views import media
from pagecache.dependencies import cached_page, depends_on
from people.models import Author

from . import follow, fragments
from .authors import get_author_or_404
from .dependencies import (
    ARTICLE,
    AUTHOR,
    AUTHOR_ARTICLES,
    AUTHORS,
    CORRECTIONS,
    FEEDS,
    FRONT,
    LATEST,
    NAV,
    TAG,
    TOPICS,
)
from .feeds import FEED_SIZE, AuthorFeed, LatestArticlesFeed, TagFeed
from .front import front_page
from .models import (
    Article,
    Correction,
    RetiredSlug,
    tagged,
    written_by,
)
from .paginator import LookaheadPaginator, NewestPaginator
from .paths import absolute
from .sitemaps import recent_news
from .topics import TopicIndex, all_topics, archive_months, get_topic_or_404

# /follow/ lists at most this many topics (the biggest) and authors; the topic and author
# indexes, whose pages link their feeds, list every one.
FOLLOW_LIMIT = 200


class ArticlesPageMixin:
    """A page of articles' cards, counted by nobody: the cached page depends on each
    article shown and on each author of their bylines."""

    paginator_class = LookaheadPaginator
    # False for a page that lists the articles without cards (a topic's timeline).
    shows_cards = True
    # Cards dated by the event (the archive) rather than by publication.
    event_cards = False

    def paginate_queryset(self, queryset, page_size):
        if self.shows_cards:
            # The page's articles by id: their cards are kept (news.fragments).
            queryset = queryset.values_list("pk", flat=True)
        return super().paginate_queryset(queryset, page_size)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        shown = self.show_cards(context) if self.shows_cards else context["articles"]
        depends_on(
            self.request,
            *ARTICLE.each(article.pk for article in shown),
            *AUTHOR.each(pk for card in shown for pk in getattr(card, "authors", ())),
        )
        return context

    def show_cards(self, context):
        """Put the page's cards in ``context``; return every card the page shows."""
        shown = fragments.cards(context["object_list"], event=self.event_cards)
        context["object_list"] = context["articles"] = shown
        return shown


# TOPICS: the first page's sections are laid out from the header topics' articles; an
# article tagged into a topic whose section had none must bring the section back.
@cached_page(NAV, LATEST, FRONT, TOPICS)
class ArticleListView(ArticlesPageMixin, ListView):
    paginator_class = NewestPaginator
    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/index.html"

    def get_queryset(self):
        # Built per request: published() compares against the current time.
        return Article.objects.published()

    def show_cards(self, context):
        if context["page_obj"].number > 1:
            return super().show_cards(context)
        # The first page as the editors lay it out (news.front); its sections' topics are
        # among what it shows through TOPICS (every purge of a topic's list purges it).
        front = front_page(list(context["object_list"]))
        context["front"] = front
        context["object_list"] = context["articles"] = front.rest
        return front.shown


def allow_players(response, origins):
    """``response`` with a CSP allowing frames from ``origins`` alone (the video players
    of the page's embed cards, loaded only when the reader clicks), or as it was."""
    if origins and settings.SECURE_CSP:
        response._csp_config = {**settings.SECURE_CSP, "frame-src": list(origins)}
    return response


@cached_page(NAV)
class ArticleDetailView(DetailView):
    context_object_name = "article"
    template_name = "news/article_detail.html"

    def can_preview(self):
        # Only a request with a session can be staff's: asking an anonymous reader's
        # request for its user reads the (empty) session, and the page then said
        # "Vary: Cookie", which splits caches in front by every cookie a reader has.
        request = self.request
        return settings.SESSION_COOKIE_NAME in request.COOKIES and request.user.has_perm(
            "news.view_article"
        )

    def get_object(self, queryset=None):
        # Staff see drafts and scheduled articles at their real URL (with a banner).
        self.preview = self.can_preview()
        # With its lead picture, joined: its own parts show it, and reading it apart
        # would cost them a query each time they are built. The share picture is rare:
        # read with its own parts (news.fragments) when they are built, rather than
        # joined on every request (a sixth of the query's time).
        articles = Article.objects.select_related("lead_image")
        if not self.preview:
            articles = articles.published()
        # The slug is unique: no ordering to work out (Meta.ordering cost a quarter of
        # the query's time in the ORM on a page whose parts are all kept).
        article = articles.filter(slug=self.kwargs["slug"]).order_by().first()
        if article is None:
            raise Http404("No such article.")
        return article

    def get(self, request, *args, **kwargs):
        try:
            response = super().get(request, *args, **kwargs)
        except Http404:
            return self.retired(kwargs["slug"])
        if not self.object.is_published():
            patch_cache_control(response, no_cache=True, no_store=True, private=True)
        return allow_players(response, self.player_origins)

    def retired(self, slug):
        """An old address: 301 to the article's current one, or 410 once it is deleted."""
        retired = RetiredSlug.objects.select_related("article").filter(slug=slug).first()
        if retired is None:
            raise Http404("No such article.")
        if retired.article is None:
            return render(self.request, "410.html", status=410)
        if retired.article.is_published() or self.can_preview():
            return HttpResponsePermanentRedirect(retired.article.get_absolute_url())
        raise Http404("No such article.")

    def get_context_data(self, **kwargs):
        article = self.object
        # Readers get the article's own parts and its surroundings as kept; a preview may
        # show what readers must not, so it neither reads nor keeps them.
        if self.preview:
            parts = fragments.render_own_parts(self.request, article)
            around, around_deps = fragments.render_surroundings(article, parts.topic_tags)
        else:
            parts = fragments.own_parts(self.request, article)
            around, around_deps = fragments.surroundings(article, parts.topic_tags)
        depends_on(self.request, ARTICLE(article.pk), *parts.dependencies, *around_deps)
        self.player_origins = parts.player_origins
        return super().get_context_data(parts=parts, around=around, **kwargs)


@cached_page(NAV, TOPICS)
class TagListView(ListView):
    # Thousands of topics: a page of them at a time, alphabetically.
    paginate_by = 200
    context_object_name = "tags"
    template_name = "news/tag_list.html"

    def get_queryset(self):
        return TopicIndex()


@cached_page(NAV)
class TagDetailView(ArticlesPageMixin, ListView):
    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/tag_detail.html"
    timeline = False

    def get_queryset(self):
        self.tag = get_topic_or_404(self.kwargs["slug"])
        depends_on(self.request, TAG(self.tag.pk))
        in_topic = tagged(self.tag.pk, self.tag.article_count)
        if self.timeline:
            self.shows_cards = False
            return (
                Article.objects.published()
                .filter(in_topic)
                .only("title", "slug", "event_date")
                .order_by("event_date", "published_at", "pk")
            )
        return Article.objects.published().filter(in_topic)

    def get_context_data(self, **kwargs):
        return super().get_context_data(tag=self.tag, timeline=self.timeline, **kwargs)


@cached_page(NAV, AUTHORS)
class AuthorListView(ListView):
    paginate_by = 200
    paginator_class = LookaheadPaginator
    context_object_name = "authors"
    template_name = "news/author_list.html"

    def get_queryset(self):
        return Author.objects.only("name", "slug", "role")


@cached_page(NAV)
class AuthorDetailView(ArticlesPageMixin, ListView):
    """An author's bio and links, and their published articles, newest first."""

    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/author_detail.html"

    def get_queryset(self):
        self.author, bylines = get_author_or_404(self.kwargs["slug"])
        pk = self.author.pk
        depends_on(self.request, AUTHOR(pk), AUTHOR_ARTICLES(pk))
        return Article.objects.published().filter(written_by(pk, bylines))

    def get_context_data(self, **kwargs):
        return super().get_context_data(author=self.author, **kwargs)


# Archive pages list which years and months have articles: any publication counts.
@cached_page(NAV, LATEST)
class ArchiveIndexView(TemplateView):
    """Every year and month with published articles, newest first, with how many."""

    template_name = "news/archive_index.html"

    def get_context_data(self, **kwargs):
        years = [
            (year, sorted(months.items(), reverse=True))
            for year, months in sorted(archive_months().items(), reverse=True)
        ]
        return super().get_context_data(years=years, **kwargs)


@cached_page(NAV, LATEST)
class ArchiveView(ArticlesPageMixin, ListView):
    """Published articles by event date: a year, or a month of it."""

    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/archive.html"
    event_cards = True

    def get_queryset(self):
        self.year, self.month = self.kwargs["year"], self.kwargs.get("month")
        if not 1 <= self.year <= 9999:
            raise Http404("No such year.")
        first, end = date(self.year, 1, 1), (self.year + 1, 1)
        if self.month is not None:
            if not 1 <= self.month <= 12:
                raise Http404("No such month.")
            first = date(self.year, self.month, 1)
            end = (self.year + self.month // 12, self.month % 12 + 1)
        # A range of event dates, which the index on (event_date, published_at) reads in
        # the page's order; __month would call a function on every article of the year.
        articles = Article.objects.published().filter(event_date__gte=first)
        if end[0] <= 9999:
            articles = articles.filter(event_date__lt=date(*end, 1))
        return articles.order_by("event_date", "published_at", "pk")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if not context["articles"]:
            raise Http404("No articles in this period.")
        months = archive_months()
        context.update(
            year=self.year,
            month=self.month,
            years=list(months),
            months=months.get(self.year, []),
            period=date(self.year, self.month or 1, 1),
        )
        return context


@cached_page(NAV, CORRECTIONS)
class CorrectionListView(ListView):
    """Every correction to a published article, newest first."""

    paginate_by = settings.SKILLO_PAGE_SIZE
    paginator_class = LookaheadPaginator
    context_object_name = "corrections"
    template_name = "news/corrections.html"

    def get_queryset(self):
        return Correction.objects.public()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        # Their titles, and unpublishing one of them drops its corrections from the list.
        depends_on(self.request, *ARTICLE.each(c.article_id for c in context["corrections"]))
        return context


def page_not_found(request, exception):
    """A 404 in the site's design, offering search and the latest articles."""
    latest = Article.objects.published().only("title", "slug", "published_at")[:5]
    return render(request, "404.html", {"latest": latest}, status=404)


@cached_page(NAV)
class AboutEditorialView(TemplateView):
    template_name = "news/about_editorial.html"


# Every topic's name and every author's: a topic or author renamed, added or gone.
@cached_page(NAV, TOPICS, AUTHORS)
class FollowView(TemplateView):
    """/follow/: every feed a reader can follow, each address in full, with a copy
    button."""

    template_name = "news/follow.html"

    def get_context_data(self, **kwargs):
        topics = all_topics()
        if len(topics) > FOLLOW_LIMIT:
            # The biggest, by their rows (id, name, slug, count): a Tag is made only for
            # those shown. The rows are by name, and so are the positions kept.
            counts = [row[3] for row in topics.rows]
            biggest = heapq.nlargest(FOLLOW_LIMIT, range(len(counts)), key=counts.__getitem__)
            shown = [topics[at] for at in sorted(biggest)]
        else:
            shown = list(topics)
        authors = list(Author.objects.only("name", "slug")[: FOLLOW_LIMIT + 1])
        return super().get_context_data(
            feed_size=FEED_SIZE,
            site=follow.site(),
            corrections=follow.corrections(),
            topics=[follow.topic(tag) for tag in shown],
            more_topics=len(topics) - len(shown),
            authors=[follow.author(author) for author in authors[:FOLLOW_LIMIT]],
            more_authors=len(authors) > FOLLOW_LIMIT,
            **kwargs,
        )


class FeedPageView(TemplateView):
    """A feed as a web page, for a person who opened the feed in a browser (which shows
    its source): what it follows, its addresses in each format with copy buttons, and
    the articles it carries now, as cards. ``feed``: the feed (news.feeds) it shows."""

    template_name = "news/feed_page.html"
    feed = None

    def subject(self):
        """The feed's object (a topic, an author), with the page's dependencies on it."""
        return None

    def get_context_data(self, **kwargs):
        obj = self.subject()
        feed = self.feed()
        # The feed's own choice of articles, as ids: their cards are kept (news.fragments).
        chosen = feed.chosen(Article.objects.for_list(), obj)
        shown = fragments.cards(list(chosen.values_list("pk", flat=True)[:FEED_SIZE]))
        depends_on(
            self.request,
            *ARTICLE.each(card.pk for card in shown),
            *AUTHOR.each(pk for card in shown for pk in card.authors),
        )
        return super().get_context_data(
            followed=feed.followed(obj), articles=shown, subject=obj, **kwargs
        )


# The latest articles, as the home page's list.
@cached_page(NAV, LATEST)
class SiteFeedPageView(FeedPageView):
    feed = LatestArticlesFeed


@cached_page(NAV)
class TagFeedPageView(FeedPageView):
    feed = TagFeed

    def subject(self):
        tag = get_topic_or_404(self.kwargs["slug"])
        depends_on(self.request, TAG(tag.pk))
        return tag


@cached_page(NAV)
class AuthorFeedPageView(FeedPageView):
    feed = AuthorFeed

    def subject(self):
        author, _ = get_author_or_404(self.kwargs["slug"])
        depends_on(self.request, AUTHOR(author.pk), AUTHOR_ARTICLES(author.pk))
        return author


@cached_page(NAV, CORRECTIONS)
class CorrectionsFeedPageView(TemplateView):
    """The corrections feed as a web page: its address and the corrections it carries."""

    template_name = "news/feed_page.html"

    def get_context_data(self, **kwargs):
        corrections = list(Correction.objects.public()[:FEED_SIZE])
        depends_on(self.request, *ARTICLE.each(c.article_id for c in corrections))
        return super().get_context_data(
            followed=follow.corrections(),
            corrections=corrections,
            shows_corrections=True,
            **kwargs,
        )


@cached_page(FEEDS)
@require_GET
def news_sitemap(request):
    articles = recent_news()
    if not articles:
        # Nothing published yet: robots.txt does not list it, and an empty one is invalid.
        raise Http404("Nothing published yet.")
    return render(
        request,
        "news/sitemap_news.xml",
        {"articles": articles},
        content_type="application/xml; charset=utf-8",
    )


# Lists the news sitemap once anything is published.
@cached_page(LATEST)
@require_GET
def robots_txt(request):
    # The search page is kept out of crawlers' way here, where they look first (it is
    # never cached and costs a full-text query); a noindex on the page itself would
    # never be seen by a crawler that obeys this.
    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /search/",
        "",
        f"Sitemap: {absolute(reverse('sitemap'))}",
    ]
    if archive_months():  # anything published (worked out once per change)
        lines.append(f"Sitemap: {absolute(reverse('news:sitemap-news'))}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


# How long security.txt says it holds. RFC 9116 asks for less than a year so that a
# stale file is noticed; the file is made from the settings at each request, so it is
# as current as they are, and its date moves on a day at a time.
SECURITY_TXT_DAYS = 180


@require_GET
def security_txt(request):
    """/.well-known/security.txt (RFC 9116): where to report a vulnerability."""
    contacts = settings.SKILLO_SECURITY_CONTACTS
    if not contacts:
        raise Http404("No security contact is set (SECURITY_CONTACT).")
    today = datetime.now(UTC).date()
    expires = datetime.combine(today + timedelta(days=SECURITY_TXT_DAYS), time(), UTC)
    lines = [f"Contact: {contact}" for contact in contacts]
    lines.append(f"Expires: {expires.strftime('%Y-%m-%dT%H:%M:%SZ')}")
    if settings.SKILLO_SECURITY_POLICY:
        lines.append(f"Policy: {settings.SKILLO_SECURITY_POLICY}")
    lines.append(f"Preferred-Languages: {settings.LANGUAGE_CODE}")
    lines.append(f"Canonical: {absolute(reverse('news:security-txt'))}")
    response = HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
    patch_cache_control(response, public=True, max_age=3600)
    return response


@require_GET
def share_card(request, pk, key):
    """The picture link previews show for an article without a lead image: drawn on the
    first request for it, then served from storage. Published articles only (a draft's
    title must not leak through its card); an old key (the title changed) redirects."""
    article = get_object_or_404(Article.objects.for_list(), pk=pk)
    topic = article.first_topic_name
    current = card_key(article.title, topic)
    if key != current:
        return redirect("news:card", pk=pk, key=current, permanent=True)
    card = ensure_title_card(article.title, topic)
    if not settings.MEDIA_URL.startswith("/"):
        return redirect(card.url)  # object storage serves it
    return media(request, card.name)
