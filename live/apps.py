from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live coverage"

    def ready(self):
        from news.models import search_extra_sources

        from . import signals  # noqa: F401
        from .search import entries_text

        search_extra_sources.append(entries_text)
