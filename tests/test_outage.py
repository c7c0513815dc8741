"""The database goes away: readers get a 503 with Retry-After, editors keep their text,
and the same server processes recover when the database returns. The cache's Redis goes
away: the mails readers are promised still reach them, and the limits still hold.

The first tests fake the outage inside the test process (every query fails). The live
ones start their own PostgreSQL cluster and two gunicorn servers with the production
settings (one opening a connection per request, one keeping it), then stop, freeze and
restart that cluster under them.
"""

import html
import os
import signal
import socket
import subprocess
import sys
import time
from html.parser import HTMLParser
from http.client import HTTPConnection
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import OperationalError, connection
from django.test import Client
from django.urls import reverse
from redis import Redis

from newsletters.links import confirm_url
from newsletters.models import Subscriber
from ratelimits import counter
from ratelimits.models import Window
from skillo.outage import RETRY_AFTER_SECONDS

from .conftest import SHARED_ARTICLE, SHARED_SLUG
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .postgres_server import Cluster, postgres_bin
from .reader import Reader
from .test_admin import form_data
from .test_background_workers import start_worker  # noqa: F401 (a fixture)
from .waiting import until

BASE_DIR = Path(__file__).resolve().parent.parent
ADD_URL = reverse("admin:news_article_add")
TYPED = {
    "title": "Rust 1.80 </textarea><script>alert(1)</script>",
    "summary": "Lazy cells & exclusive ranges.",
    "body": "\nWhat happened\n\nRust 1.80 shipped <b>LazyCell</b> on 2024-07-25.",
}


class UnsavedText(HTMLParser):
    """The read-only textareas of the outage page, by their label, as a browser shows
    them (it drops the newline right after <textarea>)."""

    def __init__(self, page):
        super().__init__()
        self.labels, self.texts, self.current = {}, {}, None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "label":
            self.current = self.labels, attrs["for"]
        elif tag == "textarea":
            self.current = self.texts, attrs["id"]
        else:
            return
        store, key = self.current
        store[key] = ""

    def handle_endtag(self, tag):
        self.current = None

    def handle_data(self, data):
        if self.current:
            store, key = self.current
            store[key] += data

    def by_label(self):
        return {self.labels[key]: text.removeprefix("\n") for key, text in self.texts.items()}


# Inside the test process: every query fails as with a stopped server.


def refuse(execute, sql, params, many, context):
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed')


@pytest.fixture
def outage():
    with connection.execute_wrapper(refuse):
        yield


@pytest.fixture
def editor(db, django_user_model):
    user = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_public_pages_answer_503_with_retry_after(outage):
    response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_the_outage_page_is_the_static_page_and_reveals_nothing(client, outage):
    client.raise_request_exception = False
    page = client.get("/tags/").content.decode()
    assert "<h1>Skillo is briefly unavailable</h1>" in page
    for leak in ("Traceback", "OperationalError", "5432", "Your changes"):
        assert leak not in page


class UserInMiddleware:
    """Like a 'last seen' middleware: reads the user (the database) before any view."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.user.is_authenticated  # noqa: B018
        return self.get_response(request)


def test_a_database_error_raised_in_a_middleware_is_a_503_too(editor, outage, settings):
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.UserInMiddleware"]
    response = editor.get("/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_SECONDS)


@pytest.mark.django_db
def test_any_other_error_is_still_the_500_page(settings):
    def broken(execute, sql, params, many, context):
        raise ZeroDivisionError

    with connection.execute_wrapper(broken):
        response = Client(raise_request_exception=False).get("/")
    assert response.status_code == 500
    assert not response.has_header("Retry-After")


def test_an_admin_save_during_the_outage_says_nothing_was_saved(editor, outage):
    page = editor.post(ADD_URL, form_data(**TYPED)).content.decode()
    assert "<h1>Your changes were NOT saved</h1>" in page


def test_the_editor_gets_back_every_field_they_typed(editor, outage):
    page = editor.post(ADD_URL, form_data(**TYPED)).content.decode()
    shown = UnsavedText(page).by_label()
    assert {label: shown[label] for label in ("Title", "Summary", "Body")} == {
        "Title": TYPED["title"],
        "Summary": TYPED["summary"],
        "Body": TYPED["body"],
    }
    assert shown["Tags"] == "go, release"


def test_typed_markup_comes_back_as_text_not_markup(editor, outage):
    page = editor.post(ADD_URL, form_data(**TYPED)).content.decode()
    assert "<script" not in page
    assert "<b>" not in page
    assert html.escape(TYPED["title"], quote=False) in page


def test_tokens_and_form_bookkeeping_are_not_echoed(editor, outage):
    data = form_data(csrfmiddlewaretoken="secret-token-value", _save="Save", **TYPED)
    shown = UnsavedText(editor.post(ADD_URL, data).content.decode()).by_label()
    assert "secret-token-value" not in shown.values()
    assert not [label for label in shown if "forms" in label.casefold()]
    assert "Save" not in shown.values()


@pytest.mark.django_db
def test_a_login_during_the_outage_echoes_nothing(outage):
    client = Client(raise_request_exception=False)
    response = client.post(
        reverse("admin:login"), {"username": "editor", "password": "hunter2-secret"}
    )
    assert response.status_code == 503
    assert "hunter2-secret" not in response.content.decode()
    assert "<textarea" not in response.content.decode()


# Live: a real PostgreSQL cluster that the tests stop, freeze and start.


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


SUITE_ON_POSTGRES = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def live(test):
    """A test against the module's own cluster and servers (the ``site`` fixture)."""
    test = pytest.mark.skipif(
        SUITE_ON_POSTGRES,
        reason="brings its own PostgreSQL cluster, so it runs once: in the SQLite pass",
    )(test)
    return pytest.mark.skipif(
        postgres_bin() is None,
        reason="PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)",
    )(test)


