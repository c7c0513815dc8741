from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Release desk"

    def ready(self):
        from .signals import project_changed

        post_save.connect(project_changed, sender="releases.WatchedProject")
        post_delete.connect(project_changed, sender="releases.WatchedProject")
