"""A watched project's public page: the releases Skillo covered, with their dates and
links; published stories only, and only for a project whose page is open."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from releases.models import Tip, WatchedProject

from ..factories import ArticleFactory

pytestmark = pytest.mark.django_db
JULY_24 = datetime(2024, 7, 24, 23, 30, tzinfo=UTC)


@pytest.fixture
def torch(db):
    return WatchedProject.objects.create(name="PyTorch", slug="pytorch", public_page=True)


def covered(project, version, released, article):
    return Tip.objects.create(
        project=project,
        version=version,
        version_key=version,
        released_at=released,
        release_url=f"https://github.com/pytorch/pytorch/releases/tag/v{version}",
        article=article,
        state=Tip.State.WRITTEN,
    )


def test_the_page_lists_the_covered_releases_newest_first_with_dates_and_links(client, torch):
    old = ArticleFactory(title="PyTorch 2.3 released")
    new = ArticleFactory(title="PyTorch 2.4 released")
    covered(torch, "2.3.0", JULY_24 - timedelta(days=90), old)
    covered(torch, "2.4.0", JULY_24, new)
    response = client.get("/releases/pytorch/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>PyTorch releases</h1>" in html
    assert html.index("2.4.0") < html.index("2.3.0")
    # The release's day in UTC, as the tip holds it.
    assert '<time datetime="2024-07-24">24 July 2024</time>' in html
    assert f'<a href="{new.get_absolute_url()}">PyTorch 2.4 released</a>' in html
    assert not response.cookies


def test_drafts_never_show(client, torch):
    covered(torch, "2.4.0", JULY_24, ArticleFactory(title="PyTorch 2.4 released", draft=True))
    html = client.get("/releases/pytorch/").content.decode()
    assert "PyTorch 2.4 released" not in html
    assert "No release of PyTorch covered yet." in html


def test_a_project_without_a_public_page_is_not_found(client, torch):
    WatchedProject.objects.filter(pk=torch.pk).update(public_page=False)
    assert client.get("/releases/pytorch/").status_code == 404


def test_the_page_costs_the_same_queries_for_one_release_and_for_twenty(client, torch):
    covered(torch, "1.0", JULY_24, ArticleFactory())
    client.get("/releases/pytorch/")
    with CaptureQueriesContext(connection) as one:
        client.get("/releases/pytorch/")
    for n in range(1, 20):
        covered(torch, f"1.{n}", JULY_24 - timedelta(days=n), ArticleFactory())
    with CaptureQueriesContext(connection) as twenty:
        client.get("/releases/pytorch/")
    assert len(twenty) == len(one)


def test_the_index_lists_the_public_projects_with_what_was_covered(client, torch):
    covered(torch, "2.4.0", JULY_24, ArticleFactory(title="PyTorch 2.4 released"))
    covered(torch, "2.5.0", JULY_24 + timedelta(days=60), ArticleFactory(draft=True))
    WatchedProject.objects.create(name="Hidden", slug="hidden")
    WatchedProject.objects.create(name="NumPy", slug="numpy", public_page=True)
    html = client.get("/releases/").content.decode()
    assert (
        '<a href="/releases/pytorch/">PyTorch</a>: 1 release covered, the latest of '
        '<time datetime="2024-07-24">24 July 2024</time>'
    ) in html
    assert '<a href="/releases/numpy/">NumPy</a>: none covered yet' in html
    assert "Hidden" not in html


def test_every_page_links_the_index_of_releases(client):
    assert '<a href="/releases/">Releases</a>' in client.get("/").content.decode()


def test_a_topic_and_its_stories_link_the_projects_release_page(
    client, torch, django_capture_on_commit_callbacks
):
    story = ArticleFactory(title="PyTorch 2.4 released", tags=["pytorch"])
    with django_capture_on_commit_callbacks(execute=True):
        torch.topics.add(story.tags.get())
    link = '<a href="/releases/pytorch/">PyTorch</a>'
    assert link in client.get("/tags/pytorch/").content.decode()
    assert link in client.get(story.get_absolute_url()).content.decode()


def test_closing_a_projects_page_removes_its_links_at_once(
    client, torch, django_capture_on_commit_callbacks
):
    story = ArticleFactory(title="PyTorch 2.4 released", tags=["pytorch"])
    with django_capture_on_commit_callbacks(execute=True):
        torch.topics.add(story.tags.get())
    assert "/releases/pytorch/" in client.get("/tags/pytorch/").content.decode()
    assert "/releases/pytorch/" in client.get(story.get_absolute_url()).content.decode()
    assert "PyTorch" in client.get("/releases/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        torch.public_page = False
        torch.save()
    assert "/releases/pytorch/" not in client.get("/tags/pytorch/").content.decode()
    # Not in the story's own kept parts either, which the project's change does not touch.
    assert "/releases/pytorch/" not in client.get(story.get_absolute_url()).content.decode()
    assert "PyTorch" not in client.get("/releases/").content.decode()
