"""The demo has members and a conversation (issue 47): `make run` shows comments under
the newest story, one waiting in the admin's moderation list, and a member whose portal
holds a newsletter and a saved story."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from members.models import Comment, Member
from news.models import Article

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(media_root):
    call_command("load_demo", stdout=StringIO())


def test_the_demo_shows_a_conversation_under_the_newest_story(demo):
    story = Article.objects.published().order_by("-published_at", "-pk").first()
    html = Client().get(f"/comments/{story.pk}/").content.decode()
    assert "Rosa Reader" in html and "Thanks: the migration guide" in html
    assert 'rel="nofollow ugc noopener noreferrer"' in html
    assert "a question the moderators" not in html


def test_the_demo_has_a_comment_waiting_for_a_moderator(demo, admin_client):
    html = admin_client.get("/admin/members/comment/?state__exact=pending").content.decode()
    assert "First comment here" in html
    assert Comment.objects.filter(state=Comment.State.PENDING).count() == 1


def test_the_demo_reader_is_a_subscriber_with_a_saved_story(demo):
    reader = Member.objects.get(email="rosa@demo.example")
    assert reader.saved.count() == 1
    assert Member.objects.count() == 3
