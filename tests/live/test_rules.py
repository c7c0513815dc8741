"""The rules of live coverage, whatever posts: the desk's operations (live.desk)."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from live import desk
from live.models import Entry, LiveCoverage, RemovedEntry
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def test_an_entry_on_a_story_not_live_yet_is_refused(editor):
    coverage = LiveCoverage.objects.create(article=ArticleFactory())
    with pytest.raises(ValidationError, match="not live"):
        desk.post_entry(coverage, editor, body="Too early.")
    assert not Entry.objects.exists()


def test_an_entry_on_an_ended_story_is_refused(story, editor):
    desk.end_coverage(story, editor)
    with pytest.raises(ValidationError, match="not live"):
        desk.post_entry(story, editor, body="Too late.")
    assert not Entry.objects.exists()


def test_an_entry_is_rendered_and_sanitised_as_articles_are(story, editor):
    entry = desk.post_entry(
        story, editor, body="**Bold** <script>alert(1)</script> [a](javascript:alert(1))"
    )
    assert "<strong>Bold</strong>" in entry.body_html
    assert "<script" not in entry.body_html
    assert "javascript:" not in entry.body_html


def test_a_writers_entry_waits_when_the_story_asks_approval(story, writer, editor):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="The CEO is on stage.")
    assert entry.status == Entry.Status.AWAITING
    assert not Entry.objects.published().exists()
    desk.approve_entry(entry, editor)
    assert list(Entry.objects.published()) == [entry]


def test_a_writers_entry_is_shown_at_once_when_the_story_does_not_ask(story, writer):
    entry = desk.post_entry(story, writer, body="The CEO is on stage.")
    assert list(Entry.objects.published()) == [entry]


def test_an_editors_entry_never_waits(story, editor):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, editor, body="Doors open.")
    assert entry.status == Entry.Status.PUBLISHED


def test_a_writers_change_to_a_shown_entry_waits_for_an_editor_again(story, writer, editor, client):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="The CEO is on stage.")
    desk.approve_entry(entry, editor)
    posted = Entry.objects.get().posted_at
    desk.edit_entry(entry, writer, body="The CEO is on stage. Buy our shares!")
    page = client.get(story.get_absolute_url()).content.decode()
    assert "Buy our shares" not in page and "The CEO is on stage." not in page
    assert RemovedEntry.objects.get().entry_id == entry.pk  # Open pages drop it too.
    desk.approve_entry(entry, editor)
    assert "Buy our shares" in client.get(story.get_absolute_url()).content.decode()
    entry.refresh_from_db()
    assert entry.posted_at == posted and entry.edited_at > posted  # In its place, "Updated".


def test_an_editors_change_to_a_shown_entry_is_shown_at_once(story, writer, editor, client):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="The CEO is on stage.")
    desk.approve_entry(entry, editor)
    desk.edit_entry(entry, editor, body="The CEO is on stage, late.")
    assert "on stage, late." in client.get(story.get_absolute_url()).content.decode()


def test_a_writer_cannot_approve(story, writer):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="Doors open.")
    with pytest.raises(PermissionDenied):
        desk.approve_entry(entry, writer)


def test_an_entry_is_signed_by_its_writer_by_default(story, writer):
    entry = desk.post_entry(story, writer, body="Doors open.")
    assert [author.name for author in entry.authors.all()] == ["Wanda Writer"]


def test_an_edit_says_updated_with_its_time(story, editor):
    entry = desk.post_entry(story, editor, body="Version 17 ships.")
    assert entry.edited_at is None
    edited = desk.edit_entry(entry, editor, body="Version 18 ships.")
    assert edited.edited_at is not None
    assert edited.edited_at >= edited.posted_at
    assert "Version 18" in Entry.objects.get(pk=entry.pk).body_html


def test_an_edit_that_changes_nothing_says_nothing(story, editor):
    entry = desk.post_entry(story, editor, body="Version 17 ships.")
    assert desk.edit_entry(entry, editor, body="Version 17 ships.").edited_at is None


def test_a_writer_cannot_edit_anothers_entry(story, writer, editor):
    entry = desk.post_entry(story, editor, body="Version 17 ships.")
    with pytest.raises(PermissionDenied):
        desk.edit_entry(entry, writer, body="Mine now.")


def test_a_deleted_entry_leaves_only_its_number(story, editor):
    entry = desk.post_entry(story, editor, headline="Oops", body="A wrong rumour.")
    desk.delete_entry(entry, editor)
    assert not Entry.objects.filter(pk=entry.pk).exists()
    removed = RemovedEntry.objects.get()
    assert removed.entry_id == entry.pk
    assert not hasattr(removed, "body")


def test_every_change_readers_see_moves_the_version_on(story, editor):
    versions = [LiveCoverage.objects.get().version]
    entry = desk.post_entry(story, editor, body="One.")
    versions.append(LiveCoverage.objects.get().version)
    desk.edit_entry(entry, editor, body="One, edited.")
    versions.append(LiveCoverage.objects.get().version)
    desk.delete_entry(entry, editor)
    versions.append(LiveCoverage.objects.get().version)
    desk.end_coverage(story, editor)
    versions.append(LiveCoverage.objects.get().version)
    assert versions == sorted(set(versions))


def test_ending_records_when(story, editor):
    ended = desk.end_coverage(story, editor)
    assert ended.state == LiveCoverage.State.ENDED
    assert ended.ended_at is not None


def test_starting_an_upcoming_story_before_its_time_starts_it_now(editor):
    coverage = LiveCoverage.objects.create(article=ArticleFactory())
    started = desk.start_coverage(coverage, editor)
    assert started.state == LiveCoverage.State.LIVE
    assert started.starts_at is not None


def test_a_writer_cannot_end_coverage(story, writer):
    with pytest.raises(PermissionDenied):
        desk.end_coverage(story, writer)


def test_an_entry_over_the_limit_is_refused_with_its_length(story, editor):
    with pytest.raises(ValidationError, match="5,000 characters"):
        desk.post_entry(story, editor, body="x" * 5001)


def test_readers_see_no_entry_of_a_draft_story(editor):
    coverage = LiveCoverage.objects.create(
        article=ArticleFactory(draft=True), state=LiveCoverage.State.LIVE
    )
    desk.post_entry(coverage, editor, body="Not yet public.")
    assert not Entry.objects.published().exists()


def test_editing_an_entry_deleted_meanwhile_says_so(story, editor):
    entry = desk.post_entry(story, editor, body="Soon gone.")
    desk.delete_entry(Entry.objects.get(pk=entry.pk), editor)
    with pytest.raises(ValidationError, match="deleted meanwhile"):
        desk.edit_entry(entry, editor, body="Too late.")
