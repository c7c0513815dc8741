from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.db.models.signals import post_migrate


def ensure_roles(apps=None, **kwargs):
    # flush (as between transactional tests) sends no app registry: use the live one.
    from django.apps import apps as live_apps

    from .roles import ensure_groups

    ensure_groups(apps or live_apps)


class EditorialConfig(AppConfig):
    name = "editorial"
    verbose_name = "Editorial"

    def ready(self):
        from releases.desk import written_up
        from textfiles.records import BackupPart

        from .conversation import from_release_desk

        BackupPart(
            leaves={
                "editorial.Note": "the newsroom's conversations name staff accounts, which "
                "a backup does not hold (as revisions)",
                "editorial.NotesSeen": "the newsroom's conversations stay behind",
                "editorial.AutoSave": "unsaved typing: save the forms before the move",
                "editorial.Presence": "who has a form open now",
                "editorial.PreviewLink": "preview links for outside readers: make new ones",
                "editorial.Invitation": "invitations not yet accepted: invite again",
            }
        )
        post_migrate.connect(ensure_roles, sender=self)
        written_up.connect(from_release_desk, dispatch_uid="editorial-release-desk")


class NewsroomAdminConfig(admin_apps.AdminConfig):
    """Django's admin, with the newsroom's site: its name and its dashboard as home."""

    default = False
    default_site = "editorial.sites.NewsroomSite"
