"""The folded figures as editors and scripts read them: per article, views and visitors
over a period, and the sources of those views."""

from datetime import timedelta

from django.db.models import Sum
from django.utils import timezone

from news.models import Article

from .models import ArticleHour, SourceHour


def since(days):
    return timezone.now() - timedelta(days=days)


def most_read(days, limit=10):
    """The most viewed published articles of the last `days` days: (article, views,
    visitors), most viewed first."""
    totals = (
        ArticleHour.objects.filter(hour__gte=since(days), article__in=Article.objects.published())
        .values("article")
        .annotate(views=Sum("views"), visitors=Sum("visitors"))
        .order_by("-views", "article")[:limit]
    )
    rows = list(totals)
    articles = Article.objects.in_bulk([row["article"] for row in rows])
    return [(articles[row["article"]], row["views"], row["visitors"]) for row in rows]


def top_sources(days, limit=10):
    """The sources of the last `days` days' views: (source, views), most first."""
    rows = (
        SourceHour.objects.filter(hour__gte=since(days))
        .values("source")
        .annotate(views=Sum("views"))
        .order_by("-views", "source")[:limit]
    )
    return [(row["source"], row["views"]) for row in rows]
