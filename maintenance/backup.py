"""A consistent copy of a live SQLite database, taken while the site serves."""

import sqlite3
from pathlib import Path


class BackupFailed(Exception):
    pass


def backup_sqlite(connection, destination):
    """Copy the database behind Django ``connection`` to the file ``destination``.

    SQLite's online backup API copies every page inside one read transaction: with the
    write-ahead log, writers go on meanwhile and the copy is the database as it was
    when the backup began, with every transaction committed by then and none after.
    The copy is written beside ``destination`` and renamed into place only once it
    passes ``PRAGMA integrity_check``, so a failed backup never leaves a half file.
    Returns the number of pages copied.
    """
    destination = Path(destination)
    if destination.exists():
        raise BackupFailed(f"{destination} exists already; choose a new file name.")
    if not destination.parent.is_dir():
        raise BackupFailed(f"{destination.parent} is not a folder.")
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    connection.ensure_connection()
    target = sqlite3.connect(partial)
    try:
        connection.connection.backup(target)
        # The copy stands alone: no write-ahead log beside it.
        target.execute("PRAGMA journal_mode=DELETE")
        check = target.execute("PRAGMA integrity_check").fetchall()
        pages = target.execute("PRAGMA page_count").fetchone()[0]
    finally:
        target.close()
    if check != [("ok",)]:
        partial.unlink(missing_ok=True)
        raise BackupFailed(f"The copy failed its integrity check: {check[:5]}")
    partial.rename(destination)
    return pages
