"""Health checks, never kept by a cache, writing nothing.

- ``/health/live/``: the process answers (it reads nothing; background.middleware
  answers it, whatever the Host): for a supervisor that restarts a process that hangs,
  and Varnish's probes.
- ``/health/ready/``: this server can serve pages: the database answers. For load
  balancers. The cache is reported ("degraded"), never failed on: every server shares
  it, so a second of Redis missing would take every server out of the balancer at once,
  while pages can still be served (uncached).
- ``/health/``: the monitors' check, as before: the queue's depth, 503 when the database
  cannot be read.
"""

from django.core.cache import cache
from django.db import DatabaseError, connection, transaction
from django.http import JsonResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET
from redis.exceptions import RedisError

from .status import queue_status

# A health check must answer quickly: a database that takes longer counts as down.
STATEMENT_TIMEOUT_MS = 2000


def answer(body, status=200):
    response = JsonResponse(body, status=status)
    add_never_cache_headers(response)
    return response


def within_timeout(read):
    """``read()`` with the database's time limit."""
    if connection.vendor == "postgresql":
        # A transaction of its own, for the timeout to hold in it alone.
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = %s", [STATEMENT_TIMEOUT_MS])
            return read()
    # No transaction: on SQLite one would wait for the write lock (IMMEDIATE).
    return read()


def database_answers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


@require_GET
def health(request):
    """200 with the queues' depth and their oldest waiting task's age; 503 when the
    database cannot be read."""
    try:
        return answer(within_timeout(lambda: {"status": "ok", "tasks": queue_status()}))
    except DatabaseError as error:
        return answer({"status": "database unavailable", "error": type(error).__name__}, 503)


@require_GET
def ready(request):
    """200 while the database answers, "degraded" naming what else does not; else 503."""
    try:
        within_timeout(database_answers)
    except DatabaseError as error:
        return answer({"status": "database unavailable", "error": type(error).__name__}, 503)
    parts = {"database": "ok", "cache": "ok"}
    try:
        cache.get("health")
    except RedisError:
        parts["cache"] = "unavailable"
    degraded = any(state != "ok" for state in parts.values())
    return answer({"status": "degraded" if degraded else "ok", **parts})
