"""Purges shared by the processes of one machine when the cache is each process's own.

The default cache (local memory) is fastest for a hit but private to a process: a purge
made by another server process, a management command or a shell would not reach it. So
every purge is also appended to a log file that all processes on the machine share, and
each process, before it serves a page, reads what was appended since it last looked and
applies it to its own memory. Looking costs one ``stat()``; the file is read only when it
grew. A process starts reading at the end: its memory is empty, there is nothing to undo.

Entries are lines: ``P token key key...`` (those keys got that token: purged) and
``S key json`` (a small shared value, such as the next scheduled publication). Writers
append a whole line with one ``write()`` under an exclusive lock on a lock file, which
also guards rotation: past ``MAX_BYTES`` the log is started afresh, and every process
that sees the new file forgets its whole memory (everything built before is dropped).
"""

import fcntl
import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path

from django.conf import settings

MAX_BYTES = 8 * 1024 * 1024


def default_path():
    """One log per database: processes serving the same database share it."""
    database = settings.DATABASES["default"]
    identity = "|".join(str(database.get(part, "")) for part in ("ENGINE", "NAME", "HOST", "PORT"))
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"skillo-purges-{digest}.log"


class PurgeLog:
    def __init__(self, path, apply_purge, apply_value, forget_all):
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.apply_purge, self.apply_value, self.forget_all = apply_purge, apply_value, forget_all
        self.read_lock = threading.Lock()
        self.inode, self.offset = self._end()

    def _end(self):
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return None, 0
        return found.st_ino, found.st_size

    def purge(self, token, keys):
        self._append(f"P {token} {' '.join(sorted(keys))}\n")

    def share(self, key, value):
        self._append(f"S {key} {json.dumps(value)}\n")

    def _append(self, line):
        data = line.encode()
        with open(self.lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if os.path.exists(self.path) and os.path.getsize(self.path) > MAX_BYTES:
                    os.replace(self.path, self.path.with_name(self.path.name + ".old"))
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                try:
                    os.write(fd, data)
                    end, inode = os.lseek(fd, 0, os.SEEK_CUR), os.fstat(fd).st_ino
                finally:
                    os.close(fd)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        with self.read_lock:
            if self.inode is None and end == len(data):
                # The log begins with this line: nothing before it to read.
                self.inode = inode
            # This process applied it already: skip its own line if it is next.
            if inode == self.inode and self.offset == end - len(data):
                self.offset = end

    def catch_up(self):
        """Apply what other processes appended since this one last looked."""
        inode, size = self._end()
        if inode == self.inode and size == self.offset:
            return
        with self.read_lock:
            if inode != self.inode:
                # A new log (rotated, or removed): what was missed cannot be known.
                self.inode, self.offset = inode, 0
                self.forget_all()
            if inode is None:
                return
            with open(self.path, "rb") as log:
                log.seek(self.offset)
                chunk = log.read(max(0, size - self.offset))
            complete = chunk[: chunk.rfind(b"\n") + 1]
            self.offset += len(complete)
        for line in complete.decode().splitlines():
            kind, _, rest = line.partition(" ")
            if kind == "P":
                token, *keys = rest.split(" ")
                self.apply_purge(token, keys)
            elif kind == "S":
                key, _, value = rest.partition(" ")
                self.apply_value(key, json.loads(value))
