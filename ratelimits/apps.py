from django.apps import AppConfig


class RateLimitsConfig(AppConfig):
    name = "ratelimits"
    verbose_name = "Rate limits"
