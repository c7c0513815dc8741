"""The read-only content API, /api/v1/.

Every view starts from news's own querysets: ``Article.objects.published()`` (through
``for_list()``/``for_detail()``) for everyone, ``Article.objects.all()`` only for a token
with the read:drafts scope. Anonymous answers are whole cached pages (the pagecache app):
each view says what it shows with the same dependency names as the HTML pages, so the
purges that refresh a page refresh its API answer too, and a hit costs no query. The
filters and the cursor are part of the cache key (``cached_page(parameters=...)``).
"""

from django.shortcuts import get_object_or_404
from django.utils.cache import patch_vary_headers
from django.utils.decorators import method_decorator
from django.views.decorators.cache import cache_control
from django.views.decorators.http import conditional_page
from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
)
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework import generics
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.views import APIView

from news import asides
from news.dependencies import (
    ARTICLE,
    AUTHOR,
    AUTHOR_ARTICLES,
    AUTHORS,
    FEEDS,
    LATEST,
    REFERENCED_BY,
    TAG,
    TOPICS,
    title_key,
)
from news.models import Article, Tag, byline_prefetch, with_topics
from news.topics import all_topics, get_topic_or_404
from pagecache.dependencies import cached_page, depends_on
from people.models import Author

from .auth import sees_drafts
from .filters import (
    LIST_PARAMETERS,
    ArticleCursor,
    ArticleFilters,
    check_single_values,
    filter_articles,
    whole_number,
)
from .schema import RETRY_AFTER, responses
from .serializers import (
    ArticleDetailSerializer,
    ArticleSerializer,
    AuthorSerializer,
    TopicSerializer,
)


