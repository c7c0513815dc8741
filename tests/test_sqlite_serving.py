"""SQLite serving several processes: concurrent saves never fail with "database is
locked", a save that waits too long tells the editor and keeps their text, and an online
backup taken during writes is a consistent, complete copy.

The suite's own SQLite database lives in memory; these tests use database files in a
temporary folder, written by separate processes as several server workers would.
"""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connection
from django.test import Client

from bench.sqlite_writers import run as run_writers
from skillo.outage import RETRY_AFTER_BUSY_SECONDS

from .test_admin import ADD_URL, form_data
from .test_outage import UnsavedText

BASE_DIR = Path(__file__).resolve().parent.parent


def manage(database, *args, timeout=120, **environ):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DATABASE_URL": f"sqlite:///{database}",
        **environ,
    }
    return subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args],
        env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """A migrated database file, copied for each test that needs one."""
    database = tmp_path_factory.mktemp("sqlite") / "template.sqlite3"
    result = manage(database, "migrate", "-v", "0")
    assert result.returncode == 0, result.stderr
    return database


@pytest.fixture
def database(migrated, tmp_path):
    copy = tmp_path / "db.sqlite3"
    source = sqlite3.connect(migrated)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    return copy


def test_connections_use_the_write_ahead_log_immediate_writes_and_a_busy_timeout(database):
    script = (
        "from django.db import connection\n"
        "c = connection.cursor()\n"
        "print([c.execute(f'PRAGMA {p}').fetchone()[0] "
        "for p in ('journal_mode', 'synchronous', 'busy_timeout')])\n"
        "print(connection.transaction_mode)\n"
    )
    result = manage(database, "shell", "-v", "0", "-c", script)
    assert result.stdout.split("\n")[:2] == ["['wal', 2, 20000]", "IMMEDIATE"], result.stderr


def writers(config, migrated, folder):
    """4 processes x 20 saves (bench/sqlite_writers.py) on a copy of the migrated file."""
    (folder / f"{config}.sqlite3").write_bytes(migrated.read_bytes())
    saved, locked, _ = run_writers(config, processes=4, saves=20, folder=folder)
    return saved, locked


def test_four_processes_saving_at_once_never_see_database_is_locked(migrated, tmp_path):
    assert writers("skillo", migrated, tmp_path) == (80, 0)


def test_with_djangos_default_sqlite_settings_the_same_saves_fail(migrated, tmp_path):
    # The run above is truly concurrent: with Django's defaults it fails.
    saved, locked = writers("django-default", migrated, tmp_path)
    assert saved + locked == 80 and locked > 0


HOLD_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()  # held until the test says so, however slow the machine
db.execute("COMMIT")
"""

SAVE = """
from datetime import date
from django.db import OperationalError
from news.models import Article
try:
    Article.objects.create(title="Waited", body="x", event_date=date(2024, 7, 24),
                           facts_verified=date(2024, 7, 1))
    print("saved")
except OperationalError as error:
    print(error)
