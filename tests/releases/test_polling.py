"""Reading release sources: each kind of source served on loopback as its service serves
it (ETag, Last-Modified, 304), one tip per release whatever reports it, pre-releases by
each ecosystem's rule, and a failing or unreadable source named in its health while the
others are read."""

import threading
from datetime import UTC, datetime, timedelta
from io import StringIO

import httpx
import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from background.schedule import queue_due
from outbound import client as outbound_client
from outbound.models import Host
from releases.models import ReleaseSource, Tip
from releases.polling import Pace, read_due

from ..background_tasks import run_queued
from . import formats
from .conftest import NOW
from .release_server import Route

pytestmark = pytest.mark.django_db

JULY_24 = datetime(2024, 7, 24, 16, 39, 14, tzinfo=UTC)
NOTES = (
    "<h1>PyTorch 2.4 Release Notes</h1>"
    "<p>We are excited to announce the <b>release</b> of PyTorch 2.4.</p><p>More.</p>"
)


def run(now=NOW):
    return read_due(now=now, pace=Pace(per_host=0))


def github_route(releases, **kwargs):
    return Route(formats.github_atom("pytorch/pytorch", releases), "application/atom+xml", **kwargs)


def pypi_route(releases):
    return Route(formats.pypi_rss("torch", releases), "text/xml; charset=utf-8", modified=JULY_24)


def test_a_new_github_release_becomes_a_tip_with_its_date_page_and_first_paragraph(remote, watch):
    watch(
        "github",
        remote.serve("/pytorch/pytorch/releases.atom", github_route([("v2.4.0", JULY_24, NOTES)])),
    )
    summary = run()
    tip = Tip.objects.get()
    assert (tip.project.name, tip.version, tip.state) == ("PyTorch", "2.4.0", Tip.State.NEW)
    assert tip.released_at == JULY_24
    assert tip.release_url == "https://github.com/pytorch/pytorch/releases/tag/v2.4.0"
    assert tip.notes_url == tip.release_url
    assert tip.summary == "We are excited to announce the release of PyTorch 2.4."
    assert (summary.tips_created, summary.requests) == (1, 1)


def test_a_version_published_later_is_found_at_the_next_read(remote, watch):
    path = "/pytorch/pytorch/releases.atom"
    source = watch("github", remote.serve(path, github_route([("v2.4.0", JULY_24, NOTES)])))
    run()
    later = JULY_24 + timedelta(days=3)
    remote.serve(
        path, github_route([("v2.4.1", later, "<p>Fixes.</p>"), ("v2.4.0", JULY_24, NOTES)])
    )
    run(NOW + timedelta(days=3))
    assert [tip.version for tip in Tip.objects.all()] == ["2.4.1", "2.4.0"]
    source.refresh_from_db()
    assert source.etag == remote.routes[path].etag


def test_release_candidates_are_left_out_of_a_stable_only_pypi_source(remote, watch):
    releases = [
        ("2.5.0rc1", JULY_24 + timedelta(days=1)),
        ("2.4.0", JULY_24),
        ("2.4.0.dev20240701", JULY_24),
    ]
    watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route(releases)))
    run()
    assert list(Tip.objects.values_list("version", flat=True)) == ["2.4.0"]


def test_a_source_taking_everything_keeps_npm_pre_releases_marked_as_such(remote, watch):
    releases = [("3.0.0-beta.1", JULY_24 + timedelta(hours=1)), ("2.9.0", JULY_24)]
    body = formats.npm_document("left-pad", releases)
    watch(
        "npm",
        remote.serve("/left-pad", Route(body, "application/json")),
        include=ReleaseSource.Include.ALL,
    )
    run()
    tips = {tip.version: tip for tip in Tip.objects.all()}
    assert set(tips) == {"3.0.0-beta.1", "2.9.0"}
    assert tips["3.0.0-beta.1"].prerelease and not tips["2.9.0"].prerelease
    assert tips["2.9.0"].release_url == "https://www.npmjs.com/package/left-pad/v/2.9.0"


def test_crates_io_versions_yanked_and_pre_release_ones_are_not_tips(remote, watch):
    releases = [
        ("1.1.0-alpha.1", JULY_24 + timedelta(days=2)),
        ("1.0.1", JULY_24 + timedelta(days=1)),
        ("1.0.0", JULY_24),
    ]
    body = formats.crates_versions("serde", releases, yanked={"1.0.1"})
    watch("crates", remote.serve("/api/v1/crates/serde/versions", Route(body, "application/json")))
    run()
    tip = Tip.objects.get()
    assert (tip.version, tip.released_at) == ("1.0.0", JULY_24.replace(microsecond=123456))
    assert tip.release_url == "https://crates.io/crates/serde/1.0.0"


