from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections

from maintenance.backup import BackupFailed, backup_sqlite

POSTGRES_HELP = (
    "On PostgreSQL, back up with pg_dump while the site serves (it reads one consistent "
    "snapshot):\n"
    '  pg_dump --format=custom --file={destination} "$DATABASE_URL"\n'
    "and restore into an empty database with:\n"
    '  pg_restore --no-owner --dbname="$DATABASE_URL" {destination}'
)


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the SQLite database to DEST while the site keeps "
        "serving (SQLite's online backup API); the copy is checked with PRAGMA "
        "integrity_check before it is put in place. See docs/operations.md, 'Backups'."
    )

    def add_arguments(self, parser):
        parser.add_argument("destination", metavar="DEST", help="a new file, e.g. backup.sqlite3")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS)

    def handle(self, destination, database, **options):
        connection = connections[database]
        if connection.vendor == "postgresql":
            raise CommandError(POSTGRES_HELP.format(destination=destination))
        if connection.vendor != "sqlite":
            raise CommandError(f"No backup for {connection.vendor} databases here.")
        try:
            pages = backup_sqlite(connection, destination)
        except BackupFailed as error:
            raise CommandError(str(error)) from None
        if options["verbosity"]:
            self.stdout.write(
                self.style.SUCCESS(f"Backed up {pages:,} pages to {destination}; integrity ok.")
            )
