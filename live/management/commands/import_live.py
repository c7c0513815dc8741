from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from live.textformat import LiveFileError, import_coverage, parse_coverage


class Command(BaseCommand):
    help = (
        "Replace a live story's coverage and entries with those of a file written by "
        "export_live. The article and the entries' authors must exist. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--new-ids",
            action="store_true",
            help="Give the entries new ids instead of the file's (another site's file).",
        )

    def handle(self, *args, files, new_ids, **options):
        try:
            parsed = [
                (parse_coverage(Path(name).read_text(encoding="utf-8"), name), name)
                for name in files
            ]
            with transaction.atomic():
                stored = [
                    import_coverage(item, name, keep_ids=not new_ids) for item, name in parsed
                ]
        except LiveFileError as error:
            for problem in error.problems:
                self.stderr.write(problem)
            raise CommandError("Nothing was imported.") from None
        except OSError as error:
            raise CommandError(str(error)) from None
        for coverage in stored:
            self.stdout.write(
                self.style.SUCCESS(f"{coverage.article.slug}: coverage {coverage.state}.")
            )
