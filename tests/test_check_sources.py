"""check_sources and its HTTP checker, against a local server playing each case (loopback
only: tests/link_server.py)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from sources.checker import USER_AGENT, Politeness, check_all
from sources.models import SourceURL, State
from tests.factories import ArticleFactory, SourceFactory
from tests.link_server import LinkServer

# Quick settings for tests: no pause between requests, short timeouts and back-off.
FAST = Politeness(per_host=2, delay=0, timeout=0.5, backoff=0.05, max_retry_after=2)


@pytest.fixture
def server(settings):
    # The link server listens on loopback, which checks refuse unless this is on.
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    with LinkServer(hosts=3) as server:
        yield server


def check(server, path, **politeness):
    politeness = Politeness(**{**FAST.__dict__, **politeness})
    return check_all([server.url(path)], politeness)[0]


@pytest.mark.parametrize(
    ("path", "state", "status", "final"),
    [
        ("/ok/notes", State.FINE, 200, "/ok/notes"),
        ("/temporary", State.FINE, 200, "/ok/elsewhere"),
        ("/moved", State.MOVED, 200, "/ok/landed"),
        ("/missing", State.GONE, 404, "/missing"),
        ("/gone", State.GONE, 410, "/gone"),
        ("/error", State.FAILING, 500, "/error"),
        ("/soft", State.SOFT_404, 200, "/"),
        ("/soft-title", State.SOFT_404, 200, "/soft-title"),
        ("/file.pdf", State.FINE, 200, "/file.pdf"),
        ("/no-head", State.FINE, 200, "/no-head"),
    ],
)
def test_each_kind_of_answer_gets_its_verdict(server, path, state, status, final):
    outcome = check(server, path)
    assert (outcome.state, outcome.status, outcome.final_url) == (state, status, server.url(final))


def test_a_redirect_loop_is_failing_and_stops(server):
    outcome = check(server, "/loop-a")
    assert (outcome.state, outcome.error) == (State.FAILING, "redirect loop")
    assert server.requests[server.addresses[0]].count(("HEAD", "/loop-a")) == 1


def test_a_server_that_never_answers_times_out_and_is_retried_once(server):
    outcome = check(server, "/hang")
    assert (outcome.state, outcome.error) == (State.FAILING, "timed out")
    assert server.requests[server.addresses[0]] == [("HEAD", "/hang")] * 2


def test_a_refused_connection_is_failing(server):
    closed = LinkServer(hosts=1, first=200).start()
    url = closed.url("/ok/x")
    closed.close()
    outcome = check_all([url], FAST)[0]
    assert (outcome.state, outcome.error) == (State.FAILING, "could not connect")


def test_a_private_address_is_refused_unless_allowed(server, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    outcome = check(server, "/ok/notes")
    assert outcome.state == State.FAILING
    assert outcome.error == "refused: 127.0.0.2 resolves to a non-public address (127.0.0.2)"
    assert not server.requests, "refused before connecting"
    assert not outcome.retry, "the same address would be refused again"


def test_a_host_name_is_refused_by_the_address_it_resolves_to(server, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    outcome = check_all([f"http://localhost:{server.port}/ok/notes"], FAST)[0]
    assert outcome.error.startswith("refused: localhost resolves to a non-public address")


def test_a_host_that_does_not_resolve_is_a_dns_failure(server):
    outcome = check_all(["http://no-such-host.invalid/page"], FAST)[0]
    assert (outcome.state, outcome.error) == (State.FAILING, "DNS lookup failed")


def test_a_server_error_is_retried_once_then_failing(server):
    check(server, "/error")
    assert server.requests[server.addresses[0]] == [("HEAD", "/error")] * 2


def test_429_waits_for_retry_after_then_checks_again(server):
    outcome = check(server, "/busy")
    assert outcome.state == State.FINE
    assert server.requests[server.addresses[0]] == [("HEAD", "/busy")] * 2


def test_429_with_a_long_retry_after_is_not_waited_for(server):
    outcome = check(server, "/busy-long")
    assert (outcome.state, outcome.error) == (State.FAILING, "rate limited (429)")
    assert server.requests[server.addresses[0]] == [("HEAD", "/busy-long")]


def test_head_first_then_get_where_head_is_refused(server):
    check(server, "/no-head")
    assert server.requests[server.addresses[0]] == [("HEAD", "/no-head"), ("GET", "/no-head")]


def test_a_huge_body_is_cut_after_the_byte_cap(server):
    outcome = check(server, "/huge", max_bytes=100_000)
    assert outcome.state == State.FINE
    # The client hung up: the server did not get to send its gigabyte.
    assert server.huge_bytes_sent < 64 * 1024 * 1024


def test_requests_carry_skillos_user_agent(server):
    check(server, "/ok/ua")
    assert server.user_agents == {USER_AGENT}


def test_never_more_connections_to_one_host_than_the_limit(server):
    urls = [server.url(f"/ok/{n}", host=n % 3) for n in range(90)]
    outcomes = check_all(urls, Politeness(**{**FAST.__dict__, "per_host": 2}))
    assert {outcome.state for outcome in outcomes} == {State.FINE}
    assert set(server.max_open) == set(server.addresses)
    assert max(server.max_open.values()) <= 2


# The command


def cite(server, *paths, draft=False):
    article = ArticleFactory(draft=draft)
    for path in paths:
        SourceFactory(article=article, url=server.url(path))
    return article


def run(*args):
    out = StringIO()
    call_command(
        "check_sources", "--delay", "0", "--timeout", "0.5", *args, stdout=out, stderr=StringIO()
    )
    return out.getvalue()


@pytest.mark.django_db
def test_the_command_records_each_urls_state(server):
    cite(server, "/ok/a", "/moved", "/gone")
    before = timezone.now()
    run()
    rows = {row.url: row for row in SourceURL.objects.all()}
    ok, moved, gone = (rows[server.url(p)] for p in ("/ok/a", "/moved", "/gone"))
    assert (ok.state, ok.last_status, ok.failures) == (State.FINE, 200, 0)
    assert ok.last_checked_at >= before and ok.last_ok_at == ok.last_checked_at
    assert (moved.state, moved.final_url) == (State.MOVED, server.url("/ok/landed"))
    assert (gone.state, gone.last_status, gone.failures, gone.last_ok_at) == (
        State.GONE, 410, 1, None,
    )  # fmt: skip


@pytest.mark.django_db
def test_the_command_prints_a_summary(server):
    cite(server, "/ok/a", "/moved", "/gone", "/error")
    output = run()
    assert "Checked 4 of 4 source URLs" in output
    assert "moved permanently       1" in output
    assert "gone (404 or 410)       1" in output
    # One failure of a server error is not yet for an editor; moved and gone are.
    assert "Sources to fix: 2." in output


@pytest.mark.django_db
def test_the_command_refuses_private_addresses_unless_allowed(server, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    cite(server, "/ok/a")
    run()
    assert SourceURL.objects.get().last_error.startswith("refused: 127.0.0.2")
    assert not server.requests


@pytest.mark.django_db
def test_a_second_run_at_once_checks_nothing(server):
    cite(server, "/ok/a", "/gone")
    run()
    sent = sum(len(requests) for requests in server.requests.values())
    output = run()
    assert "Checked 0 of 2 source URLs" in output
    assert sum(len(requests) for requests in server.requests.values()) == sent


@pytest.mark.django_db
def test_a_url_is_checked_again_once_due(server, time_machine):
    cite(server, "/gone")
    run()
    time_machine.move_to(timezone.now() + timedelta(days=8))
    run()
    assert SourceURL.objects.get().failures == 2


@pytest.mark.django_db
def test_a_url_dead_for_months_is_still_checked_weekly(server):
    # Forty weekly failures: the doubling wait once overflowed a timedelta and stopped
    # every later check_sources run at this URL.
    cite(server, "/gone")
    SourceURL.objects.create(url=server.url("/gone"), state=State.GONE, failures=40)
    before = timezone.now()
    run()
    source = SourceURL.objects.get()
    assert source.failures == 41
    assert source.next_check_at - before <= timedelta(days=7, minutes=1)


@pytest.mark.django_db
def test_a_url_that_works_again_clears_its_failures(server):
    cite(server, "/ok/back")
    SourceURL.objects.create(url=server.url("/ok/back"), state=State.GONE, failures=3)
    run()
    assert SourceURL.objects.get().failures == 0


@pytest.mark.django_db
def test_drafts_sources_are_not_checked(server):
    cite(server, "/ok/draft-only", draft=True)
    run()
    assert not SourceURL.objects.exists()
    assert not server.requests


@pytest.mark.django_db
def test_dry_run_fetches_nothing(server):
    cite(server, "/ok/a")
    assert "1 of 1 source URLs are due" in run("--dry-run")
    assert not server.requests


@pytest.mark.django_db
def test_bad_options_are_refused_and_nothing_is_saved(server):
    cite(server, "/ok/a")
    with pytest.raises(CommandError, match="--per-host"):
        run("--per-host", "0")
    assert not SourceURL.objects.exists()
