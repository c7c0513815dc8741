"""Purges to Varnish and the key headers, in-process: a fake Varnish records what it gets.

No varnishd here (tests/varnish/test_varnish.py has the real one): what the app sends,
when, and what the worker sends again when a Varnish does not answer.
"""

import re
import socket
import sys
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core.management import call_command
from django.db import transaction
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from pagecache import middleware, purges, store, varnish
from pagecache.models import Release
from tests.background_tasks import run_queued
from tests.redis_server import free_port

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]

VCL = Path(__file__).resolve().parent.parent.parent / "deploy" / "varnish" / "skillo.vcl"


class FakeVarnish:
    """Answers PURGE with 200 (or ``status``) and records each request's headers."""

    def __init__(self, port=0):
        self.requests, self.status = [], 200
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_PURGE(self):
                fake.requests.append(dict(self.headers))
                self.send_response(fake.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def purged(self):
        return [request["xkey-purge"] for request in self.requests]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Purges go to Varnish when the transaction commits: as if it had."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def fakes(settings):
    started = []

    def start(count=1):
        for _ in range(count):
            started.append(FakeVarnish())
        settings.SKILLO_VARNISH_PURGE_URLS = [fake.url for fake in started]
        return started

    # Long enough for a fake's answer on a machine busy with make test's other runs (at
    # 0.3 s one came late and its purge was kept as if it had failed); what does not
    # answer costs each purge this once.
    settings.SKILLO_VARNISH_PURGE_TIMEOUT = 2
    settings.SKILLO_TASK_RETRY_DELAY = 30
    settings.SKILLO_TASK_MAX_ATTEMPTS = 5
    settings.SKILLO_PERIODIC_TASKS = {}
    yield start
    for fake in started:
        fake.close()


def test_without_varnish_urls_nothing_is_sent_or_kept(fakes, settings, committed):
    (fake,) = fakes()
    settings.SKILLO_VARNISH_PURGE_URLS = []
    with committed():
        purges.purge({"article:1"})
    assert fake.requests == []
    assert not DBTaskResult.objects.exists()


def test_one_soft_purge_per_varnish_with_every_key_after_the_commit(
    fakes, django_capture_on_commit_callbacks
):
    first, second = fakes(2)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        purges.purge({"tag:2", "article:1", "schedule"})
        # Before the commit Varnish would fetch the old page again.
        assert first.requests == second.requests == []
    for fake in (first, second):
        assert fake.purged() == ["article:1 schedule tag:2"]
        assert "xkey-hard" not in fake.requests[0]
    assert not DBTaskResult.objects.exists()


def queued():
    """The purges queued for the worker: (Varnish, keys, hard) of each task not done."""
    rows = DBTaskResult.objects.filter(task_path="pagecache.varnish.purge_varnish").exclude(
        status=TaskResultStatus.SUCCESSFUL
    )
    return sorted(tuple(row.args_kwargs["args"]) for row in rows.order_by("enqueued_at"))


def test_a_withdrawal_is_a_hard_purge(fakes, committed):
    (fake,) = fakes()
    with committed():
        purges.purge({"article:1", "feeds"}, hard=True)
    assert fake.purged() == ["article:1 feeds"]
    assert fake.requests[0]["xkey-hard"] == "1"


def test_a_varnish_that_does_not_answer_gets_its_purge_from_a_task_until_it_takes_it(
    fakes, settings, committed
):
    (up,) = fakes()
    silent = socket.create_server(("127.0.0.1", 0))  # Takes connections, never answers.
    down = f"http://127.0.0.1:{free_port()}"  # Nothing listens.
    hung = f"http://127.0.0.1:{silent.getsockname()[1]}"
    settings.SKILLO_VARNISH_PURGE_URLS = [up.url, down, hung]
    try:
        with committed():
            purges.purge({"article:1"})
        with committed():
            purges.purge({"article:2", "tag:3"}, hard=True)
        assert up.purged() == ["article:1", "article:2 tag:3"]
        assert queued() == sorted([
            (down, ["article:1"], False), (hung, ["article:1"], False),
            (down, ["article:2", "tag:3"], True), (hung, ["article:2", "tag:3"], True),
        ])  # fmt: skip
        # Still down: each task fails and waits for its next try (a second or more on).
        with time_machine.travel(timezone.now(), tick=False):
            assert run_queued() == 4
        assert len(queued()) == 4
    finally:
        silent.close()
    back = FakeVarnish(port=urlsplit(down).port)
    try:
        settings.SKILLO_VARNISH_PURGE_URLS = [up.url, back.url]  # The hung one is gone.
        with time_machine.travel(timezone.now() + timedelta(seconds=61)):
            assert run_queued() == 4
        assert back.purged() == ["article:1", "article:2 tag:3"]
        assert [request.get("xkey-hard") for request in back.requests] == [None, "1"]
    finally:
        back.close()
    assert queued() == []
    assert up.purged() == ["article:1", "article:2 tag:3"]  # Nothing again for the one up.


def test_a_refused_purge_is_queued_and_sent_again(fakes, committed):
    (fake,) = fakes()
    fake.status = 403  # This server is not in Varnish's purgers ACL.
    with committed():
        purges.purge({"article:1"})
    assert queued() == [(fake.url, ["article:1"], False)]
    fake.status = 200
    assert run_queued() == 1
    assert fake.purged() == ["article:1", "article:1"]
    assert queued() == []


def test_no_app_server_process_runs_a_purge_thread(fakes, committed):
    """Retries are the worker's: a Varnish that is down costs each web process nothing
    after its one try."""
    fakes()
    with committed():
        purges.purge({"article:1"})
    assert not [t for t in threading.enumerate() if t.name == "varnish-purges"]
    assert not hasattr(varnish, "retry_soon")


def test_a_purge_the_page_cache_missed_reaches_varnish_again_from_the_worker(
    fakes, committed, monkeypatch
):
    (fake,) = fakes()
    with monkeypatch.context() as outage:
        outage.setattr(purges, "bump", lambda keys: False)  # The site's cache is down.
        with committed():
            purges.purge({"article:2"})
    assert fake.purged() == ["article:2"]
    # The keys this cache missed go to Varnish again once it takes them: Varnish may have
    # fetched the old page from it meanwhile.
    with committed():
        assert run_queued() == 1
    assert fake.purged() == ["article:2", "article:2"]


def test_a_purge_of_many_keys_goes_in_parts_varnish_accepts(fakes, committed):
    (fake,) = fakes()
    keys = {f"article:{number}" for number in range(2000)}
    with committed():
        purges.purge(keys)
    assert len(fake.requests) > 1
    assert all(len(value) <= varnish.MAX_HEADER_LENGTH for value in fake.purged())
    assert {key for value in fake.purged() for key in value.split()} == keys


@pytest.fixture
def page(client, shared_article, monkeypatch):
    # Not one purge since the page was built: it is stored, and consistent.
    monkeypatch.setattr(store, "RACE_MARGIN", 0)
    monkeypatch.setattr(middleware, "announce_release", lambda: None)
    url = shared_article.get_absolute_url()
    return lambda **headers: client.get(url, headers=headers)


def test_key_headers_follow_the_setting(page, settings, shared_article):
    default = page()
    keys = default["xkey"].split(" ")
    assert {"schedule", "nav", f"article:{shared_article.pk}"} <= set(keys)
    assert page()["xkey"] == default["xkey"]  # Served from the cache: the same keys.

    settings.SKILLO_SURROGATE_KEY_HEADERS = ["Surrogate-Key", "Cache-Tag"]
    # A settings change is a release of its own (pagecache.release): its key changes.
    keys = [key for key in keys if not key.startswith("release:")]
    keys.append(varnish.release_key())
    for response in (page(), page()):
        assert "xkey" not in response
        assert response["Surrogate-Key"].split(" ") == keys
        assert response["Cache-Tag"].split(",") == keys  # Cloudflare's commas.

    settings.SKILLO_SURROGATE_KEY_HEADERS = ["off"]
    response = page()
    assert not any(name in response for name in ("xkey", "Surrogate-Key", "Cache-Tag"))


def test_a_varnish_that_gets_purges_may_keep_pages_longer(page, settings):
    assert "Surrogate-Control" not in page()  # No Varnish: only s-maxage, for every cache.
    settings.SKILLO_VARNISH_PURGE_URLS = ["http://127.0.0.1:9"]
    settings.SKILLO_VARNISH_MAX_AGE = 7200
    for response in (page(), page()):
        assert response["Surrogate-Control"] == "max-age=7200"
        assert "s-maxage=60" in response["Cache-Control"]
    # Revalidating its copy (If-None-Match), Varnish gets the keys and lifetime again.
    not_modified = page(if_none_match=response["ETag"])
    assert not_modified.status_code == 304
    assert not_modified["xkey"] == response["xkey"]
    assert not_modified["Surrogate-Control"] == "max-age=7200"


def test_an_editor_gets_no_key_header(page, admin_client, shared_article):
    response = admin_client.get(shared_article.get_absolute_url())
    assert "private" in response["Cache-Control"]
    assert "xkey" not in response and "Surrogate-Control" not in response


@pytest.mark.parametrize("settings_module", ["development", "production"])
def test_the_vcl_knows_the_session_cookie(settings_module, monkeypatch):
    """skillo.vcl passes requests with the session cookie to the app: its pattern must
    match the name the settings give the cookie."""
    import importlib

    from django.conf import global_settings

    monkeypatch.setenv("SECRET_KEY", "s" * 60)
    monkeypatch.setenv("ALLOWED_HOSTS", "example.org")
    monkeypatch.setenv("SITE_URL", "https://example.org")
    monkeypatch.setenv("CACHE_URL", "dummy://")
    # Loaded afresh, from this environment.
    for name in ("base", settings_module):
        monkeypatch.delitem(sys.modules, f"skillo.settings.{name}", raising=False)
    module = importlib.import_module(f"skillo.settings.{settings_module}")
    pattern = re.search(r'req\.http\.Cookie ~ "([^"]+)"', VCL.read_text()).group(1)
    pattern = pattern.replace("\\\\", "\\")
    name = getattr(module, "SESSION_COOKIE_NAME", global_settings.SESSION_COOKIE_NAME)
    assert re.search(pattern, f"{name}=abc")
    assert re.search(pattern, f"_ga=GA1.2; {name}=abc")
    assert not re.search(pattern, "csrftoken=abc; _ga=GA1.2")


def test_purge_pages_purges_the_cache_and_every_varnish(fakes, committed):
    first, second = fakes(2)
    before = store.cache_call("get", "schedule")[1]
    out, err = StringIO(), StringIO()
    with committed():
        call_command("purge_pages", "--hard", stdout=out, stderr=err)
    for fake in (first, second):
        # Every page names `schedule` among its keys: all of them, at once.
        assert fake.purged() == ["schedule"]
        assert fake.requests[0]["xkey-hard"] == "1"
    assert store.cache_call("get", "schedule")[1] != before
    assert "Purged the cache and each Varnish" in out.getvalue() and not err.getvalue()


def test_a_command_run_without_the_varnish_urls_purges_the_varnish_the_app_servers_named(
    fakes, settings, committed
):
    (fake,) = fakes()
    varnish.announce_release()  # An app server starts, told where Varnish is.
    settings.SKILLO_VARNISH_PURGE_URLS = None  # A manage.py command, told nothing.
    out = StringIO()
    with committed():
        call_command("purge_pages", stdout=out, stderr=StringIO())
    assert fake.purged() == ["schedule"]
    assert f"Purged the cache and each Varnish ({fake.url})" in out.getvalue()


def test_purge_pages_with_the_varnish_urls_set_empty_says_varnish_was_not_purged(settings, db):
    settings.SKILLO_VARNISH_PURGE_URLS = []
    # The app servers have told a Varnish of theirs.
    Release.objects.create(name="abc", varnish=["http://127.0.0.1:9"])
    err = StringIO()
    call_command("purge_pages", stderr=err)
    assert "No Varnish was purged: VARNISH_PURGE_URLS is empty here." in err.getvalue()
    assert "A Varnish in front has heard from this site's app servers" in err.getvalue()