class Server:
    """gunicorn with the production settings (DEBUG off), one worker process."""

    def __init__(self, environ, conn_max_age, log):
        self.port = free_port()
        command = [
            Path(sys.executable).parent / "gunicorn", "skillo.wsgi:application",
            "--bind", f"127.0.0.1:{self.port}", "--workers", "1", "--timeout", "60",
            "--no-control-socket",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command,
            env={**environ, "CONN_MAX_AGE": str(conn_max_age)},
            cwd=BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def wait_until_up(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self.request("/robots.txt")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gunicorn did not start")

    def request(self, path, data=None, cookies=None):
        """(status, headers, body) of one request; a POST when ``data`` is given."""
        http = HTTPConnection("127.0.0.1", self.port, timeout=20)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())}
        if data is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            http.request("POST", path, body=urlencode(data), headers=headers)
        else:
            http.request("GET", path, headers=headers)
        response = http.getresponse()
        body = response.read().decode()
        http.close()
        if cookies is not None:
            for header in response.headers.get_all("Set-Cookie") or []:
                cookies.update({k: m.value for k, m in SimpleCookie(header).items()})
        return response.status, response.headers, body

    def status(self, path):
        return self.request(path)[0]

    def worker_pid(self):
        """The one gunicorn worker (a child of the master process)."""
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rpartition(")")[2].split()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid:
                return int(stat.parent.name)
        return None

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


SEED = f"""
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from textfiles.importer import import_articles
call_command("migrate", verbosity=0)
import_articles([{str(SHARED_ARTICLE)!r}])
User.objects.create_user("editor", password="editor-pw", is_staff=True).groups.add(
    Group.objects.get(name="Editors")
)
"""


@pytest.fixture(scope="module")
def site(production_static):
    """The cluster with a migrated database, one article and an editor; two servers."""
    cluster = Cluster()
    log = open(cluster.root / "servers.log", "wb")  # noqa: SIM115
    servers = []
    try:
        cluster.create()
        environ = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
            "DATABASE_URL": cluster.url,
            "SECRET_KEY": "outage-test-" + "k" * 50,
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": "http://127.0.0.1",
            "LOCAL_TRIAL": "true",
            "DEBUG": "false",
            "SECURE_SSL_REDIRECT": "false",
            "STATIC_ROOT": str(production_static),
            # A stored page would hide the outage; the page cache is tested on its own.
            "PAGE_CACHE": "false",
        }
        manage = [sys.executable, str(BASE_DIR / "manage.py")]
        subprocess.run(
            [*manage, "shell", "-v", "0", "-c", SEED], env=environ, check=True, timeout=120
        )
        servers = [Server(environ, 0, log), Server(environ, 600, log)]
        for server in servers:
            server.wait_until_up()
        yield cluster, *servers
    finally:
        for server in servers:
            server.close()
        log.close()
        cluster.remove()


@pytest.fixture
def cluster(site):
    cluster = site[0]
    yield cluster
    # Whatever a test did, the next one finds the database up.
    if not (cluster.data / "postmaster.pid").exists():
        cluster.start()


PAGES = ["/", f"/articles/{SHARED_SLUG}/", "/tags/", "/search/?q=pytorch"]


@live
@pytest.mark.parametrize("path", PAGES)
def test_live_pages_answer_503_while_the_database_is_stopped(site, cluster, path):
    cluster.stop()
    for server in site[1:]:
        status, headers, body = server.request(path)
        assert (status, headers["Retry-After"]) == (503, str(RETRY_AFTER_SECONDS))
        assert "<h1>Skillo is briefly unavailable</h1>" in body
        leaks = ("Traceback", "rror", "psycopg", str(cluster.port))
        assert not [leak for leak in leaks if leak in body]


