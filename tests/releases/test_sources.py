"""Release sources in the admin: what an editor types is checked before it is read, a
source changed is read afresh, and its health says what went wrong."""

from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from releases.models import ReleaseSource, Tip, WatchedProject
from releases.polling import Pace, read_due

from . import formats
from .conftest import NOW
from .release_server import Route

pytestmark = pytest.mark.django_db
JULY_24 = datetime(2024, 7, 24, 16, 39, 14, tzinfo=UTC)


def add_project(editor, kind, identifier):
    return editor.post(
        reverse("admin:releases_watchedproject_add"),
        {
            "name": "Thing",
            "slug": "thing",
            "sources-TOTAL_FORMS": "1",
            "sources-INITIAL_FORMS": "0",
            "sources-0-kind": kind,
            "sources-0-identifier": identifier,
            "sources-0-include": "stable",
        },
    )


@pytest.mark.parametrize(
    ("kind", "identifier", "message"),
    [
        ("github", "pytorch", "Give the repository as owner/name (pytorch/pytorch)"),
        ("pypi", "torch vision", "Give the package&#x27;s name on PyPI (torch)"),
        ("feed", "example.org/feed", "A feed is given by its address (https://...)."),
        ("feed", "https://exa mple.org/feed", "This address is not a valid URL."),
    ],
)
def test_an_identifier_the_service_would_not_know_is_refused_with_a_reason(
    editor, kind, identifier, message
):
    response = add_project(editor, kind, identifier)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not WatchedProject.objects.exists()


@pytest.mark.parametrize(
    ("kind", "identifier"),
    [("npm", "@types/node"), ("crates", "serde_json"), ("github", "astral-sh/ruff")],
)
def test_names_as_the_services_write_them_are_accepted(editor, kind, identifier):
    assert add_project(editor, kind, identifier).status_code == 302


def test_a_source_that_now_takes_everything_is_read_afresh(remote, watch):
    releases = [("2.5.0rc1", JULY_24 + timedelta(days=1)), ("2.4.0", JULY_24)]
    path = "/rss/project/torch/releases.xml"
    route = Route(formats.pypi_rss("torch", releases), "text/xml")
    source = watch("pypi", remote.serve(path, route))
    read_due(now=NOW, pace=Pace(per_host=0))
    assert list(Tip.objects.values_list("version", flat=True)) == ["2.4.0"]
    source = ReleaseSource.objects.get()
    source.include = ReleaseSource.Include.ALL
    source.save()
    read_due(now=NOW + timedelta(minutes=5), pace=Pace(per_host=0))
    assert "If-None-Match" not in remote.requests_for(path)[-1]
    assert sorted(Tip.objects.values_list("version", flat=True)) == ["2.4.0", "2.5.0rc1"]


def test_the_sources_list_shows_a_failing_source_first_with_its_error(editor, remote, watch):
    watch("pypi", remote.serve("/fine.xml", Route(formats.pypi_rss("torch", []), "text/xml")))
    watch("npm", remote.serve("/broken", Route(status=500)))
    read_due(now=NOW, pace=Pace(per_host=0))
    html = editor.get(reverse("admin:releases_releasesource_changelist")).content.decode()
    assert "Failing (1 in a row)" in html
    assert "/broken answered 500" in html
    assert html.index("/broken answered 500") < html.index("OK, read")


def test_the_sources_list_filters_the_failing_ones(editor, remote, watch):
    watch("pypi", remote.serve("/fine.xml", Route(formats.pypi_rss("torch", []), "text/xml")))
    watch("npm", remote.serve("/broken", Route(status=500)))
    read_due(now=NOW, pace=Pace(per_host=0))
    url = reverse("admin:releases_releasesource_changelist") + "?health=failing"
    html = editor.get(url).content.decode()
    assert "/broken answered 500" in html and "/fine.xml" not in html
