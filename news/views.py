from datetime import date

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

from . import cards, kept
from .around import around
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
    REFERENCED_BY,
    SOURCE,
    TAG,
    TOPICS,
    title_key,
)
from .detail import load_article, load_live_parts, load_parts
from .models import Article, Correction, RetiredSlug, tagged, written_by
from .paginator import LookaheadPaginator
from .sitemaps import recent_news
from .templatetags.news import byline_structured_data, organization
from .topics import TopicIndex, archive_months, get_topic_or_404, topic_sizes


class ArticlesPageMixin:
    """A page of articles' cards: counted by nobody, read as kept HTML (news.cards), and
    the cached page depends on each article shown and on each author of their bylines."""

    paginator_class = LookaheadPaginator
    # False for a page that lists the articles otherwise (a topic's timeline).
    shows_cards = True

    def paginate_queryset(self, queryset, page_size):
        if self.shows_cards:
            queryset = cards.rows(queryset)
        return super().paginate_queryset(queryset, page_size)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if self.shows_cards:
            context["object_list"] = context["articles"] = cards.cards(context["object_list"])
            authors = {pk for card in context["articles"] for pk in card.authors}
        else:
            authors = ()
        depends_on(
            self.request,
            *ARTICLE.each(a.pk for a in context["articles"]),
            *AUTHOR.each(authors),
        )
        return context


@cached_page(NAV, LATEST, FRONT)
class ArticleListView(ArticlesPageMixin, ListView):
    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/index.html"

    def get_queryset(self):
        # Built per request: published() compares against the current time.
        return Article.objects.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if context["page_obj"].number == 1:
            # The editors' choices, on the first page only; none: just the latest.
            lead, features = Article.objects.on_front_page()
            chosen = [*([lead] if lead else []), *features]
            depends_on(
                self.request,
                *ARTICLE.each(article.pk for article in chosen),
                *AUTHOR.each(author.pk for article in chosen for author in article.byline),
            )
            context.update(lead_story=lead, features=features)
        return context


@cached_page(NAV)
class ArticleDetailView(DetailView):
    context_object_name = "article"
    template_name = "news/article_detail.html"

    def can_preview(self):
        return self.request.user.has_perm("news.view_article")

    def get_object(self, queryset=None):
        # Staff see drafts and scheduled articles at their real URL (with a banner).
        # Read by hand-written SQL with its parts, as for_detail() would, faster.
        self.preview = self.can_preview()
        article = load_article(self.kwargs["slug"], public=not self.preview)
        if article is None:
            raise Http404("No such article.")
        # Readers get the page's own parts as kept (news.kept), if they are.
        article.kept_page = None if self.preview else kept.stored(article)
        if article.kept_page is not None:
            return load_live_parts(article, article.kept_page["tags"])
        return load_parts(article)

    def get(self, request, *args, **kwargs):
        try:
            response = super().get(request, *args, **kwargs)
        except Http404:
            return self.retired(kwargs["slug"])
        if not self.object.is_published():
            patch_cache_control(response, no_cache=True, no_store=True, private=True)
        return response

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
        referenced_by, more_on_topics, topic, previous, following = around(article, topic_sizes())
        related_links = [link for link in article.related_links.all() if link.is_public]
        shown = [*referenced_by, *more_on_topics, *(a for a in (previous, following) if a)]
        page = article.kept_page
        if page is None:
            page = self.render_page(article)
        depends_on(
            self.request,
            ARTICLE(article.pk),
            # Articles linking here, and topics whose lists it shows (more on these
            # topics, previous and next).
            REFERENCED_BY(article.pk),
            title_key(article.title),
            *TAG.each(tag.pk for tag in article.tags.all()),
            *ARTICLE.each(link.target_id for link in related_links if link.target_id),
            *(title_key(link.title) for link in related_links if not link.target_id),
            *ARTICLE.each(item.pk for item in shown),
            *AUTHOR.each(page["authors"]),
            # An archived copy an editor sets for a dead source shows next to it.
            *SOURCE.each(page["sources"]),
        )
        return super().get_context_data(
            page=kept.html(page, self.request, article),
            related_links=related_links,
            referenced_by=referenced_by,
            more_on_topics=more_on_topics,
            topic=topic,
            previous_article=previous,
            next_article=following,
            **kwargs,
        )

    def render_page(self, article):
        """The page's own parts (news.kept), rendered, and kept for readers."""
        corrections, updates = article.notices
        page = kept.render(
            self.request,
            article,
            corrections,
            updates,
            article.structured_data(
                self.request.build_absolute_uri(article.get_absolute_url()),
                organization(self.request),
                byline_structured_data(self.request, article.byline),
                self.request.build_absolute_uri,
            ),
        )
        if not self.preview:
            kept.keep(article, page)
        return page


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
        articles = Article.objects.published().filter(tagged(self.tag.pk, self.tag.article_count))
        if self.timeline:
            self.shows_cards = False
            return articles.only("title", "slug", "event_date").order_by(
                "event_date", "published_at", "pk"
            )
        return articles

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
class ArchiveView(ArticlesPageMixin, ListView):
    """Published articles by event date: a year, or a month of it."""

    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/archive.html"

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
        f"Sitemap: {request.build_absolute_uri(reverse('sitemap'))}",
    ]
    if archive_months():  # anything published (worked out once per change)
        lines.append(f"Sitemap: {request.build_absolute_uri(reverse('news:sitemap-news'))}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")


@require_GET
def share_card(request, pk, key):
    """The picture link previews show for an article without a lead image: drawn on the
    first request for it, then served from storage. Published articles only (a draft's
    title must not leak through its card); an old key (the title changed) redirects."""
    article = get_object_or_404(Article.objects.published().prefetch_related("tags"), pk=pk)
    topic = article.first_topic_name
    current = card_key(article.title, topic)
    if key != current:
        return redirect("news:card", pk=pk, key=current, permanent=True)
    card = ensure_title_card(article.title, topic)
    if not settings.MEDIA_URL.startswith("/"):
        return redirect(card.url)  # object storage serves it
    return media(request, card.name)
