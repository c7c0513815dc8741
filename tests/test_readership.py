"""Readership figures without tracking (issue 32): what a beacon counts once folded, what
it never counts, and what it never keeps."""

import json
from datetime import datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from readership import visitors
from readership.beacons import buffer
from readership.folding import fold
from readership.models import ArticleHour, Beacon, DailySalt, DayVisitor, SourceHour
from readership.visitors import forget_past_days
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db

BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/141.0.0.0 Safari/537.36",
    "Sec-Fetch-Site": "same-origin",
    "Sec-Fetch-Mode": "no-cors",
    "Sec-Fetch-Dest": "empty",
}


@pytest.fixture(autouse=True)
def fresh_process():
    # The process's copy of the day's salt and its unwritten views must not outlive a
    # test's database.
    visitors._salts.clear()
    yield
    visitors._salts.clear()
    if buffer.timer:
        buffer.timer.cancel()
    buffer.beacons.clear()
    buffer.since = None


@pytest.fixture
def article():
    return ArticleFactory(title="Python 3.14 ships")


def send(client, path, referrer="", width="l", headers=BROWSER, address="203.0.113.7", via=None):
    body = {"p": path, "r": referrer, "w": width}
    if via is not None:
        body["s"] = via
    body = json.dumps(body)
    return client.post(
        "/readership/beacon/",
        body,
        content_type="text/plain;charset=UTF-8",
        headers=headers,
        REMOTE_ADDR=address,
    )


def figures(article):
    fold()
    totals = ArticleHour.objects.filter(article=article).aggregate(
        views=Sum("views"), visitors=Sum("visitors")
    )
    return totals["views"] or 0, totals["visitors"] or 0


def test_a_view_is_answered_204_with_no_cookie_and_never_cached(client, article):
    response = send(client, article.get_absolute_url())
    assert response.status_code == 204
    assert not response.cookies
    assert "no-cache" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_a_view_is_counted_once_after_folding(client, article):
    send(client, article.get_absolute_url())
    assert figures(article) == (1, 1)
    assert not Beacon.objects.exists()  # the raw view is gone once folded
    assert figures(article) == (1, 1)  # and folding again adds nothing


def test_the_same_browser_the_same_day_is_one_visitor(client, article, time_machine):
    time_machine.move_to(timezone.now().replace(hour=9, minute=0), tick=False)
    for hour in (9, 10, 11):
        time_machine.move_to(timezone.now().replace(hour=hour))
        send(client, article.get_absolute_url())
        fold()
    assert figures(article) == (3, 1)  # a view an hour, one reader


def test_another_address_or_browser_is_another_visitor(client, article):
    send(client, article.get_absolute_url())
    send(client, article.get_absolute_url(), address="198.51.100.4")
    send(client, article.get_absolute_url(), headers={**BROWSER, "User-Agent": "Firefox/140.0"})
    assert figures(article) == (3, 3)


def test_the_next_day_the_same_browser_is_a_new_visitor_and_the_old_salt_is_gone(client, article):
    noon = timezone.make_aware(datetime.combine(timezone.localdate(), datetime.min.time()))
    noon += timedelta(hours=12)
    with time_machine.travel(noon, tick=False):
        send(client, article.get_absolute_url())
        fold()
        first_salt = bytes(DailySalt.objects.get().value)
    with time_machine.travel(noon + timedelta(days=1), tick=False):
        send(client, article.get_absolute_url())
        fold()
        assert figures(article) == (2, 2)
        forget_past_days()
        assert list(DailySalt.objects.values_list("day", flat=True)) == [timezone.localdate()]
        assert bytes(DailySalt.objects.get().value) != first_salt
        assert set(DayVisitor.objects.values_list("day", flat=True)) == {timezone.localdate()}


