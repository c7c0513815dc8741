"""Corrections and updates in the plain-text format: "Correction: TIME | NOTE" and
"Update: TIME | NOTE" header lines (with ", id N" after the time in the full form),
written only for an article that has some, restored by an import with their kind, note
and time, and never edited or removed by one."""

from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from reversion.models import Version

from news.models import Article, Correction
from textfiles.importer import import_articles
from textfiles.textformat import FormatError, parse

from .factories import ArticleFactory, CorrectionFactory

pytestmark = pytest.mark.django_db

FIXED = datetime(2026, 11, 30, 14, 5, tzinfo=UTC)
LATER = datetime(2026, 12, 1, 9, 0, 30, 250000, tzinfo=UTC)
FOOTER = (
    "Published date reflects the original event date (2024-07-24). This article is original "
    "Skillo editorial written from the sources above; facts were verified in September 2026."
)


def export(article, *options):
    out = StringIO()
    call_command("export_articles", article.slug, *options, stdout=out)
    return out.getvalue()


def with_corrections():
    article = ArticleFactory(title="A title")
    CorrectionFactory(article=article, published_at=FIXED, note="It said 3.8; it was 3.7.")
    CorrectionFactory(article=article, kind="update", published_at=LATER, note="Now out.")
    return Article.objects.get(pk=article.pk)


def file_with(tmp_path, header):
    path = tmp_path / "a.txt"
    path.write_text(f"A title\n\nFormat: plain text\n{header}\n\nSome news.\n\n{FOOTER}\n")
    return path


def notes(article):
    return list(article.corrections.values_list("kind", "published_at", "note"))


def test_an_export_lists_corrections_and_updates_oldest_first_in_the_header():
    text = export(with_corrections())
    assert text.startswith(
        "A title\n\nFormat: plain text\nSummary: A release shipped.\n"
        "Correction: 2026-11-30 14:05:00+00:00 | It said 3.8; it was 3.7.\n"
        "Update: 2026-12-01 09:00:30.250000+00:00 | Now out.\n\n"
    )


def test_the_full_form_gives_each_note_its_id():
    article = with_corrections()
    first, second = article.corrections.all()
    text = export(article, "--full")
    assert f"\nCorrection: 2026-11-30 14:05:00+00:00, id {first.pk} | It said" in text
    assert f"\nUpdate: 2026-12-01 09:00:30.250000+00:00, id {second.pk} | Now out.\n" in text


def test_an_article_without_notes_has_no_such_line():
    assert "Correction" not in export(ArticleFactory(title="Quiet"), "--full")


@pytest.mark.parametrize(
    "note",
    [
        "Two\nlines.",
        "  Spaces at either end ",
        '"Quoted" at the start.',
        "A | bar, and a, comma, id 3 | more.",
        "ünïcode \U0001f680",
    ],
)
def test_any_note_reads_back_exactly(note):
    article = ArticleFactory(title="A title")
    CorrectionFactory(article=article, published_at=FIXED, note=note)
    (correction,) = parse(export(article)).corrections
    assert (correction.kind, correction.published_at, correction.note) == (
        "correction",
        FIXED,
        note,
    )


def test_reimporting_an_export_changes_nothing(tmp_path):
    article = with_corrections()
    path = tmp_path / "a.txt"
    path.write_text(export(article, "--full"))
    assert import_articles([path]).unchanged == [article]
    assert not Version.objects.get_for_object(article).exists()
    assert len(notes(article)) == 2


def test_an_import_restores_kind_note_and_time_without_a_revision_link(tmp_path):
    article = with_corrections()
    before = notes(article)
    path = tmp_path / "a.txt"
    path.write_text(export(article))
    article.delete()
    (restored,) = import_articles([path]).created
    assert notes(restored) == before
    assert not restored.corrections.filter(revision__isnull=False).exists()
    page = Client().get(restored.get_absolute_url()).content.decode()
    assert "It said 3.8; it was 3.7." in page and "Now out." in page


def test_a_restore_keeps_each_notes_id(tmp_path):
    article = with_corrections()
    ids = list(article.corrections.values_list("pk", flat=True))
    path = tmp_path / "a.txt"
    path.write_text(export(article, "--full"))
    article.delete()
    (restored,) = import_articles([path], keep_ids=True).created
    assert list(restored.corrections.values_list("pk", flat=True)) == ids
    # New notes get ids of their own (PostgreSQL's sequence moved on).
    assert CorrectionFactory(article=restored).pk > max(ids)


def test_the_imports_revision_records_the_notes_it_added(tmp_path):
    article = ArticleFactory(title="A title")
    path = file_with(tmp_path, "Correction: 2026-11-30 14:05:00+00:00 | Fixed.")
    import_articles([path])
    correction = article.corrections.get()
    (version,) = Version.objects.get_for_object(correction)
    assert version.revision.comment == f"Imported from {path}"


def test_a_file_adds_notes_and_keeps_the_ones_it_leaves_out(tmp_path):
    article = with_corrections()
    path = file_with(tmp_path, "Update: 2026-12-02 10:00:00+01:00 | Another update.")
    import_articles([path])
    assert [note for _, _, note in notes(article)] == [
        "It said 3.8; it was 3.7.",
        "Now out.",
        "Another update.",
    ]


def test_a_file_without_such_lines_leaves_the_notes_as_stored(tmp_path):
    article = with_corrections()
    before = notes(article)
    import_articles([file_with(tmp_path, "Slug: a-title")])
    assert notes(article) == before


def test_an_import_never_changes_the_words_of_a_published_note(tmp_path):
    article = with_corrections()
    before = notes(article)
    path = file_with(tmp_path, "Correction: 2026-11-30 14:05:00+00:00 | Softer words.")
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_articles", str(path), stdout=StringIO(), stderr=err)
    assert f"{path}:4: the article has a note published at this time with other words" in (
        err.getvalue()
    )
    assert notes(article) == before


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Correction: Fixed the name.", "a.txt:4: 'Correction:' must read 'Correction: TIME |"),
        ("Update: 2026-11-30 | Out now.", "a.txt:4: 'Update:' must be a date and time with"),
        ('Update: 2026-11-30 14:05:00+00:00 | "broken', "a.txt:4: 'Update:' holds a broken JSON"),
        ("Correction: 2026-11-30 14:05:00+00:00 |", "a.txt:4: correction note: This field"),
        (
            'Correction: 2026-11-30 14:05:00+00:00 | "a\\u001bb"',
            "a.txt:4: correction note: Remove the invisible control character U+001B",
        ),
        (
            "Correction: 2026-11-30 14:05:00+00:00 | Same.\n"
            "Correction: 2026-11-30 14:05:00+00:00 | Same.",
            "a.txt:5: this correction is also at line 4.",
        ),
    ],
)
def test_a_bad_note_line_names_file_and_line_and_saves_nothing(tmp_path, line, expected):
    path = file_with(tmp_path, line)
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_articles", str(path), stdout=StringIO(), stderr=err)
    assert expected in err.getvalue()
    assert not Article.objects.exists() and not Correction.objects.exists()


def test_a_note_id_of_zero_is_refused():
    text = (
        "A title\n\nFormat: plain text\nUpdate: 2026-11-30 14:05:00+00:00, id 0 | x\n\n"
        f"Some news.\n\n{FOOTER}\n"
    )
    with pytest.raises(FormatError, match="line 4: 'Update:' must give a positive whole"):
        parse(text)
