"""The newsroom's queues, for the dashboard (the admin's home) and their own pages."""

from datetime import date, datetime, time, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q
from django.urls import reverse
from django.utils import timezone

from news.models import Article, RelatedLink

from .roles import can_publish


def ready_for_review():
    return Article.objects.in_review().select_related("updated_by").order_by("updated_at")


def scheduled_next():
    return Article.objects.scheduled().order_by("published_at")


def scheduled_today():
    """Scheduled to come out before the newsroom's midnight."""
    tomorrow = timezone.localdate() + timedelta(days=1)
    midnight = timezone.make_aware(datetime.combine(tomorrow, time.min))
    return Article.objects.scheduled().filter(published_at__lt=midnight)


def recently_published():
    return Article.objects.published().order_by("-published_at")


def worked_on_by(user, articles):
    """Those of ``articles`` the user last saved or signs."""
    return articles.filter(Q(updated_by=user) | Q(authorships__author__user=user)).distinct()


def to_act_on(user, articles):
    """The desk's ``articles`` for those who review and publish them; a writer, who can
    do neither, is shown their own (where their work stands)."""
    return articles if can_publish(user) else worked_on_by(user, articles)


def drafts_of(user):
    """Drafts the user last saved or signs (sent back ones among them)."""
    return worked_on_by(user, Article.objects.drafts()).order_by("-updated_at")


def facts_due_cutoff():
    months = settings.SKILLO_FACTS_MAX_AGE_MONTHS
    today = timezone.localdate()
    total = today.year * 12 + today.month - 1 - months
    return date(total // 12, total % 12 + 1, 1)


def facts_due(queryset=None):
    """Published articles whose facts were verified too long ago, oldest first."""
    articles = queryset if queryset is not None else Article.objects
    return articles.published().filter(facts_verified__lt=facts_due_cutoff())


def wanted_titles(limit=None):
    """Related-link titles no article has yet, most wanted first: [{title, wanted_by
    (the articles that want it), add_url}]; the first ``limit`` of them (the dashboard's
    few are read alone: at 100,000 articles there are tens of thousands)."""
    existing = Article.objects.filter(title_upper=OuterRef("title_upper"))
    counts = (
        RelatedLink.objects.filter(target__isnull=True)
        .exclude(title="")
        .annotate(written=Exists(existing))
        .filter(written=False)
        .values("title_upper")
        .annotate(count=Count("article", distinct=True))
        .order_by("-count", "title_upper")
    )
    titles = counts.values("title_upper")
    if limit is not None:
        counts = list(counts[:limit])
        titles = [row["title_upper"] for row in counts] or [""]
    wanting = {}
    for upper, title, pk, article_title in (
        RelatedLink.objects.filter(target__isnull=True, title_upper__in=titles)
        .order_by("article__title")
        .values_list("title_upper", "title", "article_id", "article__title")
    ):
        entry = wanting.setdefault(upper, {"title": title, "wanted_by": {}})
        entry["wanted_by"][pk] = article_title
    add_url = reverse("admin:news_article_add")
    return [
        {
            "title": wanting[row["title_upper"]]["title"],
            "wanted_by": [
                {"title": title, "url": reverse("admin:news_article_change", args=[pk])}
                for pk, title in wanting[row["title_upper"]]["wanted_by"].items()
            ],
            "add_url": f"{add_url}?{urlencode({'title': wanting[row['title_upper']]['title']})}",
        }
        for row in counts
    ]
