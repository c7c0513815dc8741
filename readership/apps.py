from django.apps import AppConfig


class ReadershipConfig(AppConfig):
    name = "readership"
    verbose_name = "Readership"
    default_auto_field = "django.db.models.BigAutoField"
