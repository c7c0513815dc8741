"""Telling a full disk from other failures, wherever it shows: a file write, SQLite, or
PostgreSQL. Editors are told the cause (no space left), not a neighbouring one (the
database cannot be reached)."""

import errno

from django.db import DatabaseError

NO_SPACE_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
# SQLITE_FULL's message: the database file could not grow (or max_page_count was reached).
SQLITE_FULL = "database or disk is full"
# PostgreSQL's SQLSTATE for a server that could not extend a file.
POSTGRESQL_DISK_FULL = "53100"


def no_space_left(error):
    """True if ``error``, or an error it was raised from, says the disk is full."""
    while error is not None:
        if isinstance(error, OSError) and error.errno in NO_SPACE_ERRNOS:
            return True
        if isinstance(error, DatabaseError) and SQLITE_FULL in str(error):
            return True
        if getattr(error, "sqlstate", None) == POSTGRESQL_DISK_FULL:
            return True
        error = error.__cause__
    return False
