"""Search finds a live story by the text of its entries, once a worker has indexed
them; never by an entry readers cannot see."""

from io import StringIO

import pytest
from django.core.management import call_command

from live import desk
from search.query import search as run_search
from tests.background_tasks import run_queued

pytestmark = pytest.mark.django_db


def found(words):
    return [article.title for article in run_search(words)[:50]]


def test_search_finds_a_story_by_its_entries_text(story, editor):
    desk.post_entry(story, editor, headline="Quokka", body="The mascot is a zanzibarian llama.")
    run_queued()
    assert found("zanzibarian") == [story.article.title]
    assert found("quokka") == [story.article.title]


def test_a_deleted_entry_is_no_longer_found(story, editor):
    entry = desk.post_entry(story, editor, body="A zanzibarian rumour.")
    run_queued()
    desk.delete_entry(entry, editor)
    run_queued()
    assert found("zanzibarian") == []


def test_an_awaiting_entry_is_not_found(story, writer, editor):
    story.approval_required = True
    story.save()
    desk.post_entry(story, writer, body="A zanzibarian draft.")
    run_queued()
    assert found("zanzibarian") == []


def test_an_imported_story_is_found_by_its_entries():
    call_command("load_demo", stdout=StringIO())
    # "among" is in an entry of the demo's live story, in none of the articles.
    assert found("among") == [
        "Python 3.13 Released: A New Interactive Shell and Experimental Free Threading"
    ]
