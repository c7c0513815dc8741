"""A reader's view counted as Chromium sends it (issue 32): one beacon per view, no
cookie and nothing stored in the browser, counted once when folded; "Most read" follows
the readers, and editors see them on the dashboard and the article's panel."""

import json
from datetime import datetime, timedelta

import pytest
import time_machine
from django.db.models import Sum
from django.utils import timezone
from playwright.sync_api import expect

from news.models import Article
from readership import most_read, visitors
from readership.folding import fold
from readership.models import ArticleHour, DailySalt
from readership.visitors import forget_past_days

from .checks import axe_violations
from .test_editing import log_in

pytestmark = pytest.mark.django_db(transaction=True)

# Headless Chromium says "HeadlessChrome", which is not counted (a bot's browser): the
# reader here is Chromium as a person runs it.
READER_AGENT = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/141.0.0.0 Safari/537.36"
)


@pytest.fixture(autouse=True)
def fresh_salts():
    # This process's copy of the day's salt must not outlive the test's database.
    visitors._salts.clear()
    yield
    visitors._salts.clear()


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


def totals(article):
    return ArticleHour.objects.filter(article=article).aggregate(
        views=Sum("views"), visitors=Sum("visitors")
    )


def view(page, url):
    """Open ``url`` as a reader and wait for its beacon's answer."""
    with page.expect_response(lambda r: "/readership/beacon/" in r.url) as answer:
        page.goto(url)
    assert answer.value.status == 204


def test_most_read_follows_the_readers_and_editors_see_them(
    browser, new_page, site, settings, axe_source
):
    settings.READERSHIP_MOST_READ_MIN_READERS = 1
    settings.READERSHIP_MOST_READ_MIN_ARTICLES = 2
    first, second, third = Article.objects.published().order_by("pk")[:3]
    draft = Article.objects.exclude(pk__in=Article.objects.published()).first()
    readers = []

    def reader():
        """A reader of their own: another browser (its user agent), another visitor."""
        context = browser.new_context(user_agent=f"{READER_AGENT} reader{len(readers)}")
        readers.append(context)
        return context.new_page()

    # Readers, not views: the first is read most often, by one reader.
    for article, count in [(second, 3), (third, 2), (first, 1)]:
        for _ in range(count):
            view(reader(), site + article.get_absolute_url())
    for _ in range(3):
        view(readers[-1].pages[0], site + first.get_absolute_url())
    fold()
    most_read.refresh()

    page = readers[0].pages[0]
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(site + "/")
    ranked = page.locator(".front-most-read .most-read__list li")
    expect(ranked).to_have_text([second.title, third.title, first.title])
    assert axe_violations(page, axe_source) == []
    # A view too, by the first's reader: waited for, or on a busy machine its beacon's
    # answer would be taken for the next view's and that one's counted after the fold.
    view(readers[-1].pages[0], site + second.get_absolute_url())
    expect(readers[-1].pages[0].locator(".article-aside .most-read__list li")).to_have_text(
        [third.title, first.title]
    )

    # More readers change the ranking at the next refresh: 5 for the first, 4 for the
    # second.
    for _ in range(4):
        view(reader(), site + first.get_absolute_url())
    fold()
    most_read.refresh()
    page.goto(site + "/")
    expect(ranked).to_have_text([first.title, second.title, third.title])
    if draft is not None:
        assert draft.title not in page.locator(".front-most-read").inner_text()
    for context in readers:
        context.close()

    editor = log_in(new_page, site, "editor")
    editor.goto(f"{site}/admin/")
    today = editor.locator(".readership-period").first
    # One view an hour per reader and story: the first's reader's four views are one.
    expect(today.locator(".readership-totals")).to_have_text("11 views · 11 readers")
    expect(today.locator(".readership-top li").first).to_contain_text(first.title)
    assert axe_violations(editor, axe_source) == []
    editor.goto(f"{site}/admin/news/article/{first.pk}/change/")
    panel = editor.locator("#readers")
    expect(panel.locator(".readership-totals")).to_contain_text("5 views")
    expect(panel.locator("svg rect").last).to_have_attribute("height", "100.0")
    panel.locator("summary").click()
    expect(panel.locator("tbody tr").first.locator("td").first).to_have_text("5")


def test_one_browser_is_one_reader_a_day_and_a_new_one_the_next(reader_page, site, browser):
    article = Article.objects.published().first()
    url = site + article.get_absolute_url()
    noon = timezone.make_aware(datetime.combine(timezone.localdate(), datetime.min.time()))
    noon += timedelta(hours=12)
    with time_machine.travel(noon, tick=True):
        view(reader_page, url)
        view(reader_page, url)
        fold()
        assert totals(article) == {"views": 1, "visitors": 1}  # a view an hour
        salt = bytes(DailySalt.objects.get().value)
    with time_machine.travel(noon + timedelta(days=1), tick=True):
        forget_past_days()  # the hourly task, once the day has ended
        assert not DailySalt.objects.filter(value=salt).exists()
        view(reader_page, url)
        fold()
        assert totals(article) == {"views": 2, "visitors": 2}

    # A crawler running scripts sends its beacon like a browser: it is not counted.
    crawler = browser.new_context(user_agent=f"{READER_AGENT} (compatible; Googlebot/2.1)")
    view(crawler.new_page(), url)
    crawler.close()
    # Nor is a beacon no page of the site sent (no Sec-Fetch-* headers): a script's.
    body = json.dumps({"p": article.get_absolute_url(), "r": "", "w": "l"})
    answer = reader_page.request.post(
        site + "/readership/beacon/", data=body, headers={"User-Agent": READER_AGENT}
    )
    assert answer.status == 204
    fold()
    assert totals(article) == {"views": 2, "visitors": 2}
