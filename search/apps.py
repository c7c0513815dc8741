from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"
    verbose_name = "Search"

    def ready(self):
        from maintenance import statistics

        from . import index

        statistics.register(index.upkeep)
