from django.apps import AppConfig
from django.db.models.signals import post_migrate


class NewsConfig(AppConfig):
    name = "news"
    verbose_name = "Newsroom"

    def ready(self):
        from . import search, signals  # noqa: F401 - connects the receivers

        post_migrate.connect(search.install, sender=self)
