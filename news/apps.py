from django.apps import AppConfig


class NewsConfig(AppConfig):
    name = "news"
    verbose_name = "Newsroom"

    def ready(self):
        from pagecache import purges
        from sources.registry import provide_urls

        from . import purge, signals  # noqa: F401 - connects the receivers
        from .models import Source

        purges.purged.connect(purge.nav_change)
        purges.register_schedule(purge.ArticleSchedule())
        # check_sources checks what published articles cite (sources knows no article).
        provide_urls(Source.objects.cited_urls)
