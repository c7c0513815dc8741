from django.apps import AppConfig


class ImagesConfig(AppConfig):
    name = "images"
    verbose_name = "Image library"

    def ready(self):
        from . import signals  # noqa: F401
