"""Promised mail through a Redis outage (issue 53, point 5): with Redis as the default
cache, stopped mid-test, a member asking for a sign-in link and a newsletter sign-up get
their usual pages, their mails are queued in the database with the request's change and
reach a real SMTP server once a real worker (manage.py run_worker) runs; the limits are
counted in the database meanwhile, and in Redis again once it is back.

The server is pytest-django's live server in this process (its settings are the test's);
the worker is a process of its own, which must see what the live server commits: on
PostgreSQL the suite's test database, on SQLite a file (SKILLO_TEST_DATABASE_FILE, as make
test's server run names one)."""

import pytest
from django.core.cache import cache
from redis import Redis

from newsletters.links import confirm_url
from newsletters.models import Subscriber
from ratelimits import counter
from ratelimits.models import Window

from .mail_server import MailServer
from .reader import Reader
from .test_background_workers import start_worker  # noqa: F401 (a fixture)
from .waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

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
def inbox(tmp_path):
    server = MailServer(tmp_path / "maildir")
    yield server
    server.stop()


@pytest.fixture
def run_worker(start_worker, inbox, redis_cache):  # noqa: F811
    """Starts a real worker sending through the test's SMTP server, with the same Redis
    as its cache (down or not, as the test left it)."""
    return lambda: start_worker(
        "mailer",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=inbox.port,
        CACHE_URL=redis_cache.url,
    )


def ask_for_link(live_server, email=ADA):
    reader = Reader(live_server.url)
    return reader.submit(reader.get(SIGN_IN), email=email)


def sign_up(live_server, email=ADA):
    reader = Reader(live_server.url)
    return reader.submit(reader.get(NEWSLETTER), action=NEWSLETTER, email=email)


def test_with_redis_down_asking_for_a_sign_in_link_says_to_check_the_inbox(
    redis_cache, live_server
):
    redis_cache.stop()
    page = ask_for_link(live_server)
    assert page.status == 200 and "Check your inbox" in page.text


def test_a_sign_in_link_asked_for_while_redis_is_down_reaches_the_inbox(
    redis_cache, live_server, inbox, run_worker
):
    redis_cache.stop()
    ask_for_link(live_server)
    run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the sign-in link", 120)
    assert message["Subject"] == "Your link to sign in to Skillo"


def test_with_redis_down_a_newsletter_sign_up_says_to_check_the_inbox(redis_cache, live_server):
    redis_cache.stop()
    page = sign_up(live_server)
    assert page.status == 200 and "Check your inbox" in page.text


def test_a_newsletter_sign_up_made_while_redis_is_down_is_sent_its_confirmation(
    redis_cache, live_server, inbox, run_worker
):
    redis_cache.stop()
    sign_up(live_server)
    run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the confirmation", 120)
    assert "/newsletter/confirm/" in message.as_string()


def test_a_confirmation_made_while_redis_is_down_is_welcomed(
    redis_cache, live_server, inbox, run_worker
):
    pending = Subscriber(email=ADA, state=Subscriber.State.PENDING)
    pending.start_confirmation()
    pending.save()
    redis_cache.stop()
    path = "/" + confirm_url(pending).split("://", 1)[1].split("/", 1)[1]
    reader = Reader(live_server.url)
    page = reader.submit(reader.get(path), action=path)
    assert page.status == 200 and Subscriber.objects.get().state == Subscriber.State.ACTIVE
    run_worker()
    (message,) = until(lambda: inbox.to(ADA), "the worker sends the welcome", 120)
    assert message["Subject"] == "Welcome to Skillo's newsletter"


def test_with_redis_down_a_client_over_its_sign_in_limit_is_still_refused(
    redis_cache, live_server, settings
):
    settings.MEMBER_LINKS_PER_CLIENT = 2
    redis_cache.stop()
    for n in range(2):
        assert ask_for_link(live_server, f"reader{n}@example.org").status == 200
    refused = ask_for_link(live_server, "one-more@example.org")
    assert refused.status == 429 and "many requests for sign-in links" in refused.text


def test_with_redis_down_a_client_over_its_newsletter_limit_is_still_refused(
    redis_cache, live_server, settings
):
    settings.NEWSLETTER_SIGNUPS_PER_CLIENT = 2
    redis_cache.stop()
    for n in range(2):
        assert sign_up(live_server, f"reader{n}@example.org").status == 200
    refused = sign_up(live_server, "one-more@example.org")
    assert refused.status == 429 and "many sign-ups from your network" in refused.text


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
    assert Redis.from_url(redis_cache.url).keys("*ratelimit:3600:*:members:link:client:*")
