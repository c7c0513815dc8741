"""The move from one database to another (export_site, then import_site) carries
everything a site has, or names what it leaves behind (issue 56.19): the fediverse's
keys and followers, API tokens and webhooks, newsletter subscribers and issues, and the
readership figures come back as they were; a model no part names fails a test."""

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from api.models import ApiToken, Scope, Webhook
from fediverse.actors import site_actor, topic_actor
from fediverse.models import (
    ArticleState,
    BlockedDomain,
    Follower,
    Publication,
    Reaction,
    RemoteActor,
    Reply,
)
from members.models import BlockedAddress
from news.models import Tag
from newsletters.models import Issue, Subscriber, Suppressed, digest
from readership.models import ArticleHour, MostRead, SourceHour, Summary
from textfiles.records import PARTS

from .factories import (
    ApiTokenFactory,
    ArticleFactory,
    CorrectionFactory,
    WebhookFactory,
    WebhookHostFactory,
)
from .test_site_backup import wipe

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def carried():
    return [model for part in PARTS if part.file for model in part.models()]


def rows():
    """Every carried row as the backup writes it, model by model."""
    return {
        model._meta.label: json.loads(
            serializers.serialize(
                "json", model._base_manager.order_by("pk"), use_natural_foreign_keys=True
            )
        )
        for model in carried()
    }


@pytest.fixture
def site():
    """A site with something in every part the backup carries in Django's format."""
    rust = Tag.objects.create(name="Rust", slug="rust")
    Tag.objects.filter(pk=Tag.objects.create(name="Gone", slug="gone").pk).delete()
    late = Tag.objects.create(name="Late", slug="late")  # an id after a gap
    story = ArticleFactory(tags=[rust, late])
    site_actor()
    follower = RemoteActor.objects.create(
        uri="https://social.example/users/ada", domain="social.example",
        inbox="https://social.example/users/ada/inbox", fetched_at=timezone.now(),
        username="ada",
    )  # fmt: skip
    Follower.objects.create(
        local=topic_actor(late), remote=follower, follow_uri="https://social.example/f/1"
    )
    BlockedDomain.objects.create(domain="spam.example", note="spam")
    Publication.objects.create(article_id=story.pk, inbox=follower.inbox, actor=topic_actor(late))
    ArticleState.objects.update_or_create(article_id=story.pk, defaults={"likes": 1})
    Reaction.objects.create(article_id=story.pk, kind=Reaction.Kind.LIKE, actor="0" * 64)
    Reply.objects.create(
        uri="https://social.example/notes/1", article=story, remote=follower,
        content="<p>Nice</p>", published_at=timezone.now(), state=Reply.State.APPROVED,
    )  # fmt: skip
    token = ApiTokenFactory(scopes=[Scope.READ_DRAFTS])
    WebhookHostFactory()
    WebhookFactory()
    reader = Subscriber.objects.create(email="reader@example.org", state=Subscriber.State.ACTIVE)
    reader.topics.set([late])
    Suppressed.objects.create(address=digest("gone@example.org"), reason="bounced")
    sent = timezone.now() - timedelta(days=1)
    issue, _ = Issue.objects.update_or_create(
        article=story,
        defaults={"kind": Issue.Kind.STORY, "state": Issue.State.SENT, "subject": story.title,
                  "sent_at": sent, "recipients": 1},
    )  # fmt: skip
    hour = sent.replace(minute=0, second=0, microsecond=0)
    ArticleHour.objects.create(article=story, hour=hour, views=12, visitors=9)
    SourceHour.objects.create(article=story, hour=hour, source="news.example", views=4)
    Summary.objects.create(name="dashboard", data={"views": 12}, at=sent)
    MostRead.objects.create(rank=1, article=story, readers=9, days=7)
    BlockedAddress.objects.create(address=digest("troll@example.org"), blocked_at=sent)
    return story, late, token, issue


def move(tmp_path, out=None):
    call_command("export_site", str(tmp_path / "backup"), stdout=out or StringIO())
    wipe()
    # What the wipe queued (the deleted stories' Delete activities) is the old site's.
    DBTaskResult.objects.all().delete()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=StringIO())


def test_every_model_is_carried_or_left_behind_by_name():
    named = [label for part in PARTS for label in [*part.carries, *part.leaves]]
    ours = [
        model._meta.label
        for model in apps.get_models()
        if not model._meta.proxy and Path(model._meta.app_config.path).parent == settings.BASE_DIR
    ]
    assert sorted(set(ours) - set(named)) == []
    assert len(named) == len(set(named)), "a model is named by two parts"


