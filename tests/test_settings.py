"""Production settings, checked in a separate process as a deployment would load them."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

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


GOOD = {"SECRET_KEY": secrets.token_urlsafe(60), "ALLOWED_HOSTS": "news.example"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SECRET_KEY": None, "ALLOWED_HOSTS": "news.example"}, "Set SECRET_KEY"),
        ({"SECRET_KEY": "short", "ALLOWED_HOSTS": "news.example"}, "Set SECRET_KEY"),
        ({"SECRET_KEY": GOOD["SECRET_KEY"], "ALLOWED_HOSTS": None}, "Set ALLOWED_HOSTS"),
    ],
)
def test_production_refuses_to_start_without_real_settings(tmp_path, env, message):
    result = run("import django; django.setup()", tmp_path, **env)
    assert result.returncode != 0
    assert message in result.stderr


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


@pytest.mark.parametrize(
    ("url", "backend"), [(None, "DatabaseBackend"), ("redis://127.0.0.1:1/2", "RedisBackend")]
)
def test_tasks_url_picks_the_redis_queue_and_none_the_database(tmp_path, url, backend):
    result = run(TASK_BACKEND, tmp_path, **GOOD, TASKS_URL=url)
    assert (result.returncode, result.stdout.strip()) == (0, backend), result.stderr


def test_a_tasks_url_that_is_not_redis_stops_the_start(tmp_path):
    result = run("import django; django.setup()", tmp_path, **GOOD, TASKS_URL="amqp://q/")
    assert result.returncode != 0
    assert "TASKS_URL: unsupported queue" in result.stderr


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
