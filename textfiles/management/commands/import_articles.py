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
        if options["verbosity"] >= 1:
            self.report_what_stayed_out(result)
        self.stdout.write(
            self.style.SUCCESS(
                f"{len(result.created)} created, {len(result.updated)} updated, "
                f"{len(result.unchanged)} unchanged."
            )
        )

    def report_what_stayed_out(self, result):
        # A file describes its whole article: what it leaves out is removed, and said.
        for article, parts in result.removed:
            self.stdout.write(
                self.style.WARNING(f"{article.slug}: removed its {_and(parts)}: the file has none.")
            )
        # Except the corrections log, which only ever grows.
        for article, count in result.kept_notes:
            self.stdout.write(
                f"{article.slug}: kept {count} correction(s) or update(s) the file leaves out; "
                "an import never removes one."
            )


def _and(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