def test_no_address_is_stored(client, article):
    send(client, article.get_absolute_url(), address="203.0.113.99")
    stored = json.dumps(list(Beacon.objects.values()), default=str)
    fold()
    stored += json.dumps(list(DayVisitor.objects.values()), default=str)
    assert "203.0.113.99" not in stored
    assert "Mozilla" not in stored


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1, 2]",
        json.dumps({"p": "/articles/x/", "r": "", "w": "l", "pad": "x" * 2000}),
        json.dumps({"p": "ARTICLE", "r": "javascript:alert(1)", "w": "l"}),
        json.dumps({"p": "ARTICLE", "r": "not a url", "w": "l"}),
        json.dumps({"p": "ARTICLE", "r": "", "w": "huge"}),
        json.dumps({"p": 7, "r": "", "w": "l"}),
        json.dumps({"p": "//evil.example/articles/x/", "r": "", "w": "l"}),
        json.dumps({"p": "/admin/", "r": "", "w": "l"}),
        json.dumps({"p": "/no-such-page/", "r": "", "w": "l"}),
        json.dumps({"p": "/articles/no-such-article/", "r": "", "w": "l"}),
        json.dumps({"p": "ARTICLE", "r": "", "w": ["l"]}),
        json.dumps({"p": "ARTICLE", "r": "", "w": "l", "s": ["newsletter"]}),
        json.dumps({"p": "ARTICLE", "r": {"host": "x"}, "w": "l"}),
    ],
)
def test_a_bad_beacon_is_answered_alike_and_counted_nowhere(client, article, body):
    body = body.replace("ARTICLE", article.get_absolute_url())
    response = client.post("/readership/beacon/", body, content_type="text/plain", headers=BROWSER)
    assert response.status_code == 204
    fold()
    assert not ArticleHour.objects.exists()
    assert not SourceHour.objects.exists()


def test_a_drafts_views_are_never_counted(client):
    draft = ArticleFactory(draft=True)
    send(client, f"/articles/{draft.slug}/")
    assert figures(draft) == (0, 0)


@pytest.mark.parametrize(
    "headers",
    [
        {**BROWSER, "User-Agent": "Mozilla/5.0 (compatible; Googlebot/2.1)"},
        {**BROWSER, "User-Agent": BROWSER["User-Agent"].replace("Chrome", "HeadlessChrome")},
        {"User-Agent": BROWSER["User-Agent"]},  # no Sec-Fetch-*: no browser's page sent it
        {**BROWSER, "Sec-Fetch-Site": "cross-site"},
        {**BROWSER, "User-Agent": ""},
    ],
    ids=["crawler", "headless", "no-sec-fetch", "another-site", "no-agent"],
)
def test_bots_and_requests_no_page_of_ours_sent_are_not_counted(client, article, headers):
    assert send(client, article.get_absolute_url(), headers=headers).status_code == 204
    assert figures(article) == (0, 0)


def test_a_reader_asking_not_to_be_tracked_counts_in_views_never_in_visitors(client, article):
    send(client, article.get_absolute_url(), headers={**BROWSER, "Sec-GPC": "1"})
    assert figures(article) == (1, 0)
    assert not DailySalt.objects.exists()  # no hash was made


def test_one_address_is_counted_up_to_the_minutes_limit(client, article, settings):
    settings.READERSHIP_PER_MINUTE = 3
    for n in range(5):  # five browsers behind one address
        browser = {**BROWSER, "User-Agent": f"Firefox/14{n}.0"}
        assert send(client, article.get_absolute_url(), headers=browser).status_code == 204
    send(client, article.get_absolute_url(), address="198.51.100.4")
    assert figures(article)[0] == 4


def test_counting_turned_off_sends_and_counts_nothing(client, article, settings):
    settings.READERSHIP_COUNTING = False
    assert "beacon.js" not in client.get(article.get_absolute_url()).content.decode()
    send(client, article.get_absolute_url())
    assert figures(article) == (0, 0)


def test_an_article_page_loads_the_beacon_script_from_the_sites_own_files(client, article):
    page = client.get(article.get_absolute_url()).content.decode()
    assert '<script src="/static/js/beacon.js" data-beacon="/readership/beacon/" defer>' in page


def test_a_get_never_counts(client, article):
    response = client.get("/readership/beacon/", headers=BROWSER)
    assert response.status_code == 405
    assert figures(article) == (0, 0)


@pytest.mark.parametrize(
    "referrer, source",
    [
        ("", "Direct"),
        ("https://www.google.com/", "Search engines"),
        ("https://duckduckgo.com/", "Search engines"),
        ("http://testserver/tags/python/", "Skillo"),
        ("https://news.ycombinator.com/item?id=1", "news.ycombinator.com"),
        ("https://www.theregister.com/2026/", "theregister.com"),
        ("https://mail.google.com/", "E-mail"),
        ("https://fosstodon.org/@skillo/1", "Fediverse"),
        ("https://mastodon.example/@ada/2", "Fediverse"),
    ],
)
def test_views_are_counted_by_source(client, article, referrer, source):
    send(client, article.get_absolute_url(), referrer=referrer)
    fold()
    assert list(SourceHour.objects.values_list("source", "views")) == [(source, 1)]


