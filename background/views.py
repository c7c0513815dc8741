from django.db import DatabaseError, connection, transaction
from django.http import JsonResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET

from .status import queue_status

# A health check must answer quickly: a database that takes longer counts as down.
STATEMENT_TIMEOUT_MS = 2000


@require_GET
def health(request):
    """200 with the queue's depth and its oldest waiting task's age; 503 when the
    database cannot be read. Writes nothing, never kept by a cache."""
    try:
        if connection.vendor == "postgresql":
            # A transaction of its own, for the timeout to hold in it alone.
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL statement_timeout = %s", [STATEMENT_TIMEOUT_MS])
                body = {"status": "ok", "tasks": queue_status()}
        else:
            # No transaction: on SQLite one would wait for the write lock (IMMEDIATE).
            body = {"status": "ok", "tasks": queue_status()}
        status = 200
    except DatabaseError as error:
        body, status = {"status": "database unavailable", "error": type(error).__name__}, 503
    response = JsonResponse(body, status=status)
    add_never_cache_headers(response)
    return response