def test_a_moved_site_has_every_carried_row_as_it_was(site, tmp_path):
    before = rows()
    assert all(before.values()), [label for label, found in before.items() if not found]
    move(tmp_path)
    assert rows() == before


def test_a_moved_topic_keeps_its_fediverse_address_and_key(site, tmp_path):
    _, late, _, _ = site
    actor = Client().get(f"/ap/topics/{late.pk}", HTTP_ACCEPT="application/activity+json")
    move(tmp_path)
    assert Tag.objects.get(slug="late").pk == late.pk
    moved = Client().get(f"/ap/topics/{late.pk}", HTTP_ACCEPT="application/activity+json")
    assert moved.status_code == 200
    assert moved.json()["publicKey"] == actor.json()["publicKey"]
    assert Follower.objects.get().local.tag.slug == "late"
    # New topics and followers get new ids past the restored ones.
    assert Tag.objects.create(name="New", slug="new").pk > late.pk
    Follower.objects.create(local=site_actor(), remote=RemoteActor.objects.get(), follow_uri="x:")


def test_a_tool_keeps_reading_drafts_with_its_token_after_the_move(site, tmp_path):
    draft = ArticleFactory(draft=True)
    _, _, token, _ = site
    move(tmp_path)
    answer = Client().get(
        f"/api/v1/articles/{draft.slug}/", HTTP_AUTHORIZATION=f"Bearer {token.secret}"
    )
    assert answer.status_code == 200


def test_the_newsletter_archive_and_its_readers_survive_the_move(site, tmp_path):
    _, _, _, issue = site
    move(tmp_path)
    assert Client().get(f"/newsletter/archive/{issue.pk}/").status_code == 200
    reader = Subscriber.objects.get()
    assert [tag.slug for tag in reader.topics.all()] == ["late"]
    assert reader.state == Subscriber.State.ACTIVE


def test_a_token_whose_account_is_missing_refuses_the_whole_restore(site, tmp_path):
    _, _, token, _ = site
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    token.user.delete()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert f"{tmp_path / 'backup' / 'api.jsonl'}: " in err.getvalue()
    assert token.user.username in err.getvalue()
    assert "Create the accounts it names first" in err.getvalue()
    assert not ApiToken.objects.exists() and not Tag.objects.exists()


def test_the_export_names_what_it_leaves_behind(site, tmp_path):
    Webhook.objects.get().deliveries.create(event="article.published", payload={})
    out = StringIO()
    call_command("export_site", str(tmp_path / "backup"), stdout=out)
    assert "Left behind: 1 deliveries (webhook deliveries under way and their log)." in (
        out.getvalue()
    )


def test_a_restore_announces_no_story_or_correction_again(site, tmp_path):
    """Restored stories are not news: no newsletter, webhook call or fediverse post for
    them or their corrections, though subscribers, webhooks and followers came back."""
    from api.models import Delivery as WebhookDelivery

    story, *_ = site
    never_mailed = ArticleFactory(email_subscribers=True)
    Issue.objects.filter(article=never_mailed).delete()
    CorrectionFactory(article=story)
    WebhookDelivery.objects.all().delete()
    issues = Issue.objects.count()
    move(tmp_path)
    assert Issue.objects.count() == issues
    assert not WebhookDelivery.objects.exists()
    queued = set(DBTaskResult.objects.values_list("task_path", flat=True))
    # Rendering work and the planned issues' own sending, nothing that tells anyone.
    assert not [path for path in queued if path.startswith(("fediverse.", "api."))], queued


def test_what_was_still_to_come_is_queued_again_after_the_move(site, tmp_path):
    """A scheduled story is announced at its time, and a planned issue is sent at its
    own: their tasks stayed behind with the old site."""
    later = timezone.now() + timedelta(days=2)
    scheduled = ArticleFactory(published_at=later, email_subscribers=True)
    digest_issue = Issue.objects.create(
        kind=Issue.Kind.DAILY, subject="Today", due_at=later, state=Issue.State.PLANNED
    )
    move(tmp_path)
    queued = DBTaskResult.objects.filter(task_path="newsletters.tasks.send_issue")
    planned = {row.args_kwargs["args"][0] for row in queued}
    story_issue = Issue.objects.get(article=scheduled)
    assert story_issue.state == Issue.State.PLANNED
    assert {story_issue.pk, digest_issue.pk} <= planned
    assert DBTaskResult.objects.filter(task_path="fediverse.publishing.announce").exists()


def test_the_backup_folder_is_its_owners_alone(site, tmp_path):
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    assert (tmp_path / "backup").stat().st_mode & 0o777 == 0o700