def test_a_link_from_the_newsletter_counts_as_the_newsletter_whatever_the_referrer(client, article):
    send(client, article.get_absolute_url(), referrer="https://mail.google.com/", via="newsletter")
    send(client, article.get_absolute_url(), via="newsletter", address="198.51.100.4")
    fold()
    assert list(SourceHour.objects.values_list("source", "views")) == [("Newsletter", 2)]


def test_another_sites_ref_counts_the_view_by_its_referrer_and_is_kept_nowhere(client, article):
    send(client, article.get_absolute_url(), referrer="https://lobste.rs/", via="producthunt")
    assert Beacon.objects.get().via == ""
    fold()
    assert list(SourceHour.objects.values_list("source", "views")) == [("lobste.rs", 1)]


def test_only_the_referrers_host_is_kept(client, article):
    send(client, article.get_absolute_url(), referrer="https://www.google.com/search?q=secret")
    assert Beacon.objects.get().referrer_host == "www.google.com"


def test_views_are_written_in_batches_not_one_by_one(client, article, settings):
    settings.READERSHIP_BUFFER_SIZE = 3
    send(client, article.get_absolute_url())
    send(client, article.get_absolute_url())
    assert not Beacon.objects.exists()
    send(client, article.get_absolute_url())
    assert Beacon.objects.count() == 3


def test_the_about_page_is_linked_from_every_pages_footer(client, article):
    home = client.get("/").content.decode()
    assert 'href="/about/figures/"' in home
    page = client.get("/about/figures/").content.decode()
    assert "no cookie" in page and "Global Privacy Control" in page
    assert "JavaScript turned off" in page


def test_the_command_folds_what_waits_and_prints_the_most_read(client, article):
    other = ArticleFactory(title="Rust 1.90 ships")
    for address in ("203.0.113.7", "198.51.100.4"):
        send(client, article.get_absolute_url(), "https://www.google.com/", address=address)
    send(client, other.get_absolute_url())
    out = StringIO()
    call_command("readership", "--days", "1", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["articles"] == [
        {"path": article.get_absolute_url(), "title": "Python 3.14 ships", "views": 2,
         "visitors": 2},
        {"path": other.get_absolute_url(), "title": "Rust 1.90 ships", "views": 1,
         "visitors": 1},
    ]  # fmt: skip
    assert data["sources"] == [
        {"source": "Search engines", "views": 2},
        {"source": "Direct", "views": 1},
    ]
    text = StringIO()
    call_command("readership", stdout=text)
    assert "Python 3.14 ships" in text.getvalue() and "Search engines" in text.getvalue()


def test_the_command_refuses_a_period_of_no_days(db):
    with pytest.raises(CommandError, match="--days"):
        call_command("readership", "--days", "0")


def test_folding_costs_the_same_queries_for_one_article_or_many(client):
    def fold_views_of(count):
        for article in ArticleFactory.create_batch(count):
            send(client, article.get_absolute_url())
            send(client, article.get_absolute_url(), address="198.51.100.4")
        with CaptureQueriesContext(connection) as queries:
            assert fold() == 2 * count
        return len(queries)

    assert fold_views_of(1) == fold_views_of(6)


def test_a_beacon_sets_no_session_and_carries_the_security_headers(client, article):
    response = send(client, article.get_absolute_url())
    assert response.status_code == 204 and not response.cookies
    assert response["X-Content-Type-Options"] == "nosniff"
    assert figures(article) == (1, 1)


@pytest.mark.parametrize(
    "path",
    ["/admin/", "/tags/python/", "ARTICLEextra/", "ARTICLE?x=1", "/articles/a b/", "/articles/"],
)
def test_a_beacon_of_any_other_address_is_not_even_kept(client, article, path):
    send(client, path.replace("ARTICLE", article.get_absolute_url()))
    assert not Beacon.objects.exists()


def test_a_beacon_of_an_article_address_is_kept_until_folded(client, article):
    send(client, article.get_absolute_url())
    assert Beacon.objects.get().path == article.get_absolute_url()


def test_a_beacon_is_counted_in_the_metrics_under_its_own_view(client, article):
    from tests.test_metrics import scrape, value

    def beacons():
        text = scrape().content.decode()
        return value(text, "skillo_http_requests_total", view="readership:beacon", status="204")

    before = beacons()
    send(client, article.get_absolute_url())
    assert beacons() == before + 1
