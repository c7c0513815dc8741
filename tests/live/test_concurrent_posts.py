"""Two people post to one story at the same moment: both entries land."""

import threading

import pytest
from django.db import connection

from live import desk
from live.models import Entry, LiveCoverage

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite's test database is a shared-cache in-memory "
        "database whose locks fail at once instead of waiting (tests/test_concurrency.py)",
    ),
]

POSTERS = 8


def test_entries_posted_at_once_all_land_with_their_own_version(story, editor):
    start = threading.Barrier(POSTERS)
    errors = []

    def post(n):
        try:
            start.wait()
            desk.post_entry(LiveCoverage(pk=story.pk), editor, body=f"Entry {n}.")
        except BaseException as error:  # reported below, not lost in the thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(n,)) for n in range(POSTERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    entries = Entry.objects.filter(coverage=story)
    assert sorted(entries.values_list("body", flat=True)) == [f"Entry {n}." for n in range(POSTERS)]
    assert len(set(entries.values_list("version", flat=True))) == POSTERS
    assert LiveCoverage.objects.get().version == story.version + POSTERS
