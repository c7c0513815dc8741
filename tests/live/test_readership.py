"""Readership counts a live story, not its fragments (issue 45): the story's page is one
view of the article; its pages of entries, its updates and its feeds load no beacon and
count nothing, however often an open page asks (tests/browser/test_live.py has the same
in Chromium)."""

import pytest
from django.urls import reverse

from readership.models import Beacon
from tests.test_readership import figures, fresh_process, send  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

BEACON = 'data-beacon="/readership/beacon/"'


def test_reading_the_live_story_counts_one_view_of_the_article(client, story):
    article = story.article
    page = client.get(article.get_absolute_url()).content.decode()
    assert page.count(BEACON) == 1
    assert 'class="live' in page  # the coverage is on the page the beacon counts
    send(client, article.get_absolute_url())
    assert figures(article) == (1, 1)


@pytest.mark.parametrize("order", ["", "?order=oldest", "?page=1"])
def test_the_storys_pages_of_entries_load_no_beacon(client, story, order):
    response = client.get(reverse("live:entries", args=[story.pk]) + order)
    assert response.status_code == 200
    assert BEACON not in response.content.decode()


@pytest.mark.parametrize("name", ["entries", "updates", "feed", "json-feed"])
def test_a_beacon_for_a_fragment_of_the_story_counts_nothing(client, story, name):
    path = reverse(f"live:{name}", args=[story.pk])
    assert client.get(path).status_code == 200
    send(client, path)
    assert not Beacon.objects.exists()
    assert figures(story.article) == (0, 0)
