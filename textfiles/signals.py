import json

from django.dispatch import Signal

# Sent by load_demo once it has loaded the demo articles, inside its transaction: the
# apps above textfiles add their own demo content (the release desk's projects).
demo_loaded = Signal()

# Sent by export_site inside its snapshot with ``folder``, the backup being written: the
# apps above textfiles write their own files into it (members.json, the members app).
site_exporting = Signal()
# Sent by import_site after the articles are restored, inside its transaction, with
# ``folder``: each receiver restores its files and returns the problems it found (a
# list of "file:line: message"), which fail the whole restore.
site_restoring = Signal()


def restore_part(path, format, what, restore, exists):
    """For a receiver of site_restoring: the problems of restoring the JSON file ``path``
    (none if the backup has no such file) with ``restore(path, data)``, once its
    ``format`` is checked; ``exists`` says what already in the database forbids it (a
    restore goes into an empty site), ``what`` names the file in errors."""
    if not path.exists():
        return []
    if exists:
        return [f"{path}: the database already {exists}; restore into an empty one."]
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != format:
            return [f"{path}: format {data.get('format')!r} is not one this Skillo reads."]
        return restore(path, data)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return [f"{path}: not a {what} this Skillo can read ({error})."]
