from django.apps import AppConfig


class NewsConfig(AppConfig):
    name = "news"
    verbose_name = "Newsroom"

    def ready(self):
        from pagecache import purges

        from . import purge, signals  # noqa: F401 - connects the receivers

        purges.purged.connect(purge.nav_change)
        purges.register_schedule(purge.ArticleSchedule())
