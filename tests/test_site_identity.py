"""The site's address and its feeds' id authority cannot change once it has published:
feed readers would show every article again, fediverse followers would follow nothing.
`migrate` records them while nothing is public; a system check refuses a change after."""

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from news import identity
from news.models import SiteIdentity

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db

SITE = "https://news.example.org"


@pytest.fixture
def recorded(settings):
    """The site as it first published: its address and feed authority recorded."""
    settings.SKILLO_SITE_URL, settings.SKILLO_FEED_ID_AUTHORITY = SITE, "news.example.org"
    SiteIdentity.objects.all().delete()
    identity.record()
    return settings


def errors():
    return {error.id: error.msg for error in identity.unchanged()}


def test_moving_the_site_after_its_first_publication_is_refused(recorded):
    ArticleFactory()
    recorded.SKILLO_SITE_URL = "https://skillo.example.com"
    found = errors()
    assert set(found) == {"skillo.E002"}
    assert (
        "SITE_URL is 'https://skillo.example.com', but the site published as "
        in found["skillo.E002"]
    )


def test_changing_the_feed_ids_authority_after_publication_is_refused(recorded):
    ArticleFactory()
    recorded.SKILLO_FEED_ID_AUTHORITY = "skillo.example"
    assert set(errors()) == {"skillo.E003"}


def test_a_site_that_has_published_nothing_may_still_move(recorded):
    ArticleFactory(draft=True)
    ArticleFactory(scheduled=True)
    recorded.SKILLO_SITE_URL = "https://skillo.example.com"
    assert errors() == {}
    identity.record()  # what migrate does
    assert SiteIdentity.objects.get().site_url == "https://skillo.example.com"


def test_migrate_keeps_the_address_the_site_published_with(recorded):
    ArticleFactory()
    recorded.SKILLO_SITE_URL = "https://skillo.example.com"
    identity.record()
    assert SiteIdentity.objects.get().site_url == SITE


def test_the_check_stops_management_commands(recorded):
    ArticleFactory()
    recorded.SKILLO_SITE_URL = "https://skillo.example.com"
    with pytest.raises(SystemCheckError, match=r"skillo\.E002"):
        call_command("check")


def test_accepting_a_deliberate_move_records_the_new_address(recorded, capsys):
    ArticleFactory()
    recorded.SKILLO_SITE_URL = "https://skillo.example.com"
    call_command("site_identity", "--accept")
    assert f"Was: {SITE} (feed ids: news.example.org)" in capsys.readouterr().out
    assert errors() == {}
