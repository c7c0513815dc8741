"""The media storage on this machine: Django's, but a file appears under its name whole
or not at all.

Django's FileSystemStorage writes into the final name as it goes, so a write that fails
(a full disk) left an empty or partial file there, which the next save of the same name
then stepped around with a random suffix, and a reader could be sent half a rendition
while it was written. Here the bytes go to a hidden partial file beside it first (with
Django's own write: its permissions and upload moves), which is linked into place once
complete and removed whatever happens."""

import contextlib
import errno
import os
import secrets

from django.core.files import storage

PARTIAL_PREFIX = ".partial-"


class FileSystemStorage(storage.FileSystemStorage):
    def _save(self, name, content):
        folder, base = os.path.split(name)
        partial = os.path.join(folder, f"{PARTIAL_PREFIX}{secrets.token_hex(8)}-{base[-100:]}")
        try:
            partial = super()._save(partial, content)
            while True:
                try:
                    place(self.path(partial), self.path(name))
                    break
                except FileExistsError:
                    name = self.get_available_name(name)
        finally:
            # Missing if the write failed before making it.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path(partial))
        return name.replace("\\", "/")


# What a filesystem without hard links (CIFS, some FUSE mounts) answers to link().
NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK}


def place(partial, final):
    """Put the whole file ``partial`` at ``final``, never over a file already there
    (FileExistsError). A hard link does both at once; where the filesystem has none,
    the name is taken first (O_EXCL), then the file moved over that empty placeholder
    (an atomic rename), so a reader may find it empty for that instant, never half."""
    try:
        os.link(partial, final)
        return
    except OSError as error:
        if isinstance(error, FileExistsError) or error.errno not in NO_HARD_LINKS:
            raise
    os.close(os.open(final, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    os.replace(partial, final)


def partial_of(name):
    """The name (the last part, as the storage shortens it) a partial file ``name`` was
    being written for, or None if ``name`` is no partial file. A process killed while it
    wrote leaves one behind."""
    if not name.startswith(PARTIAL_PREFIX):
        return None
    token, separator, base = name[len(PARTIAL_PREFIX) :].partition("-")
    return base if separator and len(token) == 16 else None
