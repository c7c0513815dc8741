"""Production settings, checked in a separate process as a deployment would load them."""

import os
import re
import secrets
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.redis_server import free_port
from tests.waiting import until

PROJECT = Path(__file__).resolve().parent.parent


def run(code, tmp_path, **env):
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        "STATIC_ROOT": str(tmp_path / "static"),
        **env,
    }
    # The test process sets this for Playwright; a deployment never has it.
    environment.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    for name, value in env.items():
        if value is None:
            environment.pop(name)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, env=environment, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip


GOOD = {
    "SECRET_KEY": secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "news.example",
    "SITE_URL": "https://news.example",
    # Shared by every app server in the sense that matters: no server keeps a page.
    "CACHE_URL": "dummy://",
}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({**GOOD, "SECRET_KEY": None}, "Set SECRET_KEY"),
        ({**GOOD, "SECRET_KEY": "short"}, "Set SECRET_KEY"),
    ],
)
def test_production_refuses_to_start_without_real_settings(tmp_path, env, message):
    result = run("import django; django.setup()", tmp_path, **env)
    assert result.returncode != 0
    assert message in result.stderr


@pytest.mark.parametrize("cache_url", [None, "locmem://", "file:///tmp/skillo-cache"])
def test_production_refuses_a_cache_of_one_server_of_its_own(tmp_path, cache_url):
    """Each app server would serve the pages it kept after another one purged them."""
    result = manage(tmp_path, ["check"], **GOOD | {"CACHE_URL": cache_url})
    assert result.returncode == 1
    assert "Set CACHE_URL to the Redis every app server shares" in result.stderr


def test_a_local_trial_keeps_its_cache_in_a_folder_every_process_of_the_machine_shares(
    tmp_path,
):
    trial = GOOD | {"SITE_URL": "http://127.0.0.1:8000", "LOCAL_TRIAL": "true", "CACHE_URL": None}
    code = "import django; django.setup(); from django.conf import settings; print(settings.CACHES)"
    result = run(code, tmp_path, **trial)
    assert result.returncode == 0, result.stderr
    assert "FileBasedCache" in result.stdout


DEPLOY_CHECKS = (
    "from django.core.management import execute_from_command_line as m; "
    "m(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])"
)


def test_production_passes_the_deploy_checks(tmp_path):
    result = run(DEPLOY_CHECKS, tmp_path, **GOOD)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


TASK_BACKEND = (
    "import django; django.setup(); from django.tasks import task_backends; "
    "print(type(task_backends['default']).__name__)"
)


