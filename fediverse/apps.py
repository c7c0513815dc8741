from django.apps import AppConfig


class FediverseConfig(AppConfig):
    name = "fediverse"
    verbose_name = "Fediverse"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from textfiles.records import BackupPart

        from . import publishing  # noqa: F401  (articles_changed receivers)

        # The actors' keys, so that other servers keep trusting what the moved site signs;
        # the followers, and what was sent to which inbox, so that updates and deletions
        # still reach them.
        BackupPart(
            "fediverse.jsonl",
            carries=[
                "fediverse.LocalActor", "fediverse.RemoteActor", "fediverse.Follower",
                "fediverse.BlockedDomain", "fediverse.Publication", "fediverse.ArticleState",
                "fediverse.Reaction", "fediverse.Reply",
            ],
            leaves={
                "fediverse.Delivery": "deliveries under way: publish again to resend",
                "fediverse.PendingActivity": "activities received and not yet checked",
                "fediverse.ReceivedSignature": "signatures of the last minutes (replays)",
                "fediverse.Instance": "other servers' recent failures, learnt afresh",
            },
        )  # fmt: skip
