from django.apps import AppConfig


class DevDataConfig(AppConfig):
    name = "devdata"
    verbose_name = "Development data"
