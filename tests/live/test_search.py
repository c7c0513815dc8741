"""Search finds a live story by the text of its entries, once a worker has indexed
them; never by an entry readers cannot see."""

import pytest

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