def manage(tmp_path, command, **env):
    """manage.py as whoever runs the site types it, with the production settings."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        "STATIC_ROOT": str(tmp_path / "static"),
        **{name: value for name, value in env.items() if value is not None},
    }
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
    if "LOCAL_TRIAL" not in env:
        environment.pop("LOCAL_TRIAL", None)
    return subprocess.run(
        [sys.executable, "manage.py", *command], cwd=PROJECT, env=environment,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("site_url", "why"),
    [
        (None, "it is not set"),
        ("http://127.0.0.1:8000", "is this machine's own address"),
        ("https://localhost", "is this machine's own address"),
        ("https://[::1]:8443", "is this machine's own address"),
        ("http://news.example", "is not https"),
        ("https://news.example/skillo/", "has more than a scheme and a host"),
    ],
    ids=["missing", "loopback", "localhost", "ipv6-loopback", "plain-http", "a-path"],
)
def test_production_refuses_to_start_without_the_sites_public_address(tmp_path, site_url, why):
    result = manage(tmp_path, ["check", "--deploy"], **GOOD | {"SITE_URL": site_url})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("Skillo cannot start: SITE_URL must be the site's public https")
    assert why in lines[0]
    assert "feeds' ids, the fediverse accounts and the links in newsletters" in lines[0]


def test_a_development_key_is_refused_for_what_it_is_not_for_its_length(tmp_path):
    key = "django-insecure-" + secrets.token_urlsafe(45)
    assert len(key) >= 75
    result = manage(tmp_path, ["check"], **GOOD | {"SECRET_KEY": key})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    # The reason first: a 75-character key is not refused for being short.
    assert lines[0].startswith(
        "Skillo cannot start: SECRET_KEY starts with 'django-insecure', Django's prefix "
        "for development keys"
    )


@pytest.mark.parametrize(
    ("setting", "value", "why"),
    [
        ("EMAIL_PORT", "twenty-five", "EMAIL_PORT: 'twenty-five' is not a whole number"),
        ("SECURE_HSTS_SECONDS", "1y", "SECURE_HSTS_SECONDS: '1y' is not a whole number"),
        ("TASK_RETRY_DELAY", "soon", "TASK_RETRY_DELAY: 'soon' is not a number"),
        ("SECURE_SSL_REDIRECT", "flase", "SECURE_SSL_REDIRECT: 'flase' is neither true nor"),
        ("TIME_ZONE", "Mars/Olympus", "TIME_ZONE: 'Mars/Olympus' is not a time zone"),
        ("DATABASE_URL", "mysqlx://db/skillo", "DATABASE_URL: cannot be read as a database"),
    ],
    ids=["port", "hsts", "retry-delay", "yes-no", "time-zone", "database"],
)
def test_a_value_that_cannot_be_read_stops_the_start_with_one_line_naming_it(
    tmp_path, setting, value, why
):
    result = manage(tmp_path, ["check"], **GOOD | {setting: value})
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"Skillo cannot start: {why}")


def test_an_unreadable_database_address_is_named_without_its_password(tmp_path):
    url = "postgres://skillo:hunter2-secret@db.internal:fivefourthreetwo/skillo"
    result = manage(tmp_path, ["check"], **GOOD | {"DATABASE_URL": url})
    assert result.returncode == 1
    assert "DATABASE_URL" in result.stderr
    assert "hunter2-secret" not in result.stderr


def test_a_local_trial_starts_on_this_machines_address_but_fails_the_deploy_checks(tmp_path):
    trial = GOOD | {"SITE_URL": "http://127.0.0.1:8000", "LOCAL_TRIAL": "true"}
    assert manage(tmp_path, ["check"], **trial).returncode == 0
    deploy = manage(tmp_path, ["check", "--deploy"], **trial)
    assert deploy.returncode == 1
    assert "(skillo.E004) LOCAL_TRIAL is on" in deploy.stderr


def test_a_local_trial_still_needs_https_on_another_host(tmp_path):
    trial = GOOD | {"SITE_URL": "http://news.example", "LOCAL_TRIAL": "true"}
    result = manage(tmp_path, ["check"], **trial)
    assert result.returncode == 1 and "is not https" in result.stderr


FEED_AUTHORITY = (
    "import django; django.setup(); from django.conf import settings; "
    "print(settings.SKILLO_FEED_ID_AUTHORITY, settings.SKILLO_SITE_URL)"
)


def test_the_feed_ids_authority_is_the_sites_host_unless_set(tmp_path):
    result = run(FEED_AUTHORITY, tmp_path, **GOOD | {"SITE_URL": "https://news.example.org/"})
    assert result.stdout.split() == ["news.example.org", "https://news.example.org"]
    chosen = run(FEED_AUTHORITY, tmp_path, **GOOD, FEED_ID_AUTHORITY="skillo.example")
    assert chosen.stdout.split() == ["skillo.example", "https://news.example"]


def test_gunicorn_without_the_sites_address_stops_with_one_line(tmp_path):
    """Not a worker started again and again: gunicorn's "failed to boot" ends it."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.sqlite3'}",
        **GOOD,
    }
    environment.pop("SITE_URL")
    environment.pop("LOCAL_TRIAL", None)
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "skillo.wsgi:application", "--bind",
         "127.0.0.1:0", "--workers", "2", "--no-control-socket"],
        cwd=PROJECT, env=environment, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode != 0
    said = [line for line in result.stderr.splitlines() if "Skillo cannot start" in line]
    assert said and said[0].startswith("Skillo cannot start: SITE_URL must be"), result.stderr
    # (gunicorn's arbiter then prints its own HaltServer traceback, which is gunicorn's.)
    assert "Worker failed to boot" in result.stderr
    assert "Exception in worker process" not in result.stderr


def test_production_mail_goes_through_the_signing_backend(tmp_path):
    code = "import django; django.setup(); from django.conf import settings as s; "
    code += "print(s.MAILERS['default']['BACKEND'])"
    result = run(code, tmp_path, **GOOD, EMAIL_BACKEND=None)
    assert result.stdout.strip() == "newsletters.backends.EmailBackend", result.stderr


def test_the_database_queues_the_tasks(tmp_path):
    result = run(TASK_BACKEND, tmp_path, **GOOD)
    assert (result.returncode, result.stdout.strip()) == (0, "DatabaseBackend"), result.stderr


def test_a_start_with_the_old_redis_queue_set_says_to_drain_and_unset_it(tmp_path):
    # Tasks may still wait in that Redis, which nothing runs any more.
    result = manage(tmp_path, ["check"], **GOOD, TASKS_URL="redis://127.0.0.1:1/2")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Skillo cannot start: TASKS_URL: tasks are queued in the database")
    assert "empty the Redis queue, then unset TASKS_URL" in lines[0]


def test_allowing_private_addresses_makes_the_deploy_checks_warn(tmp_path):
    result = run(DEPLOY_CHECKS, tmp_path, **GOOD, ALLOW_PRIVATE_ADDRESSES="true")
    assert result.returncode != 0
    assert "(skillo.W001) ALLOW_PRIVATE_ADDRESSES is on" in result.stderr


