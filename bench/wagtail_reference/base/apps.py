from django.apps import AppConfig


class BaseConfig(AppConfig):
    name = "base"
    default_auto_field = "django.db.models.AutoField"
