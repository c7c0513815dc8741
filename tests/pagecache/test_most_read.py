"""'Most read' is kept with the pages that show it and purged by key when the periodic
ranking changes (issue 32), never by a timer."""

from datetime import timedelta

import pytest
from django.utils import timezone

from readership import most_read
from readership.models import ArticleHour
from tests.factories import ArticleFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]


def test_a_new_ranking_purges_the_pages_showing_the_list_and_no_other(reader, committed, later):
    with committed():
        stories = [ArticleFactory(title=f"Story {n}") for n in range(1, 5)]
    later()
    home, article = "/", stories[3].get_absolute_url()
    reader.get(home)
    reader.get(article)
    reader.get("/tags/")
    assert reader.cached(home) and reader.cached(article)
    hour = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    for story, views in zip(stories[:3], [20, 60, 40], strict=True):
        ArticleHour.objects.create(article=story, hour=hour, views=views, visitors=views)
    with committed():
        assert most_read.refresh()
    later()
    assert reader.cached("/tags/")
    assert not reader.cached(home)
    page = reader.get(home).content.decode()
    assert page.index("Story 2</a></li>") < page.index("Story 3</a></li>")
    assert "Most read" in reader.get(article).content.decode()
    # An unchanged ranking leaves the kept pages alone.
    with committed():
        assert not most_read.refresh()
    later()
    assert reader.cached(home)
