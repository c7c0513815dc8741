from django.apps import AppConfig


class MembersConfig(AppConfig):
    name = "members"
    verbose_name = "Members"

    def ready(self):
        from textfiles.signals import demo_loaded, site_exporting, site_restoring

        from . import backup, dashboard  # noqa: F401 (dashboard: its column registers)
        from .demo import load

        demo_loaded.connect(load, dispatch_uid="members-demo")
        site_exporting.connect(backup.export, dispatch_uid="members-backup")
        site_restoring.connect(backup.restore, dispatch_uid="members-restore")
