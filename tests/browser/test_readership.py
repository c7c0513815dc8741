"""A reader's view counted as Chromium sends it (issue 32): one beacon per view, no
cookie and nothing stored in the browser, counted once when folded."""

import pytest
from django.db.models import Sum

from news.models import Article
from readership.folding import fold
from readership.models import ArticleHour

pytestmark = pytest.mark.django_db(transaction=True)

# Headless Chromium says "HeadlessChrome", which is not counted (a bot's browser): the
# reader here is Chromium as a person runs it.
READER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/141.0.0.0 Safari/537.36"
)


@pytest.fixture
def reader_page(browser):
    context = browser.new_context(user_agent=READER_AGENT)
    yield context.new_page()
    context.close()


def test_a_view_sends_one_beacon_stores_nothing_and_counts_once(reader_page, site):
    article = Article.objects.published().first()
    beacons = []
    reader_page.on(
        "request", lambda r: beacons.append(r) if "/readership/beacon/" in r.url else None
    )
    with reader_page.expect_response(lambda r: "/readership/beacon/" in r.url) as answer:
        page_response = reader_page.goto(site + article.get_absolute_url())
    assert answer.value.status == 204
    reader_page.wait_for_load_state("networkidle")
    assert len(beacons) == 1
    assert beacons[0].method == "POST"
    # No cookie set, by the page or the beacon, and nothing written to the browser.
    assert "set-cookie" not in page_response.headers
    assert "set-cookie" not in answer.value.headers
    assert reader_page.context.cookies() == []
    stored = reader_page.evaluate(
        "async () => localStorage.length + sessionStorage.length"
        " + (await indexedDB.databases()).length"
    )
    assert stored == 0
    fold()
    totals = ArticleHour.objects.filter(article=article).aggregate(
        views=Sum("views"), visitors=Sum("visitors")
    )
    assert totals == {"views": 1, "visitors": 1}
