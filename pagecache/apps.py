from django.apps import AppConfig


class PageCacheConfig(AppConfig):
    name = "pagecache"
    verbose_name = "Page cache"
    default_auto_field = "django.db.models.BigAutoField"