@live
def test_live_health_is_503_while_the_database_is_stopped_and_200_once_it_is_back(site, cluster):
    server = site[1]
    assert server.status("/health/") == 200
    cluster.stop()
    status, headers, body = server.request("/health/")
    assert status == 503 and '"database unavailable"' in body
    assert "no-cache" in headers["Cache-Control"]
    cluster.start()
    assert server.status("/health/") == 200


@live
def test_live_the_same_processes_recover_when_the_database_returns(site, cluster):
    servers = site[1:]
    workers = [server.worker_pid() for server in servers]
    assert [server.status(PAGES[1]) for server in servers] == [200, 200]
    cluster.stop()
    assert [server.status(PAGES[1]) for server in servers] == [503, 503]
    cluster.start()
    assert [server.status(PAGES[1]) for server in servers] == [200, 200]
    assert [server.worker_pid() for server in servers] == workers


@live
def test_live_a_restart_between_requests_costs_no_reader_an_error(site, cluster):
    # The server that keeps its connection: a restart breaks it without any request
    # seeing the outage; the health check replaces it before the next request uses it.
    keeps_connection = site[2]
    assert keeps_connection.status(PAGES[1]) == 200
    cluster.stop()
    cluster.start()
    assert keeps_connection.status(PAGES[1]) == 200


@live
def test_live_a_hung_database_server_is_a_503_not_a_hang(site, cluster):
    # A frozen server still accepts TCP connections but never answers them; without a
    # connect timeout the request would wait past the client's (Server.request: 20 s).
    opens_connections = site[1]
    postmaster = cluster.postmaster_pid()
    os.kill(postmaster, signal.SIGSTOP)
    try:
        assert opens_connections.status(PAGES[1]) == 503
    finally:
        os.kill(postmaster, signal.SIGCONT)
    assert opens_connections.status(PAGES[1]) == 200


@pytest.fixture(scope="module")
def editor_session(site):
    """An editor logged in before the outage, on the add-article form."""
    server = site[1]
    cookies = {}
    status, _, page = server.request("/admin/login/", cookies=cookies)
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    login = {"username": "editor", "password": "editor-pw", "csrfmiddlewaretoken": token}
    assert server.request("/admin/login/", login, cookies)[0] == 302
    status, _, page = server.request(ADD_URL, cookies=cookies)
    assert status == 200
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    return server, cookies, form_data(csrfmiddlewaretoken=token, _save="Save", **TYPED)


@live
def test_live_an_admin_save_during_the_outage_gives_the_editor_their_text(cluster, editor_session):
    server, cookies, typed = editor_session
    cluster.stop()
    status, headers, page = server.request(ADD_URL, typed, cookies)
    assert (status, headers["Retry-After"]) == (503, str(RETRY_AFTER_SECONDS))
    assert "<h1>Your changes were NOT saved</h1>" in page
    shown = UnsavedText(page).by_label()
    assert [shown["Title"], shown["Body"]] == [TYPED["title"], TYPED["body"]]


@live
def test_live_after_the_outage_the_editor_saves_the_same_text(cluster, editor_session):
    server, cookies, typed = editor_session
    cluster.stop()
    assert server.request(ADD_URL, typed, cookies)[0] == 503
    cluster.start()
    # Still logged in (sessions live in the database, which kept them), nothing half
    # saved, and the text from the outage page saves.
    changelist = reverse("admin:news_article_changelist")
    assert "Rust 1.80" not in server.request(changelist, cookies=cookies)[2]
    assert server.request(ADD_URL, typed, cookies)[0] == 302
    assert "Rust 1.80" in server.request(changelist, cookies=cookies)[2]


# The cache's Redis goes away (issue 53, point 5): with Redis as the default cache,
# stopped mid-test, a member asking for a sign-in link and a newsletter sign-up get their
# usual pages, their mails are queued in the database with the request's change and reach
# a real SMTP server once a real worker (manage.py run_worker) runs; the limits are
# counted in the database meanwhile, and in Redis again once it is back. The server is
# pytest-django's live server in this process; the worker, a process of its own, must see
# what it commits: on PostgreSQL the suite's test database, on SQLite a file
# (SKILLO_TEST_DATABASE_FILE, as make test's server run names one).

ON_LIVE_SERVER = pytest.mark.django_db(transaction=True)
SMTP = "django.core.mail.backends.smtp.EmailBackend"
ADA = "ada@example.org"
SIGN_IN = "/account/"
NEWSLETTER = "/newsletter/"


@pytest.fixture
def redis_cache(redis_server, settings, monkeypatch):
    """The default cache in the session's Redis, empty; started again after the test."""
    if redis_server.process is None:  # stopped by a test that failed before restarting it
        redis_server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_server.url,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    cache.clear()
    monkeypatch.setitem(counter._state, "cache_down_until", 0.0)
    yield redis_server
    if redis_server.process is None:
        redis_server.start()


