from django.apps import AppConfig


class FediverseConfig(AppConfig):
    name = "fediverse"
    verbose_name = "Fediverse"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import publishing  # noqa: F401  (articles_changed receivers)
