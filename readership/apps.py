from django.apps import AppConfig


class ReadershipConfig(AppConfig):
    name = "readership"
    verbose_name = "Readership"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from textfiles.records import BackupPart

        BackupPart(
            "readership.jsonl",
            carries=[
                "readership.ArticleHour", "readership.SourceHour", "readership.MostRead",
                "readership.Summary",
            ],
            leaves={
                "readership.Beacon": "page views not yet counted (minutes)",
                "readership.FoldedBatch": "the counting's bookkeeping of the last day",
                "readership.DayVisitor": "today's visitors' hashes, which are never kept",
                "readership.DailySalt": "today's salt, which is never kept",
            },
        )  # fmt: skip
