"""The demo watches PyTorch and Django from local copies of their feeds: `make run` shows
the Releases column and the projects' pages without the internet."""

from io import StringIO

import pytest
from django.core.management import call_command

from releases.models import ReleaseSource, Tip, WatchedProject

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(media_root):
    call_command("load_demo", stdout=StringIO())


def test_the_demo_puts_the_newest_releases_on_the_desk(demo, admin_client):
    assert sorted(WatchedProject.objects.values_list("name", flat=True)) == ["Django", "PyTorch"]
    waiting = [str(tip) for tip in Tip.objects.on_desk()]
    assert waiting == ["PyTorch 2.5.0", "Django 5.1.1"]
    html = admin_client.get("/admin/").content.decode()
    assert "PyTorch 2.5.0" in html and "Django 5.1.1" in html


def test_the_demo_links_the_releases_its_articles_cover(demo, client):
    written = Tip.objects.filter(state=Tip.State.WRITTEN).select_related("article")
    expected = {
        "PyTorch 2.4.0": "pytorch-2-4-",
        "PyTorch 2.1.0": "pytorch-2-1-",
        "PyTorch 2.0.0": "pytorch-2-0-",
        "Django 5.1": "django-5-1-",
        "Django 5.0": "django-5-0-",
    }
    assert {str(tip) for tip in written} == set(expected)
    for tip in written:
        assert tip.article.slug.startswith(expected[str(tip)])
    html = client.get("/releases/pytorch/").content.decode()
    assert "PyTorch 2.4 Released: Python 3.12 and a Custom Operator API" in html


def test_writing_up_the_demos_new_pytorch_release_relates_its_earlier_stories(demo, admin_client):
    tip = Tip.objects.get(version="2.5.0")
    admin_client.post(f"/admin/releases/tip/{tip.pk}/write-up/")
    tip.refresh_from_db()
    titles = [link.target.title for link in tip.article.related_links.all()]
    assert titles == [
        "PyTorch 2.4 Released: Python 3.12 and a Custom Operator API",
        "PyTorch 2.1 and Automatic Dynamic Shapes",
        "PyTorch 2.0 Introduces torch.compile",
    ]
    assert sorted(tip.article.tags.names()) == ["Machine learning", "PyTorch", "Python", "Release"]


def test_the_demo_sources_are_next_read_half_an_hour_on(demo):
    # make run's worker (and the server tests' workers) do not go out to the internet
    # the moment the demo is loaded.
    assert not ReleaseSource.objects.due().exists()
