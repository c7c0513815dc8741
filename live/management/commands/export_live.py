from django.core.management.base import BaseCommand, CommandError

from live.models import LiveCoverage
from live.textformat import export_coverage


class Command(BaseCommand):
    help = (
        "Write a live story's coverage and entries as plain text (live/textformat.py), "
        "to standard output: its state, times, 'What we know' and every entry."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="The article's address, /articles/SLUG/.")

    def handle(self, *args, slug, **options):
        coverage = LiveCoverage.objects.select_related("article").filter(article__slug=slug)
        coverage = coverage.first()
        if coverage is None:
            raise CommandError(f"No live coverage of an article {slug!r}.")
        self.stdout.write(export_coverage(coverage), ending="")
