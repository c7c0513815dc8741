from django.conf import settings
from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.views.generic import DetailView, ListView
from taggit.models import Tag

from .models import Article


def public_tags():
    """Tags with at least one published article, each with its count of them."""
    return (
        Tag.objects.filter(article__in=Article.objects.published())
        .annotate(article_count=Count("article", distinct=True))
        .order_by("name")
    )


class ArticleListView(ListView):
    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/index.html"

    def get_queryset(self):
        # Built per request: published() compares against the current time.
        return Article.objects.for_list()


class ArticleDetailView(DetailView):
    context_object_name = "article"
    template_name = "news/article_detail.html"

    def get_queryset(self):
        return Article.objects.published().for_detail()

    def get_context_data(self, **kwargs):
        article = self.object
        return super().get_context_data(
            related_links=[link for link in article.related_links.all() if link.is_public],
            referenced_by=Article.objects.referencing(article).only("title", "slug"),
            **kwargs,
        )


class TagListView(ListView):
    context_object_name = "tags"
    template_name = "news/tag_list.html"

    def get_queryset(self):
        return public_tags()


class TagDetailView(ListView):
    paginate_by = settings.SKILLO_PAGE_SIZE
    context_object_name = "articles"
    template_name = "news/tag_detail.html"

    def get_queryset(self):
        self.tag = get_object_or_404(
            Tag.objects.filter(article__in=Article.objects.published()).distinct(),
            slug=self.kwargs["slug"],
        )
        return Article.objects.for_list().filter(tags=self.tag)

    def get_context_data(self, **kwargs):
        return super().get_context_data(tag=self.tag, **kwargs)
