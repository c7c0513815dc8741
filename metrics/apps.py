from django.apps import AppConfig
from django.core import checks


class MetricsConfig(AppConfig):
    name = "metrics"
    verbose_name = "Metrics"

    def ready(self):
        from .checks import allowed_addresses

        checks.register(allowed_addresses)
