"""``collectstatic``, skipped when nothing it would collect has changed since it last ran.

Every ``make serve`` collects (a new release may bring new files), but most starts bring
none, and the production storage hashes and compresses every file again each time
(39 s on a 2-core machine). The digest of what it would do (each source file's name and
bytes, the storage's settings, Django's and WhiteNoise's versions) is kept beside the
manifest in STATIC_ROOT; the same digest and the manifest still there, it is not run.
"""

import hashlib
import os
from importlib.metadata import version
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.staticfiles.finders import get_finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.core.management.base import BaseCommand

DIGEST_NAME = "collected-from.txt"
# What else changes the files collected: their address, how they are stored, processed
# and compressed.
SETTINGS = (
    "STATIC_URL", "STORAGES", "WHITENOISE_KEEP_ONLY_HASHED_FILES",
    "WHITENOISE_SKIP_COMPRESS_EXTENSIONS",
)  # fmt: skip


def sources_digest():
    digest = hashlib.blake2b(digest_size=16)
    for name in SETTINGS:
        digest.update(f"{name}={getattr(settings, name, None)!r}\n".encode())
    for package in ("django", "whitenoise", "brotli"):
        digest.update(f"{package} {version(package)}\n".encode())
    ignore = apps.get_app_config("staticfiles").ignore_patterns
    found = {}
    for finder in get_finders():
        for path, storage in finder.list(ignore):
            # Where collectstatic puts it; the first finder's file, as collectstatic's.
            prefix = getattr(storage, "prefix", None)
            found.setdefault(os.path.join(prefix, path) if prefix else path, (path, storage))
    for target, (path, storage) in sorted(found.items()):
        digest.update(target.encode() + b"\0")
        with storage.open(path) as file:
            digest.update(file.read() + b"\0")
    return digest.hexdigest()


class Command(BaseCommand):
    help = "Run collectstatic unless the static files and settings are those it last ran with."

    def handle(self, *args, **options):
        root = Path(settings.STATIC_ROOT)
        stored = root / DIGEST_NAME
        digest = sources_digest()
        manifest = getattr(staticfiles_storage, "manifest_name", None)
        if (
            stored.exists()
            and stored.read_text() == digest
            and (manifest is None or (root / manifest).exists())
        ):
            if options["verbosity"] >= 1:
                self.stdout.write("Static files unchanged since they were collected.")
            return
        stored.unlink(missing_ok=True)  # an interrupted run must not count as done
        call_command(
            "collectstatic", interactive=False, verbosity=options["verbosity"],
            stdout=self.stdout, stderr=self.stderr,
        )  # fmt: skip
        stored.write_text(digest)
