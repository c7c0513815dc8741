"""The page cache and members' comments (issue 47): a story's conversation is kept like
a page; a comment shown (posted, approved, blocked away) purges the conversation of its
story only, never the story's page; a comment held for moderation purges nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from members import comments
from members.models import CommentSettings, Member
from tests.factories import ArticleFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


@pytest.fixture
def story(committed, settings):
    settings.COMMENT_MIN_MEMBER_MINUTES = 0
    with committed():
        CommentSettings.objects.create(first_comment_waits=False)
        story = ArticleFactory()
        other = ArticleFactory()
        Member.objects.create(email="ada@example.org", created_at=timezone.now() - timedelta(1))
    return story, other


def test_a_comment_shown_purges_its_story_and_conversation_and_nothing_else(
    reader, committed, story
):
    story, other = story
    pages = [
        story.get_absolute_url(),
        f"/comments/{story.pk}/",
        other.get_absolute_url(),
        f"/comments/{other.pk}/",
    ]
    reader.later()
    for url in pages:
        reader.get(url)
        assert reader.cached(url), url
    with committed():
        comments.post(Member.objects.get(), story, "Kept apart", "192.0.2.1")
    reader.later()
    assert reader.cached(pages[2]) and reader.cached(pages[3])
    assert not reader.cached(pages[0]) and not reader.cached(pages[1])
    # The story's page shows it itself, for readers with and without the script.
    assert "Kept apart" in reader.get(pages[0]).content.decode()
    assert "Kept apart" in reader.get(pages[1]).content.decode()


def test_a_held_comment_purges_nothing(reader, committed, story):
    story, _ = story
    CommentSettings.objects.update(first_comment_waits=True)
    url = f"/comments/{story.pk}/"
    reader.later()
    reader.get(url)
    with committed():
        comments.post(Member.objects.get(), story, "Waiting", "192.0.2.1")
    reader.later()
    assert reader.cached(url)


def test_blocking_a_member_purges_the_conversations_that_showed_them(reader, committed, story):
    story, _ = story
    with committed():
        comments.post(Member.objects.get(), story, "Soon gone", "192.0.2.1")
    url = f"/comments/{story.pk}/"
    reader.later()
    reader.get(url)
    assert reader.cached(url)
    with committed():
        comments.block(Member.objects.all(), "spam", None)
    reader.later()
    assert "Soon gone" not in reader.get(url).content.decode()
