"""What the whole-site backup carries and leaves behind, app by app.

Each app names its models once, in a BackupPart made in its AppConfig.ready(): those it
carries and those it leaves behind, with why. A part with a file writes its models' rows
in Django's own serialization (JSON Lines, as dumpdata and loaddata write it: one row a
line, read a line at a time), through export_site's and import_site's signals; the apps
with a format of their own (the articles' text files, members.json, releases.json) name
their models with no file. export_site reports the rows it leaves behind, and a test
checks that every model of the project is named by a part."""

from django.apps import apps
from django.core import serializers
from django.core.exceptions import ObjectDoesNotExist
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, connection, transaction

from .signals import site_exporting, site_restoring

PARTS = []


class BackupPart:
    def __init__(self, file=None, carries=(), leaves=None):
        self.file, self.carries, self.leaves = file, list(carries), dict(leaves or {})
        PARTS.append(self)
        if file:
            # Strong references: the part lives as long as the process, not the caller.
            site_exporting.connect(self.export, weak=False, dispatch_uid=f"export {file}")
            site_restoring.connect(self.restore, weak=False, dispatch_uid=f"restore {file}")

    def models(self):
        return [apps.get_model(label) for label in self.carries]

    def export(self, sender=None, folder=None, **kwargs):
        if not any(model._base_manager.exists() for model in self.models()):
            return
        rows = (
            row
            for model in self.models()
            for row in model._base_manager.order_by("pk").iterator(chunk_size=1000)
        )
        with (folder / self.file).open("w", encoding="utf-8", newline="\n") as stream:
            # Accounts by username: a backup holds none, the new site has them made first.
            serializers.serialize("jsonl", rows, stream=stream, use_natural_foreign_keys=True)

    def restore(self, sender=None, folder=None, **kwargs):
        """The problems of restoring the part's file, if the backup has one (nothing is
        kept unless there are none: import_site is one transaction)."""
        path = folder / self.file
        if not path.exists():
            return []
        there = ", ".join(
            str(m._meta.verbose_name_plural) for m in self.models() if m._base_manager.exists()
        )
        if there:
            return [f"{path}: the database already has {there}; restore into an empty one."]
        try:
            # A savepoint: after a refused row the other parts can still be checked.
            with path.open(encoding="utf-8") as stream, transaction.atomic():
                for row in serializers.deserialize("jsonl", stream):
                    # As it was written: no save() of the model's, its times as they were.
                    row.save(force_insert=True)
        except (DeserializationError, DatabaseError) as error:
            if any(isinstance(e, ObjectDoesNotExist) for e in causes(error)):
                return [f"{path}: {error}. Create the accounts it names first (a backup holds "
                        "none), then restore again."]  # fmt: skip
            return [f"{path}: not a backup of {', '.join(self.carries)} that this Skillo can read "
                    f"({error})."]  # fmt: skip
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), self.models()):
                cursor.execute(sql)
        return []


def causes(error):
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


def left_behind():
    """(count, the model's plural name, why) for every model left behind that has rows."""
    return [
        (count, apps.get_model(label)._meta.verbose_name_plural, why)
        for part in PARTS
        for label, why in part.leaves.items()
        if (count := apps.get_model(label)._base_manager.count())
    ]