def test_a_blog_feed_gives_tips_for_release_posts_only(remote, watch):
    posts = [
        (
            "Django 5.1 released",
            "https://example.org/weblog/2024/aug/07/django-51-released/",
            JULY_24,
            "<p>Django 5.1 is out.</p>",
        ),
        (
            "Django 5.1 release candidate 1 released",
            "https://example.org/rc",
            JULY_24 - timedelta(days=10),
            "<p>RC.</p>",
        ),
        ("The DSF board election", "https://example.org/board", JULY_24, "<p>Vote.</p>"),
    ]
    watch(
        "feed",
        remote.serve(
            "/weblog/feed/", Route(formats.rss_blog("Django", posts), "application/rss+xml")
        ),
    )
    run()
    tip = Tip.objects.get()
    assert (tip.version, tip.summary) == ("5.1", "Django 5.1 is out.")
    assert tip.release_url == "https://example.org/weblog/2024/aug/07/django-51-released/"


def test_a_json_feed_is_read(remote, watch):
    posts = [
        (
            "Zig 0.13.0 Release Notes",
            "https://example.org/0.13.0/",
            "2024-07-24T16:39:14+02:00",
            "<p>Zig 0.13.</p>",
        )
    ]
    watch(
        "feed",
        remote.serve("/feed.json", Route(formats.json_feed("Zig", posts), "application/feed+json")),
    )
    run()
    tip = Tip.objects.get()
    assert (tip.version, tip.released_at) == (
        "0.13.0",
        datetime(2024, 7, 24, 14, 39, 14, tzinfo=UTC),
    )


def test_the_same_version_from_github_and_pypi_is_one_tip_with_both_links(remote, watch):
    watch(
        "github",
        remote.serve("/pytorch/pytorch/releases.atom", github_route([("v2.4.0", JULY_24, NOTES)])),
    )
    watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24)])))
    run()
    tip = Tip.objects.get()
    assert sorted(link.url for link in tip.links.all()) == [
        "https://github.com/pytorch/pytorch/releases/tag/v2.4.0",
        "https://pypi.org/project/torch/2.4.0/",
    ]


def test_a_dismissed_tip_stays_dismissed_when_reported_again(remote, watch):
    watch(
        "github",
        remote.serve(
            "/pytorch/pytorch/releases.atom",
            github_route([("v2.4.0", JULY_24, NOTES)], conditional=False),
        ),
    )
    run()
    Tip.objects.update(state=Tip.State.DISMISSED)
    watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4", JULY_24)])))
    run(NOW + timedelta(hours=1))
    tip = Tip.objects.get()
    assert tip.state == Tip.State.DISMISSED
    assert tip.links.count() == 2


def test_a_second_read_is_conditional_and_its_304_writes_nothing(remote, watch):
    path = "/rss/project/torch/releases.xml"
    source = watch("pypi", remote.serve(path, pypi_route([("2.4.0", JULY_24)])))
    run()
    source.refresh_from_db()
    assert source.etag == remote.routes[path].etag
    assert source.last_modified == "Wed, 24 Jul 2024 16:39:14 GMT"
    with CaptureQueriesContext(connection) as queries:
        summary = run(NOW + timedelta(hours=1))
    sent = remote.requests_for(path)[-1]
    assert sent["If-None-Match"] == source.etag
    assert sent["If-Modified-Since"] == "Wed, 24 Jul 2024 16:39:14 GMT"
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in {"INSERT", "UPDATE", "DELETE"}]
    # The run's claim, and its one UPDATE that marks the sources it read that found
    # nothing new; none for the source alone, none for tips. And the host's budget: the
    # request's reservation, then what it took (outbound.budget).
    sources = [write for write in writes if "releases_releasesource" in write]
    assert len(sources) == 2 and all("next_attempt_at" in write for write in sources)
    assert len([write for write in writes if "outbound_host" in write]) == 2
    assert len(writes) == 4
    assert summary.unchanged == 1


