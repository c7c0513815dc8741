from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate


def refresh_statistics(sender, using="default", **kwargs):
    """After migrate, SQLite's planner statistics (maintenance.statistics), where there
    are articles to count: a new, empty site has nothing to measure."""
    from maintenance import statistics

    from .models import Article

    if connections[using].vendor == "sqlite" and Article.objects.using(using).exists():
        statistics.refresh(using)


class NewsConfig(AppConfig):
    name = "news"
    verbose_name = "Newsroom"

    def ready(self):
        from pagecache import purges
        from sources.registry import provide_urls

        from . import identity, purge, signals  # noqa: F401 - connects the receivers
        from .models import Source

        post_migrate.connect(refresh_statistics, sender=self)
        post_migrate.connect(identity.record_after_migrate, sender=self)
        purges.purged.connect(purge.nav_change)
        purges.register_schedule(purge.ArticleSchedule())
        # check_sources checks what published articles cite (sources knows no article).
        provide_urls(Source.objects.cited_urls)
