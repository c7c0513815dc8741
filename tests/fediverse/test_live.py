"""A live story on the fediverse: followers get an Update of the story for each key
event, with the key events above its text; never one for an ordinary entry."""

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from live import desk
from live.models import LiveCoverage

from ..background_tasks import run_queued
from ..factories import ArticleFactory
from .test_following import follow

pytestmark = pytest.mark.django_db


@pytest.fixture
def live_story(client, remote, django_user_model):
    editor = django_user_model.objects.create_user("ed", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    follow(client, remote, "alice")
    coverage = LiveCoverage.objects.create(
        article=ArticleFactory(title="The keynote, live"),
        state=LiveCoverage.State.LIVE,
        starts_at=timezone.now(),
    )
    run_queued()
    assert len(remote.activities("Create")) == 1
    return coverage, editor


def test_a_key_event_sends_the_follower_an_update_of_the_story(remote, live_story):
    coverage, editor = live_story
    desk.post_entry(coverage, editor, headline="Version 5 announced", body="Today.", key_event=True)
    run_queued()
    (update,) = remote.activities("Update")
    assert update["object"]["id"].endswith(f"/ap/articles/{coverage.pk}")
    content = update["object"]["content"]
    # Above the story's text, where a server's short preview shows it.
    assert content.index("Live, key events") < content.index("Version 5 announced")
    assert content.index("Version 5 announced") < content.index("It shipped.")


def test_an_ordinary_entry_sends_nothing(remote, live_story):
    coverage, editor = live_story
    desk.post_entry(coverage, editor, body="The lights dim.")
    run_queued()
    assert remote.activities("Update") == []