def test_a_source_answering_500_is_read_again_later_and_later(remote, watch):
    source = watch("pypi", remote.serve("/broken", Route(status=500)))
    run()
    source.refresh_from_db()
    assert source.failures == 1
    assert source.last_error.endswith("/broken answered 500")
    assert source.next_attempt_at == NOW + timedelta(hours=1)
    run(NOW + timedelta(minutes=45))  # not due yet: not asked
    assert len(remote.requests_for("/broken")) == 1
    run(NOW + timedelta(hours=1))
    source.refresh_from_db()
    assert (source.failures, source.next_attempt_at) == (2, NOW + timedelta(hours=3))


def test_a_429_is_read_again_after_its_retry_after(remote, watch):
    source = watch("npm", remote.serve("/busy", Route(status=429, headers={"Retry-After": "7200"})))
    run()
    source.refresh_from_db()
    assert "429" in source.last_error
    assert source.next_attempt_at == NOW + timedelta(seconds=7200)


def test_a_source_that_works_again_is_healthy_again(remote, watch):
    source = watch("pypi", remote.serve("/rss/project/torch/releases.xml", Route(status=500)))
    run()
    remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24)]))
    run(NOW + timedelta(hours=1))
    source.refresh_from_db()
    assert (source.failures, source.last_error, source.last_success) == (
        0,
        "",
        NOW + timedelta(hours=1),
    )
    assert Tip.objects.count() == 1


def test_broken_sources_are_named_in_their_health_and_the_others_are_read(remote, watch, project):
    html = watch(
        "feed",
        remote.serve("/html", Route(b"<!doctype html><title>Blog</title><p>Hi", "text/html")),
    )
    bad_version = watch(
        "pypi",
        remote.serve("/bad-version", pypi_route([("2.4.0", JULY_24), ("not a version!", JULY_24)])),
    )
    no_zone = watch(
        "feed",
        remote.serve(
            "/no-zone.json",
            Route(
                formats.json_feed(
                    "Zig",
                    [("Zig 0.13.0", "https://example.org/z", "2024-07-24T16:39:14", "<p>Z</p>")],
                ),
                "application/feed+json",
            ),
        ),
    )
    loop = watch(
        "github", remote.serve("/loop-a", Route(status=302, headers={"Location": "/loop-b"}))
    )
    remote.serve("/loop-b", Route(status=302, headers={"Location": "/loop-a"}))
    duplicate = watch(
        "github",
        remote.serve("/dup.atom", github_route([("v1.2.0", JULY_24, ""), ("1.2.0", JULY_24, "")])),
    )
    run()
    for source in (html, bad_version, no_zone, loop, duplicate):
        source.refresh_from_db()
    assert html.failures == 1 and "not an RSS or Atom feed" in html.last_error
    assert (
        loop.failures == 1
        and "redirects in a loop" in loop.last_error
        and "/loop-b" in loop.last_error
    )
    assert (
        bad_version.failures == 0
        and "“not a version!” is not a PEP 440 version" in bad_version.last_error
    )
    assert no_zone.failures == 0 and "has no time zone; read as UTC" in no_zone.last_error
    assert duplicate.failures == 0 and "listed twice" in duplicate.last_error
    assert sorted(Tip.objects.values_list("version", flat=True)) == ["0.13.0", "1.2.0", "2.4.0"]
    assert Tip.objects.get(version="0.13.0").released_at == datetime(
        2024, 7, 24, 16, 39, 14, tzinfo=UTC
    )


def test_releases_older_than_a_month_are_history_not_tips(remote, watch):
    old = JULY_24 - timedelta(days=60)
    watch(
        "pypi",
        remote.serve(
            "/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24), ("2.3.0", old)])
        ),
    )
    run()
    assert list(Tip.objects.values_list("version", flat=True)) == ["2.4.0"]


def test_the_worker_reads_the_sources_as_a_periodic_task(remote, watch):
    watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24)])))
    with time_machine.travel(NOW, tick=True):
        assert "read-release-sources" in queue_due()
        run_queued()
    assert Tip.objects.get().version == "2.4.0"


def test_a_feed_link_that_is_no_web_address_is_never_linked(remote, watch, admin_client):
    posts = [("Zig 0.13.0", "javascript:alert(1)", "2024-07-24T16:39:14Z", "<p>Z</p>")]
    body = formats.json_feed("Zig", posts)
    watch("feed", remote.serve("/feed.json", Route(body, "application/feed+json")))
    run()
    assert Tip.objects.get().release_url == ""
    assert "javascript:" not in admin_client.get("/admin/").content.decode()


