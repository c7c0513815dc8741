"""The page cache and the fediverse's content negotiation: one address, two documents,
never mixed; and actors' outboxes kept and purged like the other pages."""

import pytest

from fediverse.models import LocalActor
from tests.factories import ArticleFactory

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]
ACTIVITY = "application/activity+json"


def test_a_kept_page_is_never_served_for_activitystreams_nor_the_reverse(reader, committed):
    with committed():
        article = ArticleFactory()
    url = article.get_absolute_url()
    reader.later()
    reader.get(url)
    assert reader.cached(url)
    first = reader.get(url, headers={"accept": ACTIVITY})
    assert first["Content-Type"].startswith(ACTIVITY)
    assert first.json()["type"] == "Article"
    assert reader.cached(url)  # the page kept is still the page
    assert reader.get(url)["Content-Type"].startswith("text/html")


def test_an_outbox_is_kept_and_a_new_article_purges_it(reader, committed):
    with committed():
        ArticleFactory(title="First story")
    reader.later()
    outbox = "/ap/site/outbox?page=1"
    reader.get(outbox)
    assert reader.cached(outbox)
    assert LocalActor.objects.count() == 1
    with committed():
        ArticleFactory(title="Second story")
    reader.later()
    items = reader.get(outbox).json()["orderedItems"]
    assert len(items) == 2
