from django.core.management.base import BaseCommand, CommandError

from maintenance import statistics
from textfiles.importer import ImportFailed, import_site


class Command(BaseCommand):
    help = (
        "Restore a whole-site backup made by export_site into an empty database: the "
        "authors, the topics with their addresses, every article with its id, status, "
        "times, summary, authors and old addresses, and the addresses of deleted articles. "
        "All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", metavar="FOLDER", help="A folder written by export_site.")

    def handle(self, *args, folder, **options):
        try:
            result = import_site(folder)
        except ImportFailed as error:
            for problem in error.problems:
                self.stderr.write(problem)
            raise CommandError(
                f"Restore failed with {len(error.problems)} problem(s); nothing was changed."
            ) from None
        if result.unfinished_files:
            self.stdout.write(
                f"Removed {result.unfinished_files} file(s) left by a restore that did not finish."
            )
        # A restored site is a big one's worth of new rows: plan its queries from them.
        statistics.refresh()
        self.stdout.write(
            self.style.SUCCESS(
                f"Restored {len(result.articles.created)} article(s), {result.tags} topic(s) "
                f"and {result.gone} address(es) of deleted articles, with {result.authors} "
                f"author(s) and {result.source_urls} checked source URL(s)."
            )
        )
