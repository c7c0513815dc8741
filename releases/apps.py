from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save


class ReleasesConfig(AppConfig):
    name = "releases"
    verbose_name = "Release desk"

    def ready(self):
        from textfiles.records import BackupPart
        from textfiles.signals import demo_loaded, site_exporting, site_restoring

        from . import backup
        from .demo import load
        from .signals import project_changed

        demo_loaded.connect(load, dispatch_uid="releases-demo")
        site_exporting.connect(backup.export, dispatch_uid="releases-backup")
        site_restoring.connect(backup.restore, dispatch_uid="releases-restore")
        BackupPart(carries=[
            "releases.WatchedProject", "releases.ReleaseSource", "releases.Tip", "releases.TipLink"
        ])  # fmt: skip
        post_save.connect(project_changed, sender="releases.WatchedProject")
        post_delete.connect(project_changed, sender="releases.WatchedProject")
        m2m_changed.connect(project_changed, sender=self.get_model("WatchedProject").topics.through)
