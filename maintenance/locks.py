"""Database locks the ORM has no word for."""

from django.db import connections


def transaction_lock(number, using="default"):
    """Wait for, then hold until the current transaction ends, PostgreSQL's advisory lock
    ``number``: code that takes it runs one transaction at a time. SQLite, which lets one
    writer in at a time anyway, has none; outside a transaction there is nothing to hold
    it for."""
    connection = connections[using]
    if connection.vendor == "postgresql" and connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])
