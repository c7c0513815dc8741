from django.apps import AppConfig


class OutboundConfig(AppConfig):
    name = "outbound"
    verbose_name = "Outgoing requests"

    def ready(self):
        from . import checks  # noqa: F401 (registers the deploy check)
