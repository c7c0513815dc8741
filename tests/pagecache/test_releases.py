"""A watched project's public page through the page cache: served whole, built again
when the project changes or a story on one of its releases is published."""

from datetime import UTC, datetime

import pytest

from releases.models import Tip, WatchedProject
from tests.factories import ArticleFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]
URL = "/releases/ruff/"


@pytest.fixture
def ruff(committed, later):
    with committed():
        project = WatchedProject.objects.create(name="Ruff", slug="ruff", public_page=True)
    later()
    return project


def test_renaming_the_project_purges_its_cached_page(reader, ruff, committed, later):
    reader.get(URL)
    assert reader.cached(URL)
    with committed():
        ruff.name = "Ruff linter"
        ruff.save()
    later()
    assert "<h1>Ruff linter releases</h1>" in reader.get(URL).content.decode()


def test_publishing_a_story_on_a_release_shows_it_on_the_cached_page(
    reader, ruff, committed, later
):
    with committed():
        story = ArticleFactory(title="Ruff 0.9 released", draft=True)
        Tip.objects.create(
            project=ruff,
            version="0.9.0",
            version_key="0.9",
            released_at=datetime(2024, 7, 24, tzinfo=UTC),
            release_url="https://pypi.org/project/ruff/0.9.0/",
            article=story,
            state=Tip.State.WRITTEN,
        )
    later()
    reader.get(URL)
    assert reader.cached(URL)
    with committed():
        story.status = story.Status.PUBLISHED
        story.save()
    later()
    assert "Ruff 0.9 released" in reader.get(URL).content.decode()
