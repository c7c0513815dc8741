"""A live story's coverage and entries as plain text: exported and imported back
unchanged (live/textformat.py, export_live, import_live)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from live import desk
from live.models import Entry, LiveCoverage
from live.textformat import LiveFileError, export_coverage, import_coverage, parse_coverage

pytestmark = pytest.mark.django_db

AWKWARD = 'Line one\r\n  "quoted" & <b>bold</b>\n\nTrailing space \u2028 and emoji 🎉 '


def stored(coverage):
    """Everything readers and the desk see of the coverage and its entries."""
    coverage = LiveCoverage.objects.get(pk=coverage.pk)
    fields = ["state", "starts_at", "ended_at", "summary", "summary_html",
              "approval_required", "version", "summary_version"]  # fmt: skip
    entries = [
        (
            entry.pk,
            entry.posted_at,
            entry.headline,
            entry.body,
            entry.body_html,
            entry.key_event,
            entry.status,
            entry.edited_at,
            entry.version,
            [author.slug for author in entry.authors.all()],
        )
        for entry in Entry.objects.filter(coverage=coverage).order_by("pk")
    ]
    return {name: getattr(coverage, name) for name in fields}, entries


@pytest.fixture
def full_story(story, writer, editor):
    story.summary = AWKWARD
    story.approval_required = True
    desk.save_settings(story, editor)
    desk.post_entry(story, editor, headline=AWKWARD.strip(), body=AWKWARD, key_event=True)
    edited = desk.post_entry(story, editor, body="Version 17.")
    desk.edit_entry(edited, editor, body="Version 18.")
    desk.post_entry(story, writer, body="Awaiting an editor.")
    desk.end_coverage(story, editor)
    return LiveCoverage.objects.get(pk=story.pk)


def test_export_then_import_gives_the_coverage_back_unchanged(full_story):
    before = stored(full_story)
    text = export_coverage(full_story)
    LiveCoverage.objects.all().delete()
    import_coverage(parse_coverage(text, "story.txt"), "story.txt")
    assert stored(full_story) == before
    assert export_coverage(LiveCoverage.objects.get()) == text


def test_the_commands_round_trip(full_story, tmp_path):
    before = stored(full_story)
    out = StringIO()
    call_command("export_live", full_story.article.slug, stdout=out)
    path = tmp_path / "live.txt"
    path.write_text(out.getvalue(), encoding="utf-8")
    LiveCoverage.objects.all().delete()
    call_command("import_live", str(path), stdout=StringIO())
    assert stored(full_story) == before


def test_a_bad_file_names_its_line_and_changes_nothing(full_story, tmp_path):
    text = export_coverage(full_story).replace("State: ended", "State: paused")
    path = tmp_path / "live.txt"
    path.write_text(text, encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError, match="Nothing was imported"):
        call_command("import_live", str(path), stdout=StringIO(), stderr=err)
    assert f"{path}:2: the state is one of upcoming, live, ended." in err.getvalue()
    assert LiveCoverage.objects.get().state == LiveCoverage.State.ENDED


def test_an_unknown_author_is_refused(full_story):
    text = export_coverage(full_story).replace("Authors: wanda-writer", "Authors: nobody")
    with pytest.raises(LiveFileError, match="no author nobody"):
        import_coverage(parse_coverage(text, "f"), "f")