def test_production_serves_the_hashed_stylesheet_without_the_debug_server(
    tmp_path, production_static
):
    # The static files as collectstatic leaves them with the production settings.
    code = """
import django
django.setup()
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
client = Client(HTTP_HOST="news.example", HTTP_X_FORWARDED_PROTO="https")
page = client.get("/").content.decode()
href = page.split('rel="stylesheet" href="', 1)[1].split('"', 1)[0]
css = client.get(href)
cache = css.headers["Cache-Control"].replace(" ", "")
print(href, css.status_code, b"prefers-color-scheme" in b"".join(css), cache)
"""
    result = run(code, tmp_path, **GOOD, STATIC_ROOT=str(production_static))
    assert result.returncode == 0, result.stderr
    href, status, has_css, cache = result.stdout.split()
    assert href.startswith("/static/css/skillo.") and href != "/static/css/skillo.css"
    assert (status, has_css) == ("200", "True")
    assert "immutable" in cache


CONNECTION = (
    "import django; django.setup(); from django.db import connection; "
    "from django.conf import settings; connection.ensure_connection(); "
    "cursor = connection.cursor(); cursor.execute('PRAGMA cache_size'); "
    "print(settings.DATABASES['default']['CONN_MAX_AGE'], cursor.fetchone()[0])"
)


def test_production_keeps_each_processs_connection_and_a_bigger_sqlite_cache(tmp_path):
    """A new connection per request made SQLite read every page from the file again."""
    result = run(CONNECTION, tmp_path, **GOOD, CONN_MAX_AGE=None)
    assert result.stdout.split() == ["60", str(-64 * 1024)], result.stderr


def test_the_environment_sets_the_connections_age_and_the_sqlite_cache(tmp_path):
    result = run(CONNECTION, tmp_path, **GOOD, CONN_MAX_AGE="0", SQLITE_CACHE_MB="8")
    assert result.stdout.split() == ["0", str(-8 * 1024)], result.stderr


# ALLOWED_HOSTS, HSTS and the deploy checks of the site's address and DKIM key

HOSTS_ANSWER = """
import django
django.setup()
from django.test import Client
for host in {hosts!r}:
    answer = Client(HTTP_HOST=host, HTTP_X_FORWARDED_PROTO="https").get("/health/ready/")
    print(host, answer.status_code)
"""


def answers(tmp_path, static, hosts, **env):
    # (A refusal is the site's 400 page, which names its stylesheet by its hashed name.)
    result = run(HOSTS_ANSWER.format(hosts=hosts), tmp_path, STATIC_ROOT=str(static), **env)
    assert result.returncode == 0, result.stderr
    return dict(line.split() for line in result.stdout.splitlines())


def test_without_allowed_hosts_readers_on_the_sites_host_are_served(tmp_path, production_static):
    site = GOOD | {"ALLOWED_HOSTS": None, "SITE_URL": "https://news.example.org"}
    hosts = ["news.example.org", "127.0.0.1", "elsewhere.example"]
    assert answers(tmp_path, production_static, hosts, **site) == {
        "news.example.org": "200", "127.0.0.1": "400", "elsewhere.example": "400",
    }  # fmt: skip


def test_a_local_trial_without_allowed_hosts_answers_on_this_machines_names(
    tmp_path, production_static
):
    trial = GOOD | {
        "ALLOWED_HOSTS": None, "SITE_URL": "http://127.0.0.1:8010", "LOCAL_TRIAL": "true",
    }  # fmt: skip
    hosts = ["127.0.0.1:8010", "localhost:8010", "elsewhere.example"]
    assert answers(tmp_path, production_static, hosts, **trial) == {
        "127.0.0.1:8010": "200", "localhost:8010": "200", "elsewhere.example": "400",
    }  # fmt: skip


def test_the_deploy_checks_refuse_a_site_host_that_allowed_hosts_lacks(tmp_path):
    result = manage(tmp_path, ["check", "--deploy"], **GOOD | {"ALLOWED_HOSTS": "other.example"})
    assert result.returncode == 1
    assert "(skillo.E017) SITE_URL's host 'news.example' is not in ALLOWED_HOSTS" in result.stderr


def test_the_deploy_checks_refuse_a_dkim_key_file_that_is_not_there(tmp_path):
    missing = tmp_path / "dkim" / "newsletter.pem"
    result = manage(
        tmp_path, ["check", "--deploy"], **GOOD,
        DKIM_DOMAIN="news.example", DKIM_PRIVATE_KEY_FILE=str(missing),
    )  # fmt: skip
    assert result.returncode == 1
    assert f"(skillo.E018) DKIM_PRIVATE_KEY_FILE {missing} cannot be read" in result.stderr


