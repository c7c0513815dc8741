"""The query planner's statistics, for SQLite, which gathers none by itself.

SQLite plans a query from sqlite_stat1, which only ANALYZE writes. Without it (a site
that never ran ANALYZE) or with a sample's (PRAGMA analysis_limit), its planner read an
archive month of 100,000 articles through the wrong index, every article's row, and an
article page's related links likewise. PostgreSQL's
autovacuum keeps its own statistics.

ANALYZE runs after migrate (each deploy, each make serve), after bulk writes (imports,
the demo content, synthetic seeding) and from ``manage.py tidy_database`` (nightly, from
cron). The steps other apps
register run first (search merges its full-text index: search.index).
"""

from django.db import connections

# Other apps' upkeep of their own tables, each called with the database alias and
# answering what it did, in words: this app, at the bottom of the layers, cannot know them.
_steps = []


def register(step):
    if step not in _steps:  # an app made ready twice (tests) registers once
        _steps.append(step)


def refresh(using="default"):
    """The registered steps, then the planner's statistics, on SQLite; nothing on
    PostgreSQL. What each step did, in words."""
    connection = connections[using]
    if connection.vendor != "sqlite":
        return []
    reports = [step(using) for step in _steps]
    with connection.cursor() as cursor:
        # Every row, not a sample: a sample's counts misled the planner (see above).
        cursor.execute("PRAGMA analysis_limit = 0")
        cursor.execute("ANALYZE")
    return reports
