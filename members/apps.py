from django.apps import AppConfig


class MembersConfig(AppConfig):
    name = "members"
    verbose_name = "Members"

    def ready(self):
        from textfiles.records import BackupPart
        from textfiles.signals import demo_loaded, site_exporting, site_restoring

        from . import backup, dashboard  # noqa: F401 (dashboard: its column registers)
        from .demo import load

        demo_loaded.connect(load, dispatch_uid="members-demo")
        site_exporting.connect(backup.export, dispatch_uid="members-backup")
        site_restoring.connect(backup.restore, dispatch_uid="members-restore")
        BackupPart(
            carries=["members.Member", "members.SavedStory", "members.Comment",
                     "members.CommentSettings", "members.ClosedStory"],
            leaves={
                "members.SignInLink": "sign-in links and sessions: members sign in again",
                "members.MemberSession": "sign-in links and sessions: members sign in again",
                "members.CommentReport": "readers' reports hold hashes of their addresses",
                "members.Moderation": "the moderation log names staff accounts",
            },
        )  # fmt: skip
        # The blocks of members who erased themselves (hashes): they outlive a move too.
        BackupPart("members-blocked.jsonl", carries=["members.BlockedAddress"])