HSTS = """
import django
django.setup()
from django.test import Client
answer = Client(HTTP_HOST="news.example", HTTP_X_FORWARDED_PROTO="https").get("/health/ready/")
print(answer["Strict-Transport-Security"])
"""


@pytest.mark.parametrize(
    ("env", "header"),
    [
        ({}, "max-age=31536000; includeSubDomains"),
        ({"SECURE_HSTS_PRELOAD": "true"}, "max-age=31536000; includeSubDomains; preload"),
        ({"SECURE_HSTS_INCLUDE_SUBDOMAINS": "false"}, "max-age=31536000"),
    ],
    ids=["default", "preload", "no-subdomains"],
)
def test_hsts_asks_preloading_only_when_the_site_chooses_it(tmp_path, env, header):
    result = run(HSTS, tmp_path, **GOOD, **env)
    assert result.stdout.strip() == header, result.stderr


def test_a_local_trial_keeps_the_development_databases_feed_authority(tmp_path):
    trial = GOOD | {"SITE_URL": "http://127.0.0.1:8000", "LOCAL_TRIAL": "true"}
    result = run(FEED_AUTHORITY, tmp_path, **trial)
    assert result.stdout.split() == ["skillo.example", "http://127.0.0.1:8000"], result.stderr


# What production logs on standard error: gunicorn as deployed, with one page that fails

FAILING_SITE = """
from skillo.settings.production import *

ROOT_URLCONF = "failing_urls"
"""
FAILING_URLS = """
from django.urls import path

from skillo.urls import *


def fails(request):
    raise ZeroDivisionError("the page's own bug")


urlpatterns = [path("fails/", fails), *urlpatterns]
"""


@pytest.fixture(scope="module")
def logged_site(tmp_path_factory, production_static):
    """gunicorn with the production settings, its standard error kept, and a page whose
    view raises (failing_urls, beside the project's own)."""
    folder = tmp_path_factory.mktemp("logged")
    (folder / "failing_site.py").write_text(FAILING_SITE)
    (folder / "failing_urls.py").write_text(FAILING_URLS)
    port = free_port()
    env = {
        **os.environ, **GOOD,
        "DJANGO_SETTINGS_MODULE": "failing_site",
        "PYTHONPATH": str(folder),
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(production_static),
    }  # fmt: skip
    for name in ("DJANGO_ALLOW_ASYNC_UNSAFE", "LOCAL_TRIAL", "DEBUG"):
        env.pop(name, None)
    log = folder / "stderr.log"
    with open(log, "wb") as stderr:
        process = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "skillo.wsgi:application",
             "--bind", f"127.0.0.1:{port}", "--workers", "1", "--no-control-socket"],
            cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip
    site = LoggedSite(f"http://127.0.0.1:{port}", log)
    try:
        until(lambda: site.get("/health/live/")[0] is not None, "gunicorn answering", 120)
        yield site
    finally:
        process.terminate()
        process.wait(timeout=30)


class LoggedSite:
    def __init__(self, address, log):
        self.address, self.log = address, log

    def get(self, path, host="news.example", **headers):
        request = urllib.request.Request(
            self.address + path,
            headers={"Host": host, "X-Forwarded-Proto": "https", **headers},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.headers
        except urllib.error.HTTPError as error:
            return error.code, error.headers
        except OSError:
            return None, {}

    def logged(self, text):
        """The log's lines from the first holding ``text`` on, once one does."""
        lines = until(
            lambda: text in self.log.read_text() and self.log.read_text().splitlines(),
            f"{text!r} in the log",
        )
        return lines[next(i for i, line in enumerate(lines) if text in line) :]


def test_a_500_is_logged_with_its_traceback_and_the_request_id_the_reader_was_given(
    logged_site,
):
    status, headers = logged_site.get("/fails/")
    assert status == 500
    request_id = headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", request_id)
    lines = logged_site.logged(f"[request {request_id}]")
    assert "ERROR django.request" in lines[0] and "Internal Server Error: /fails/" in lines[0]
    assert "Traceback (most recent call last):" in lines[1]
    assert any('raise ZeroDivisionError("the page\'s own bug")' in line for line in lines)


def test_a_refused_host_is_logged_in_one_line(logged_site):
    status, headers = logged_site.get("/", host="not-this-site.example")
    assert status == 400
    lines = logged_site.logged(f"[request {headers['X-Request-ID']}]")
    assert "django.security.DisallowedHost" in lines[0]
    assert "Invalid HTTP_HOST header: 'not-this-site.example'" in lines[0]
    assert len(lines) == 1 or not lines[1].startswith("Traceback")


def test_a_request_id_from_the_client_is_not_taken_without_a_trusted_proxy(logged_site):
    _, headers = logged_site.get("/health/ready/", **{"X-Request-ID": "forged-id"})
    assert re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-ID"])
