"""Revisions compared as prose: the changed words of the changed paragraphs, marked."""

import pytest
from django.urls import reverse
from reversion.models import Version

from editorial.prose_diff import prose_diff

from .factories import ArticleFactory
from .test_workflow import change_url, edit_data, editor, make_client  # noqa: F401

LONG = "\n\n".join(f"Paragraph {n} about the release, with many words in it." for n in range(30))


def test_a_one_letter_fix_shows_as_that_word_among_unchanged_paragraphs():
    html = prose_diff(LONG, LONG.replace("Paragraph 17 about", "Paragraph 17 abut"))
    assert "<del>about</del><ins>abut</ins>" in html
    assert "17 unchanged paragraphs" in html and "12 unchanged paragraphs" in html
    assert html.count("prose-diff__changed") == 1


def test_added_and_removed_paragraphs_are_whole():
    html = prose_diff("One.\n\nTwo.", "One.\n\nThree is new.\n\nFour too.")
    assert "<del>Two.</del>" in html
    assert "<ins>Three is new.</ins>" in html and "<ins>Four too.</ins>" in html


def test_markup_in_the_text_is_shown_not_run():
    html = prose_diff("Say <b>hi</b>.", "Say <script>x</script>.")
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.django_db
def test_the_compare_page_marks_words_in_the_body(editor):  # noqa: F811
    article = ArticleFactory(title="Original", draft=True, body=LONG)
    editor.post(change_url(article), edit_data(article, body=LONG + "\n\nThe end."))
    article.refresh_from_db()
    editor.post(
        change_url(article),
        edit_data(article, body=(LONG + "\n\nThe end.").replace("Paragraph 3 ", "Paragraph III ")),
    )
    newer, older = list(Version.objects.get_for_object(article))[:2]
    page = editor.get(
        reverse("admin:news_article_compare", args=[article.pk]),
        {"version_id1": older.pk, "version_id2": newer.pk},
    ).content.decode()
    assert "<del>3</del><ins>III</ins>" in page
    assert "editorial/prose-diff" in page
