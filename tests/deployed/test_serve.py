"""`make serve`'s start-up as whoever runs the site types it: after `make run`, with no
SECRET_KEY, with a database it cannot migrate. Each on a SQLite file of its own (so once,
in make test's SQLite servers' run)."""

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import copy_demo_site
from tests.redis_server import free_port
from tests.waiting import poll

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="make serve on a SQLite file of its own; once, in the SQLite pass, is enough",
)


def environment(folder, **settings):
    """A shell's environment, less what the tests set (make serve is typed by a person)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {
            "DJANGO_SETTINGS_MODULE", "SECRET_KEY", "SITE_URL", "LOCAL_TRIAL",
            "ALLOWED_HOSTS", "CACHE_URL", "TASKS_URL", "DEBUG", "EMAIL_BACKEND",
            "DJANGO_ALLOW_ASYNC_UNSAFE", "MAKEFLAGS", "MFLAGS",
            "MAKELEVEL", "MAKEOVERRIDES",
        }
    }  # fmt: skip
    env |= {
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "static"),
        "MEDIA_ROOT": str(folder / "media"),
        "CACHE_URL": f"file://{folder / 'cache'}",
        "WEB_CONCURRENCY": "1",
        **settings,
    }
    return env


@contextlib.contextmanager
def make_serve(folder, port, env):
    """make serve on 127.0.0.1:port, its output in folder/serve.log; stopped at the end."""
    log = folder / "serve.log"
    with open(log, "wb") as output:
        process = subprocess.Popen(
            ["make", "--no-print-directory", "serve", f"SERVE_BIND=127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        yield process, log
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def ended(process, log, timeout=300):
    """make serve's exit status and output, once it has exited by itself (None if it
    still runs after ``timeout`` s: a server started)."""
    poll(lambda: process.poll() is not None, timeout, interval=0.2)
    return process.poll(), log.read_text(errors="replace")


def status(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            return answer.status
    except OSError:
        return None


@pytest.fixture
def static(tmp_path, production_static):
    """The static files as production collected them (make serve finds them unchanged)."""
    shutil.copytree(production_static, tmp_path / "static")


def test_make_serve_after_make_run_starts_a_local_trial_with_a_key_for_that_run_only(
    tmp_path, demo_site, static
):
    # make run's database: migrated and loaded with the demo under the development
    # settings, as published from make run's address (this test's port: make run's
    # 8000 may be taken on a machine running tests).
    copy_demo_site(demo_site, tmp_path / "db.sqlite3", tmp_path / "media")
    port = free_port()
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        db.execute("UPDATE news_siteidentity SET site_url = ?", [f"http://127.0.0.1:{port}"])
    with make_serve(tmp_path, port, environment(tmp_path)) as (process, log):
        up = poll(lambda: process.poll() is not None or status(port, "/health/ready/"), 300, 0.5)
        said = log.read_text(errors="replace")
        assert up == 200, said
    assert "No SECRET_KEY: a throwaway key for this trial" in said
    assert not (ROOT / ".secret-key").exists()


def test_make_serve_for_a_public_site_without_a_secret_key_stops_saying_so(tmp_path, static):
    env = environment(tmp_path, SITE_URL="https://news.example.test")
    with make_serve(tmp_path, free_port(), env) as (process, log):
        code, said = ended(process, log)
    assert code not in {None, 0}
    assert "Skillo cannot start: Set SECRET_KEY" in said
    assert "Skillo (production settings) on" not in said
    assert not (ROOT / ".secret-key").exists()


def test_make_serve_stops_at_a_failed_migrate_without_starting_gunicorn(tmp_path, static):
    env = environment(
        tmp_path, SITE_URL="https://news.example.test", SECRET_KEY="k" * 60,
        CACHE_URL="dummy://",
        DATABASE_URL=f"sqlite:///{tmp_path / 'no such folder' / 'db.sqlite3'}",
    )  # fmt: skip
    with make_serve(tmp_path, free_port(), env) as (process, log):
        code, said = ended(process, log)
    assert code not in {None, 0}
    assert "unable to open database file" in said
    assert "make serve stopped: manage.py migrate failed (above)." in said
    assert "Skillo (production settings) on" not in said
