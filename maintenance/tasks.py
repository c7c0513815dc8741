from django.db import connection
from django.tasks import task

from . import statistics


@task
def tidy_database():
    """SQLite's nightly upkeep (manage.py tidy_database): the search index merged, the
    planner's statistics refreshed. PostgreSQL's autovacuum does this itself."""
    if connection.vendor != "sqlite":
        return []
    return statistics.refresh()
