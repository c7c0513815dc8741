from django.apps import AppConfig


class NewslettersConfig(AppConfig):
    name = "newsletters"
    verbose_name = "Newsletters"

    def ready(self):
        from textfiles.records import BackupPart
        from textfiles.signals import demo_loaded, site_restoring

        from . import backup, checks, live, reach, stories, suppression  # noqa: F401 (receivers, the reach, checks)
        from .demo import load

        demo_loaded.connect(load, dispatch_uid="newsletters-demo")
        BackupPart(
            "newsletters.jsonl",
            carries=["newsletters.Subscriber", "newsletters.Suppressed", "newsletters.Issue"],
            leaves={
                "newsletters.Delivery": "each mail's record (an issue's count of recipients "
                "is kept): let issues being sent finish before the move",
            },
        )
        # After the part above (receivers run in the order they were connected).
        site_restoring.connect(backup.requeue_planned, dispatch_uid="newsletters-requeue")
