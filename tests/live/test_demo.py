"""The demo content has one ended live story, so `make run` shows one."""

from io import StringIO

import pytest
from django.core.management import call_command

from live.models import Entry, LiveCoverage

pytestmark = pytest.mark.django_db


def test_the_demo_has_an_ended_live_story(client):
    call_command("load_demo", stdout=StringIO())
    coverage = LiveCoverage.objects.select_related("article").get()
    assert coverage.state == LiveCoverage.State.ENDED
    assert coverage.article.is_published()
    assert Entry.objects.published().filter(coverage=coverage).count() == 7
    page = client.get(coverage.article.get_absolute_url()).content.decode()
    assert "Ended at <time" in page
    assert "What we know" in page
    assert "Free threading, as an experiment" in page
    assert "By Skillo demo writer" in page