def test_an_atom_date_without_a_zone_is_read_as_utc_and_said(remote, watch):
    body = formats.github_atom("o/p", [("v1.0.0", JULY_24, "")]).replace(
        b"Z</updated>", b"</updated>"
    )
    source = watch(
        "github", remote.serve("/o/p/releases.atom", Route(body, "application/atom+xml"))
    )
    run()
    assert Tip.objects.get().released_at == JULY_24
    source.refresh_from_db()
    assert (
        "1.0.0: the date “2024-07-24T16:39:14” has no time zone; read as UTC" in source.last_error
    )


def test_a_source_on_a_private_address_is_refused_by_outbound(remote, watch, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    source = watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([])))
    run()
    source.refresh_from_db()
    assert source.failures == 1 and "resolves to a non-public address" in source.last_error
    assert remote.requests == []


def test_the_command_reads_what_is_due_and_says_what_it_found(remote, watch):
    watch("pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24)])))
    watch("npm", remote.serve("/broken", Route(status=500)))
    out = StringIO()
    call_command("read_release_sources", "--dry-run", stdout=out)
    assert out.getvalue() == "2 release sources to read.\n"
    assert remote.requests == []
    with time_machine.travel(NOW, tick=True):
        call_command("read_release_sources", "--pace", "0", "-v", "2", stdout=out)
        assert (
            "2 sources read (0 unchanged, 1 failing), 2 requests, 1 new tip, 1 new link"
            in out.getvalue()
        )
        assert "/broken answered 500" in out.getvalue()
        out = StringIO()
        call_command("read_release_sources", "--dry-run", stdout=out)
        assert out.getvalue() == "0 release sources to read.\n"
        call_command("read_release_sources", "--all", "--dry-run", stdout=out)
        assert "2 release sources to read." in out.getvalue()


def test_a_run_that_reads_nothing_says_which_sources_are_backed_off_and_how_to_read_them(
    remote, watch
):
    watch("npm", remote.serve("/broken", Route(status=500)))
    with time_machine.travel(NOW, tick=True):
        call_command("read_release_sources", "--pace", "0", stdout=StringIO())
        out = StringIO()
        call_command("read_release_sources", "--pace", "0", stdout=out)
    until = timezone.localtime(ReleaseSource.objects.get().next_attempt_at)
    assert out.getvalue() == (
        "0 sources read (0 unchanged, 0 failing), 0 requests, 0 new tips, 0 new links\n"
        f"1 failing source is backed off, the first until {until:%Y-%m-%d %H:%M %Z}; read it "
        "now with --all.\n"
    )


def test_a_release_candidates_post_is_not_the_final_releases_tip(remote, watch):
    rc_day = JULY_24 - timedelta(days=10)
    posts = [
        ("Django 5.1 released", "https://example.org/final", JULY_24, "<p>Final.</p>"),
        ("Django 5.1 release candidate 1 released", "https://example.org/rc", rc_day, "<p>RC.</p>"),
    ]
    body = formats.rss_blog("Django", posts)
    watch("feed", remote.serve("/feed/", Route(body, "application/rss+xml")), include="all")
    run()
    tips = {tip.version: tip for tip in Tip.objects.all()}
    assert set(tips) == {"5.1", "5.1rc1"}
    assert tips["5.1"].release_url == "https://example.org/final"
    assert tips["5.1rc1"].prerelease


@pytest.fixture
def quick_timeouts(monkeypatch):
    """Requests give up on a silent host after half a second (10 s in production)."""
    monkeypatch.setattr(outbound_client, "TIMEOUT", httpx.Timeout(0.5))
    monkeypatch.setattr(outbound_client, "_local", threading.local())  # A client with it.


def test_a_silent_host_costs_one_timeout_and_its_other_sources_wait_unmarked(
    silent_host, quick_timeouts, watch
):
    address, taken = silent_host
    first = watch("pypi", f"{address}/rss/torch.xml")
    second = watch("npm", f"{address}/torch.json")
    summary = read_due(pace=Pace(per_host=0))
    assert len(taken) == 1  # The second source made no connection.
    assert (summary.failed, summary.put_off) == (1, 1)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.failures == 1 and "timed out" in first.last_error
    # Due again once its host may be asked, with nothing held against it.
    host = Host.objects.get(name="127.0.0.3")
    assert (second.failures, second.last_error) == (0, "")
    assert second.next_attempt_at == host.backed_off_until
    read_due(pace=Pace(per_host=0))  # At once again: nothing is due.
    assert len(taken) == 1
