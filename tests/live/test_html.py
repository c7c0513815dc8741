"""A live story's pages and its desk are valid HTML (the Nu Html Checker, as
tests/test_html_validity.py runs it)."""

import pytest
from django.test import Client

from live import desk
from tests.test_html_validity import nu_errors

from .test_desk import client_of


@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
@pytest.mark.django_db
def test_the_live_pages_and_the_desk_are_valid_html(story, editor, tmp_path):
    story.summary = "- It ships **today**.[^1]\n\n[^1]: A note."
    desk.save_settings(story, editor)
    for n in range(2):
        desk.post_entry(
            story,
            editor,
            headline=f"Entry {n}",
            body=f"Text & <more>.[^1]\n\n## A heading\n\n[^1]: A note {n}.",
            key_event=n == 0,
        )
    reader, staff = Client(), client_of(editor)
    pages = {
        "live story": reader.get(story.article.get_absolute_url()).content,
        "entries oldest first": reader.get(f"/live/{story.pk}/?order=oldest").content,
        "desk": staff.get(f"/admin/live/livecoverage/{story.pk}/desk/").content,
    }
    first = story.entries.earliest()
    pages["deleting an entry"] = staff.get(
        f"/admin/live/livecoverage/entries/{first.pk}/delete/"
    ).content
    desk.end_coverage(story, editor)
    pages["ended story"] = reader.get(story.article.get_absolute_url()).content
    errors = nu_errors(pages, tmp_path)
    assert errors == [], "\n".join(errors)
