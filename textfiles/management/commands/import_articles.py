from django.core.management.base import BaseCommand, CommandError

from textfiles.importer import ImportFailed, import_articles


class Command(BaseCommand):
    help = (
        "Import plain-text articles (files or folders of .txt), creating or updating them by "
        "slug. All or nothing: on any error nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="A .txt file or a folder.")

    def handle(self, *args, paths, **options):
        try:
            result = import_articles(paths)
        except ImportFailed as error:
            for problem in error.problems:
                self.stderr.write(problem)
            raise CommandError(
                f"Import failed with {len(error.problems)} problem(s); nothing was changed."
            ) from None
        if options["verbosity"] >= 2:
            for label, articles in (
                ("created", result.created),
                ("updated", result.updated),
                ("unchanged", result.unchanged),
            ):
                for article in articles:
                    self.stdout.write(f"{label}: {article.slug}")
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(result.created)} created, {len(result.updated)} updated, "
                f"{len(result.unchanged)} unchanged."
            )
        )
