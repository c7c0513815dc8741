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
