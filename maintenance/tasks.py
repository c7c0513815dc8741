from django.db import connection
from django.tasks import task

from background.limits import time_limit

from . import statistics


@task
@time_limit(1800)  # merging a large search index takes minutes
def tidy_database():
    """SQLite's nightly upkeep (manage.py tidy_database): the search index merged, the
    planner's statistics refreshed. PostgreSQL's autovacuum does this itself."""
    if connection.vendor != "sqlite":
        return []
    return statistics.refresh()
