from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API and webhooks"

    def ready(self):
        # Webhooks listen to news's "articles changed" signal; the schema extension
        # tells drf-spectacular how tokens are sent.
        from . import schema, webhooks  # noqa: F401