"""


def save_while_locked(database, busy_timeout, release_after=None):
    """Try a save while another connection holds the write lock. With ``release_after``
    the lock is released that many seconds into the save; else only once it ended."""
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(database)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    ) as holder:  # fmt: skip
        assert holder.stdout.readline().strip() == "locked"
        with subprocess.Popen(
            [sys.executable, str(BASE_DIR / "manage.py"), "shell", "-v", "0", "-c", SAVE],
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
                 "DATABASE_URL": f"sqlite:///{database}",
                 "SQLITE_BUSY_TIMEOUT": str(busy_timeout)},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        ) as saver:  # fmt: skip
            if release_after is not None:
                time.sleep(release_after)
                holder.stdin.write("\n")
                holder.stdin.flush()
            out, err = saver.communicate(timeout=120)
        if release_after is None:
            holder.stdin.write("\n")
            holder.stdin.flush()
    return out.strip() or err


def test_a_save_waits_for_another_write_to_finish(database):
    assert save_while_locked(database, busy_timeout=60, release_after=2) == "saved"


def test_a_save_that_waits_past_the_busy_timeout_fails_as_locked(database):
    assert save_while_locked(database, busy_timeout=0.2) == "database is locked"


@pytest.fixture
def editor(db, django_user_model):
    user = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.fixture
def busy():
    """Every write fails as SQLite does when the busy timeout runs out."""

    def refuse_writes(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            raise OperationalError("database is locked")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(refuse_writes):
        yield


def test_an_editor_whose_save_times_out_is_told_and_gets_their_text_back(editor, busy):
    response = editor.post(ADD_URL, form_data(title="Rust 1.80", body="Typed text."))
    page = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER_BUSY_SECONDS)
    assert "<h1>Your changes were NOT saved</h1>" in page
    assert "busy with other saves" in page
    shown = UnsavedText(page).by_label()
    assert (shown["Title"], shown["Body"]) == ("Rust 1.80", "Typed text.")


WRITER = """
import pathlib, time
from datetime import date
from django.db import transaction
from news.models import Article, Source
stop = pathlib.Path(STOP_FILE)
deadline = time.monotonic() + 120  # in case the test dies before it says stop
n = 0
while not stop.exists() and time.monotonic() < deadline:
    with transaction.atomic():
        article = Article.objects.create(
            title=f"Story {n}", body="Text.", event_date=date(2024, 7, 24),
            facts_verified=date(2024, 7, 1), status="published")
        Source.objects.create(article=article, title="Notes", publisher="Example")
    print(article.pk, time.time(), flush=True)
    n += 1
"""


def test_a_backup_during_writes_is_consistent_and_holds_every_committed_article(database, tmp_path):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
           "DATABASE_URL": f"sqlite:///{database}"}  # fmt: skip
    destination = tmp_path / "backup.sqlite3"
    stop = tmp_path / "stop"
    with subprocess.Popen(
        [sys.executable, str(BASE_DIR / "manage.py"), "shell", "-v", "0", "-c",
         WRITER.replace("STOP_FILE", repr(str(stop)))],
        env=env, stdout=subprocess.PIPE, text=True,
    ) as writer:  # fmt: skip
        lines = [writer.stdout.readline()]  # writes are under way
        assert lines[0]
        time.sleep(0.5)
        started = time.time()
        result = manage(database, "backup_database", str(destination))
        finished = time.time()
        # However slow the machine, let the writer commit once more after the backup.
        while float(lines[-1].split()[1]) <= finished:
            lines.append(writer.stdout.readline())
            assert lines[-1], "the writer stopped before the backup finished"
        stop.touch()
        output = "".join(lines) + writer.communicate(timeout=60)[0]
    assert result.returncode == 0, result.stderr
    committed = [line.split() for line in output.splitlines()]
    before = {int(pk) for pk, when in committed if float(when) < started}

    copy = sqlite3.connect(destination)
    assert copy.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    ids = {pk for (pk,) in copy.execute("SELECT id FROM news_article")}
    sources = copy.execute("SELECT count(*) FROM news_source").fetchone()[0]
    copy.close()
    assert before <= ids  # every article committed before the backup began
    assert ids == set(range(min(ids), max(ids) + 1))  # a moment in time, no gaps
    assert sources == len(ids)  # each article with its source: whole transactions
    # The writer went on during and after the backup: it was not blocked.
    assert max(int(pk) for pk, _ in committed) > max(ids)


def test_a_backup_never_overwrites_a_file(database, tmp_path):
    existing = tmp_path / "keep.sqlite3"
    existing.write_text("precious")
    result = manage(database, "backup_database", str(existing))
    assert result.returncode != 0
    assert "exists already" in result.stderr
    assert existing.read_text() == "precious"


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's advice")
def test_on_postgresql_the_command_says_to_use_pg_dump(tmp_path):
    with pytest.raises(CommandError, match="pg_dump --format=custom"):
        call_command("backup_database", str(tmp_path / "x.dump"))
