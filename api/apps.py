from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "API and webhooks"

    def ready(self):
        # Webhooks listen to news's "articles changed" signal; the schema extension
        # tells drf-spectacular how tokens are sent.
        from textfiles.records import BackupPart

        from . import schema, webhooks  # noqa: F401

        # Tokens by their hashes (the tools keep working) and their accounts by username.
        BackupPart(
            "api.jsonl",
            carries=["api.ApiToken", "api.WebhookHost", "api.Webhook"],
            leaves={
                "api.Delivery": "webhook deliveries under way and their log",
                "api.Attempt": "webhook deliveries under way and their log",
            },
        )
