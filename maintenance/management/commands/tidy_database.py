import time

from django.core.management.base import BaseCommand
from django.db import DEFAULT_DB_ALIAS, connections

from maintenance import statistics


class Command(BaseCommand):
    help = (
        "SQLite: merge the search index and refresh the query planner's statistics, as "
        "after migrate. Edits leave both a little worse each day: the background workers "
        "run it daily. PostgreSQL's autovacuum does this itself."
    )

    def add_arguments(self, parser):
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, database, **options):
        vendor = connections[database].vendor
        if vendor != "sqlite":
            self.stdout.write(f"Nothing to do on {vendor}: its autovacuum keeps it tidy.")
            return
        started = time.monotonic()
        reports = statistics.refresh(database)
        if options["verbosity"]:
            for report in reports:
                self.stdout.write(report)
            self.stdout.write(
                self.style.SUCCESS(
                    f"Statistics refreshed; done in {time.monotonic() - started:.1f} s."
                )
            )