@pytest.fixture
def run_worker(start_worker, mail_server, redis_cache):  # noqa: F811
    """Starts a real worker with the same Redis as its cache (down or not, as the test
    left it); returns the SMTP server it sends through."""

    def start():
        environment = {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": mail_server.port}
        start_worker("mailer", **environment, CACHE_URL=redis_cache.url, EMAIL_BACKEND=SMTP)
        return mail_server

    return start


def ask_for_link(live_server, email=ADA):
    reader = Reader(live_server.url)
    return reader.submit(reader.get(SIGN_IN), email=email)


def sign_up(live_server, email=ADA):
    reader = Reader(live_server.url)
    return reader.submit(reader.get(NEWSLETTER), action=NEWSLETTER, email=email)


@ON_LIVE_SERVER
def test_with_redis_down_asking_for_a_sign_in_link_says_to_check_the_inbox(
    redis_cache, live_server
):
    redis_cache.stop()
    page = ask_for_link(live_server)
    assert page.status == 200 and "Check your inbox" in page.text


@ON_LIVE_SERVER
def test_a_sign_in_link_asked_for_while_redis_is_down_reaches_the_inbox(
    redis_cache, live_server, run_worker
):
    redis_cache.stop()
    ask_for_link(live_server)
    inbox = run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the sign-in link", 120)
    assert message["Subject"] == "Your link to sign in to Skillo"


@ON_LIVE_SERVER
def test_with_redis_down_a_newsletter_sign_up_says_to_check_the_inbox(redis_cache, live_server):
    redis_cache.stop()
    page = sign_up(live_server)
    assert page.status == 200 and "Check your inbox" in page.text


@ON_LIVE_SERVER
def test_a_newsletter_sign_up_made_while_redis_is_down_is_sent_its_confirmation(
    redis_cache, live_server, run_worker
):
    redis_cache.stop()
    sign_up(live_server)
    inbox = run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the confirmation", 120)
    assert "/newsletter/confirm/" in message.as_string()


@ON_LIVE_SERVER
def test_a_confirmation_made_while_redis_is_down_is_welcomed(redis_cache, live_server, run_worker):
    pending = Subscriber(email=ADA, state=Subscriber.State.PENDING)
    pending.start_confirmation()
    pending.save()
    redis_cache.stop()
    path = "/" + confirm_url(pending).split("://", 1)[1].split("/", 1)[1]
    reader = Reader(live_server.url)
    page = reader.submit(reader.get(path), action=path)
    assert page.status == 200 and Subscriber.objects.get().state == Subscriber.State.ACTIVE
    inbox = run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the welcome", 120)
    assert message["Subject"] == "Welcome to Skillo's newsletter"


@ON_LIVE_SERVER
def test_with_redis_down_a_client_over_its_sign_in_limit_is_still_refused(
    redis_cache, live_server, settings
):
    settings.MEMBER_LINKS_PER_CLIENT = 2
    redis_cache.stop()
    for n in range(2):
        assert ask_for_link(live_server, f"reader{n}@example.org").status == 200
    refused = ask_for_link(live_server, "one-more@example.org")
    assert refused.status == 429 and "many requests for sign-in links" in refused.text


@ON_LIVE_SERVER
def test_with_redis_down_a_client_over_its_newsletter_limit_is_still_refused(
    redis_cache, live_server, settings
):
    settings.NEWSLETTER_SIGNUPS_PER_CLIENT = 2
    redis_cache.stop()
    for n in range(2):
        assert sign_up(live_server, f"reader{n}@example.org").status == 200
    refused = sign_up(live_server, "one-more@example.org")
    assert refused.status == 429 and "many sign-ups from your network" in refused.text


@ON_LIVE_SERVER
def test_once_redis_is_back_the_limits_are_counted_there_again(
    redis_cache, live_server, monkeypatch
):
    redis_cache.stop()
    ask_for_link(live_server)
    counted_meanwhile = Window.objects.count()
    redis_cache.start()
    # Asked again at once, not a second after the last error (counter.RETRY_AFTER_ERROR).
    monkeypatch.setitem(counter._state, "cache_down_until", 0.0)
    ask_for_link(live_server)
    assert Window.objects.count() == counted_meanwhile
    with Redis.from_url(redis_cache.url) as redis:
        assert redis.keys("*ratelimit:3600:*:members:link:client:*")


@pytest.mark.django_db
def test_a_redis_outage_leaves_every_server_ready_for_the_balancer_and_says_so(redis_cache):
    redis_cache.stop()
    response = Client(raise_request_exception=False).get("/health/ready/")
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "cache": "unavailable"}
