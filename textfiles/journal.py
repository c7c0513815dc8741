"""The files a site restore writes, named before they are written, so that those of a
restore that never committed can be found and removed.

import_site writes each picture's original and renditions to the storage while its
transaction is open. Rolled back, or killed (kill -9, a power cut), it leaves the files
and no row that uses them: orphans, whose names the next restore would find taken. So
before a picture's files are written, their names go into a journal in the storage
itself (``unfinished-restores/RUN/NUMBER.txt``: the picture's SHA-256, then one name a
line), which the restore removes once it has committed. A journal still there belongs
to a restore that did not finish. The next restore, holding the restore lock (no other
restore is running then), removes the files of such journals that no image uses, and
the partial files that writes of them cut short left beside them (images.storage), then
the journals.
"""

import contextlib
import uuid

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from images.models import Image
from images.storage import partial_of

FOLDER = "unfinished-restores"


class Journal:
    """The journal of one restore."""

    def __init__(self, storage=None):
        self.storage = storage or default_storage
        self.folder = f"{FOLDER}/{uuid.uuid4().hex}"
        self.entries = []

    def add(self, image):
        """Name ``image``'s files (original and renditions) before they are written."""
        text = "".join(f"{line}\n" for line in [image.sha256, *image.stored_files()])
        name = f"{self.folder}/{len(self.entries):06d}.txt"
        self.entries.append(self.storage.save(name, ContentFile(text.encode())))

    def discard(self):
        """Forget the journal: the restore committed, its files are in use."""
        for name in self.entries:
            self.storage.delete(name)
        _remove_folder(self.storage, self.folder)

    def undo(self):
        """Remove the files this restore wrote that no image uses, then the journal (the
        restore rolled back)."""
        _clean(self.storage, self.folder)


def clean_unfinished(storage=None):
    """Remove what restores that never committed left: the files their journals name that
    no image uses, then the journals. Return how many files were removed. Only while no
    other restore runs (import_site holds the restore lock)."""
    storage = storage or default_storage
    try:
        runs, _ = storage.listdir(FOLDER)
    except FileNotFoundError:
        return 0
    return sum(_clean(storage, f"{FOLDER}/{run}") for run in runs)


def _clean(storage, folder):
    try:
        _, entries = storage.listdir(folder)
    except FileNotFoundError:
        return 0
    named = {}
    for entry in entries:
        with storage.open(f"{folder}/{entry}", "rb") as journal:
            text = journal.read().decode()
        if not text.endswith("\n"):
            # Cut short while it was written: none of its picture's files were written yet.
            continue
        sha256, *names = text.splitlines()
        named.setdefault(sha256, []).extend(names)
    shas, in_use = list(named), set()
    for start in range(0, len(shas), 500):  # within any database's limit of parameters
        batch = Image.objects.filter(sha256__in=shas[start : start + 500])
        in_use.update(batch.values_list("sha256", flat=True))
    unused = [name for sha256, names in named.items() if sha256 not in in_use for name in names]
    removed = 0
    for name in unused:
        if storage.exists(name):
            storage.delete(name)
            removed += 1
    for name in _partial_files(storage, unused):
        storage.delete(name)
        removed += 1
    for entry in entries:
        storage.delete(f"{folder}/{entry}")
    _remove_folder(storage, folder)
    return removed


def _partial_files(storage, names):
    """The partial files beside ``names`` that writes of them killed halfway left
    (images.storage writes a file beside its name, then links it into place)."""
    bases = {}
    for name in names:
        folder, _, base = name.rpartition("/")
        bases.setdefault(folder, set()).add(base[-100:])
    for folder, wanted in bases.items():
        try:
            _, files = storage.listdir(folder)
        except FileNotFoundError:
            continue
        yield from (f"{folder}/{file}" for file in files if partial_of(file) in wanted)


def _remove_folder(storage, folder):
    # A folder on the file system (FileSystemStorage.delete removes an empty one); object
    # storages have none.
    with contextlib.suppress(OSError):
        storage.delete(folder)