class ApiView:
    """What every API answer carries: CORS for GET from any origin (no credentials: a
    browser never sends the site's cookies), and ``Vary: Authorization`` so that a cache
    in front never hands a token's answer to anyone else."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        if request.method == "OPTIONS":
            response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
            response["Access-Control-Allow-Headers"] = "Authorization"
            response["Access-Control-Max-Age"] = "86400"
        patch_vary_headers(response, ["Authorization"])
        return response


def visible_articles(request):
    """The one public rule, unless the token may read drafts."""
    return Article.objects.all() if sees_drafts(request) else Article.objects.published()


class TopicPages(PageNumberPagination):
    # Thousands of topics or authors: 200 a page, as the HTML index pages.
    page_size = 200

    def get_page_number(self, request, paginator):
        """A page number, or a 400 naming ``page``: DRF reads an empty one as the first
        page and "last" as the last, and a number past the end is a 404."""
        check_single_values(request.query_params, [self.page_query_param])
        number = whole_number(request.query_params, self.page_query_param)
        return 1 if number is None else number

    def get_schema_operation_parameters(self, view):
        [page] = super().get_schema_operation_parameters(view)
        page["description"] = "A page number; past the last page is a 404."
        page["schema"]["minimum"] = 1
        return [page]


PAGE_PARAMETERS = ["page"]


@cached_page(LATEST, parameters=LIST_PARAMETERS)
@extend_schema(
    parameters=[ArticleFilters, RETRY_AFTER],
    summary="Articles, newest first",
    description="Published articles, filtered, in cursor pages: follow next to read on. "
    "Each parameter is given at most once, and not empty; a bad value is a 400 naming "
    "the parameter. Besides each parameter's own schema, one rule spans two: "
    "published_after must not be later than published_before, nor event_after later "
    "than event_before (a 400 naming published_after or event_after).",
    responses=responses(
        ArticleSerializer,
        not_found="An unknown topic (tag) or author.",
        parameters=LIST_PARAMETERS,
    ),
)
class ArticleList(ApiView, generics.ListAPIView):
    """Published articles, filtered, in cursor pages: follow ``next`` to read on."""

    serializer_class = ArticleSerializer
    pagination_class = ArticleCursor

    def get_queryset(self):
        check_single_values(self.request.query_params, LIST_PARAMETERS)
        filters = ArticleFilters(data=self.request.query_params)
        if not filters.is_valid():
            raise ValidationError(filters.errors)
        self.filters = data = filters.validated_data
        topic = author = None
        if "tag" in data:
            topic = self.get_topic(data["tag"])
            depends_on(self.request, TAG(topic.pk))
        if "author" in data:
            author = get_object_or_404(Author.objects.only("pk"), slug=data["author"])
            depends_on(self.request, AUTHOR(author.pk), AUTHOR_ARTICLES(author.pk))
        if {"q", "updated_since"} & set(data):
            # Any change to any public article may bring it into these answers.
            depends_on(self.request, FEEDS())
        articles = (
            visible_articles(self.request)
            .select_related("lead_image")
            .prefetch_related(byline_prefetch())
        )
        return filter_articles(articles, data, topic, author)

    def get_topic(self, slug):
        if sees_drafts(self.request):
            # A topic of drafts only is no public topic, but a token may read it.
            tag = get_object_or_404(Tag.objects.only("pk", "slug"), slug=slug)
            tag.article_count = 0
            return tag
        return get_topic_or_404(slug)

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        return page if page is None else with_topics(page)

    def list(self, request, *args, **kwargs):
        response = super().list(request, *args, **kwargs)
        shown = self.paginator.page
        depends_on(
            request,
            *ARTICLE.each(article.pk for article in shown),
            *AUTHOR.each(author.pk for article in shown for author in article.byline),
        )
        return response


@cached_page()
@extend_schema(
    summary="An article",
    description="One article with its text, sources, links, referenced-by and corrections.",
    parameters=[RETRY_AFTER],
    responses=responses(
        ArticleDetailSerializer, not_found="No article this client may read has this slug."
    ),
)
class ArticleDetail(ApiView, generics.RetrieveAPIView):
    serializer_class = ArticleDetailSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return visible_articles(self.request).for_detail()

    def get_object(self):
        article = super().get_object()
        # The article page's own list (news.asides).
        article.referenced_by = list(asides.referenced_by(article))
        links = [link for link in article.related_links.all() if link.is_public]
        depends_on(
            self.request,
            ARTICLE(article.pk),
            REFERENCED_BY(article.pk),
            title_key(article.title),
            *ARTICLE.each(link.target_id for link in links if link.target_id),
            *(title_key(link.title) for link in links if not link.target_id),
            *ARTICLE.each(item.pk for item in article.referenced_by),
            *AUTHOR.each(author.pk for author in article.byline),
        )
        return article


@cached_page(TOPICS, parameters=PAGE_PARAMETERS)
@extend_schema(
    summary="Topics with published articles, by name",
    description="200 a page, in page numbers.",
    parameters=[RETRY_AFTER],
    responses=responses(
        TopicSerializer,
        not_found="A page past the last.",
        parameters=PAGE_PARAMETERS,
    ),
)
class TagList(ApiView, generics.ListAPIView):
    serializer_class = TopicSerializer
    pagination_class = TopicPages

    def get_queryset(self):
        # Counted once per change and kept in the cache (news.topics).
        return all_topics()


@cached_page(TOPICS)
@extend_schema(
    summary="A topic",
    description="A topic with its count of published articles.",
    parameters=[RETRY_AFTER],
    responses=responses(TopicSerializer, not_found="No topic with published articles."),
)
class TagDetail(ApiView, generics.RetrieveAPIView):
    serializer_class = TopicSerializer

    def get_object(self):
        return get_topic_or_404(self.kwargs["slug"])


@cached_page(AUTHORS, parameters=PAGE_PARAMETERS)
@extend_schema(
    summary="Authors, by name",
    description="200 a page, in page numbers.",
    parameters=[RETRY_AFTER],
    responses=responses(
        AuthorSerializer,
        not_found="A page past the last.",
        parameters=PAGE_PARAMETERS,
    ),
)
class AuthorList(ApiView, generics.ListAPIView):
    serializer_class = AuthorSerializer
    pagination_class = TopicPages

    def get_queryset(self):
        return Author.objects.select_related("photo").prefetch_related("links")

    def list(self, request, *args, **kwargs):
        response = super().list(request, *args, **kwargs)
        depends_on(request, *AUTHOR.each(author.pk for author in self.paginator.page))
        return response


@cached_page()
@extend_schema(
    summary="An author",
    description="An author with bio, links and portrait.",
    parameters=[RETRY_AFTER],
    responses=responses(AuthorSerializer, not_found="No author has this slug."),
)
class AuthorDetail(ApiView, generics.RetrieveAPIView):
    serializer_class = AuthorSerializer
    lookup_field = "slug"

    def get_queryset(self):
        return Author.objects.select_related("photo").prefetch_related("links")

    def get_object(self):
        author = super().get_object()
        depends_on(self.request, AUTHOR(author.pk))
        return author


# The same for everyone until a deploy: kept an hour by browsers and shared caches, and
# asked again with its ETag, a 304 if it has not changed (52 KB otherwise).
@method_decorator([conditional_page, cache_control(public=True, max_age=3600)], name="dispatch")
class Schema(ApiView, SpectacularAPIView):
    """The OpenAPI 3.1 schema: JSON (for ``Accept: application/json`` too, what most
    clients send), or YAML for ``Accept: application/vnd.oai.openapi``."""

    renderer_classes = [OpenApiJsonRenderer, OpenApiJsonRenderer2, OpenApiYamlRenderer]


class Docs(SpectacularSwaggerSplitView):
    """Swagger UI from the site's own static files (drf-spectacular-sidecar), its setup
    script a file of its own (the split view), and a template without the inline
    <style> of drf-spectacular's: the page works under the site's strict CSP."""

    template_name = "api/swagger_ui.html"


@extend_schema(exclude=True)
class NotFoundView(ApiView, APIView):
    """Any other address under /api/v1/ (a slug the URL pattern refuses: ``a b``): a 404
    in JSON like the API's own, not the site's HTML page."""

    def get(self, request, *args, **kwargs):
        raise NotFound()
