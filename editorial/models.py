from news.models import Article, Source
from sources.models import SourceURL


class FactsDue(Article):
    """Published articles whose facts are due for re-verification (an admin queue)."""

    class Meta:
        proxy = True
        verbose_name = "article with facts due for re-verification"
        verbose_name_plural = "Facts due for re-verification"


class SourceToFix(SourceURL):
    """A source URL that published articles cite and that needs an editor (an admin queue):
    moved, gone, a soft 404, or failing again and again (sources.models.SourceURL)."""

    class Meta:
        proxy = True
        verbose_name = "source to fix"
        verbose_name_plural = "Sources to fix"


def sources_to_fix():
    """The queue: URLs cited by published articles that need an editor."""
    return SourceToFix.objects.to_fix().filter(url__in=Source.objects.cited_urls())


def sources_to_fix_count():
    """How many URLs are in "Sources to fix" (for the dashboard)."""
    return sources_to_fix().count()
