"""Live coverage through the page cache: a story's page and its updates are served
whole until an entry changes them, and an entry purges nothing else."""

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from live import desk
from live.models import LiveCoverage
from people.models import Author
from tests.factories import ArticleFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


@pytest.fixture
def live(committed, later, django_user_model):
    editor = django_user_model.objects.create_user("ed", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    with committed():
        ArticleFactory(title="Other story")
        coverage = LiveCoverage.objects.create(
            article=ArticleFactory(title="The keynote"),
            state=LiveCoverage.State.LIVE,
            starts_at=timezone.now(),
        )
        desk.post_entry(coverage, editor, body="Doors open.")
    later()
    return coverage, editor


def post(committed, later, coverage, editor, body):
    with committed():
        entry = desk.post_entry(coverage, editor, body=body)
    later()
    return entry


def updates_url(coverage, since):
    return f"/live/{coverage.pk}/updates/?since={since}"


def test_the_story_page_names_its_coverage_for_caches_in_front(reader, live):
    coverage, _ = live
    response = reader.get(coverage.article.get_absolute_url())
    assert f"live:{coverage.pk}" in response["xkey"].split()


def test_the_updates_are_served_from_the_cache_until_an_entry_is_posted(
    reader, live, committed, later
):
    coverage, editor = live
    version = LiveCoverage.objects.get().version
    url = updates_url(coverage, version)
    reader.get(url)
    assert reader.cached(url)
    assert f"live:{coverage.pk}" in reader.get(url)["xkey"].split()
    post(committed, later, coverage, editor, "The CEO walks on.")
    answer = reader.get(url).json()
    assert answer["version"] > version
    assert "The CEO walks on." in answer["entries"][0]["html"]


def test_a_posted_entry_shows_on_the_cached_story_page(reader, live, committed, later):
    coverage, editor = live
    url = coverage.article.get_absolute_url()
    reader.get(url)
    assert reader.cached(url)
    post(committed, later, coverage, editor, "The CEO walks on.")
    assert "The CEO walks on." in reader.get(url).content.decode()


def test_a_posted_entry_leaves_the_lists_cached(reader, live, committed, later):
    coverage, editor = live
    reader.get("/")
    reader.get("/feed/")
    post(committed, later, coverage, editor, "The CEO walks on.")
    assert reader.cached("/")
    assert reader.cached("/feed/")


def test_renaming_an_entrys_author_refreshes_the_story_page(reader, live, committed, later):
    coverage, editor = live
    author = Author.objects.create(name="Ada Entry", slug="ada-entry")
    with committed():
        desk.post_entry(coverage, editor, body="Signed.", authors=[author])
    later()
    url = coverage.article.get_absolute_url()
    reader.get(url)
    assert reader.cached(url)
    with committed():
        author.name = "Ada Renamed"
        author.save()
    later()
    assert "By Ada Renamed" in reader.get(url).content.decode()
