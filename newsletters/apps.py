from django.apps import AppConfig


class NewslettersConfig(AppConfig):
    name = "newsletters"
    verbose_name = "Newsletters"

    def ready(self):
        from . import checks, live, reach, stories, suppression  # noqa: F401 (receivers, the reach, checks)
