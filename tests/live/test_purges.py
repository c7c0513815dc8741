"""A change to live coverage purges what shows the coverage, and nothing else."""

import pytest

from live import desk
from pagecache.purges import purged

pytestmark = pytest.mark.django_db


@pytest.fixture
def purged_keys():
    found = []

    def record(sender, keys=(), **kwargs):
        found.extend(keys)

    purged.connect(record)
    yield found
    purged.disconnect(record)


def test_posting_an_entry_purges_only_the_story_coverage(story, editor, purged_keys):
    desk.post_entry(story, editor, body="Doors open.")
    assert purged_keys == [f"live:{story.pk}"]


def test_an_awaiting_entry_purges_nothing(story, writer, purged_keys):
    story.approval_required = True
    story.save()
    desk.post_entry(story, writer, body="Doors open.")
    assert purged_keys == []


def test_ending_coverage_purges_only_the_story_coverage(story, editor, purged_keys):
    desk.end_coverage(story, editor)
    assert purged_keys == [f"live:{story.pk}"]
