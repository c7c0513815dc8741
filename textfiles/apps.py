from django.apps import AppConfig


class TextfilesConfig(AppConfig):
    name = "textfiles"
    verbose_name = "Plain-text articles and site backups"
