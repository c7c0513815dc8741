"""Members and comments in the whole-site backup (issue 47): export_site writes them to
members.json without a token, a session or a link; import_site gives the same
conversations, saved stories, blocks and comment rules back; a members.json that names
a story the backup lacks fails the whole restore."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from members.models import (
    ClosedStory,
    Comment,
    CommentSettings,
    Member,
    MemberSession,
    SavedStory,
    SignInLink,
    token_hash,
)
from news.models import Article

from ..factories import ArticleFactory
from ..test_site_backup import wipe

pytestmark = pytest.mark.django_db


def comment(story, member, text, **fields):
    return Comment.objects.create(
        article=story, member=member, body=text, body_html=f"<p>{text}</p>",
        state=Comment.State.APPROVED, **fields,
    )  # fmt: skip


@pytest.fixture
def site(media_root):
    story, other = ArticleFactory.create_batch(2)
    CommentSettings.objects.create(first_comment_waits=False, close_after_days=30)
    ClosedStory.objects.create(article=other)
    ada = Member.objects.create(email="ada@example.org", name="Ada")
    spammer = Member.objects.create(
        email="spam@example.org", blocked_at=timezone.now(), blocked_reason="spam"
    )
    SavedStory.objects.create(member=ada, article=other)
    first = comment(story, ada, "A comment", created_at=timezone.now() - timedelta(hours=2))
    comment(story, ada, "A reply", parent=first)
    comment(story, spammer, "Buy now")
    MemberSession.objects.create(
        member=ada, token=token_hash("session-secret"), expires_at=timezone.now() + timedelta(1)
    )
    SignInLink.objects.create(email=ada.email, token=token_hash("link-secret"))
    return story, other


def wipe_members():
    for model in (Comment, SavedStory, MemberSession, SignInLink, Member, ClosedStory,
                  CommentSettings):  # fmt: skip
        model.objects.all().delete()
    wipe()


def test_a_restored_backup_gives_the_members_and_conversations_back(site, tmp_path):
    story, other = site
    before = Client().get(f"/comments/{story.pk}/").content
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe_members()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    assert Client().get(f"/comments/{story.pk}/").content == before
    ada = Member.objects.get(email="ada@example.org")
    assert [s.article_id for s in ada.saved.all()] == [other.pk]
    assert Member.objects.get(email="spam@example.org").blocked_reason == "spam"
    assert ClosedStory.objects.get().article_id == other.pk
    assert CommentSettings.objects.get().close_after_days == 30
    assert not MemberSession.objects.exists() and not SignInLink.objects.exists()


def test_the_backup_holds_no_token_session_or_link(site, tmp_path):
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    text = (tmp_path / "backup" / "members.json").read_text()
    assert "ada@example.org" in text and "A reply" in text
    for secret in ("session-secret", "link-secret"):
        assert secret not in text and token_hash(secret) not in text


def test_a_members_file_naming_a_missing_story_restores_nothing(site, tmp_path):
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    path = tmp_path / "backup" / "members.json"
    data = json.loads(path.read_text())
    data["closed_stories"] = ["no-such-story"]
    path.write_text(json.dumps(data))
    wipe_members()
    errors = StringIO()
    with pytest.raises(CommandError):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=errors)
    assert "'no-such-story', which is not in the backup" in errors.getvalue()
    assert not Article.objects.exists() and not Member.objects.exists()


def test_a_site_without_members_writes_no_members_file(tmp_path, media_root):
    ArticleFactory()
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    assert not (tmp_path / "backup" / "members.json").exists()
