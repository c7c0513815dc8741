"""What `make run`'s worker prints (development settings, DEBUG on): one line per task,
the periodic tasks that ended well only when asked (verbosity 2), and mails decoded."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import time_machine
from django.utils import timezone

from newsletters import mail
from newsletters.links import confirm_url
from newsletters.models import Subscriber
from skillo.settings import development

ROOT = Path(__file__).resolve().parents[1]

# A task queued by hand (its id on standard output), then a worker until the queue is
# empty: on a new database it also queues and runs every periodic task, as at the first
# `make run`.
RUN_WORKER = """
import sys
import django
django.setup()
from django.core.management import call_command
from tests.background_tasks import record
print(record.enqueue("by hand").id)
call_command("run_worker", "--batch", "--id", "dev", verbosity=int(sys.argv[1]))
"""


def development_environment(database):
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    for name in ("DEBUG", "EMAIL_BACKEND", "TASKS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        environment.pop(name, None)
    return environment


@pytest.fixture(scope="module")
def worker_output(tmp_path_factory, demo_site):
    """verbosity -> (the queued task's id, the worker's lines)."""
    folder = tmp_path_factory.mktemp("worker-console")
    empty = demo_site / "migrated.sqlite3"
    output = {}
    for verbosity in (1, 2):
        database = folder / f"v{verbosity}.sqlite3"
        shutil.copy(empty, database)
        run = subprocess.run(
            [sys.executable, "-c", RUN_WORKER, str(verbosity)],
            cwd=ROOT, env=development_environment(database), capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        output[verbosity] = (run.stdout.strip(), run.stderr.splitlines())
    return output


def test_each_task_the_worker_runs_is_one_line(worker_output):
    task_id, lines = worker_output[1]
    said = [line for line in lines if task_id in line]
    assert len(said) == 1, lines
    assert said[0].endswith(f"INFO dev: task {task_id} (record) done")


def test_periodic_tasks_that_end_well_are_not_in_the_log(worker_output):
    _, lines = worker_output[1]
    assert not [line for line in lines if "fold_beacons" in line or "periodic" in line], lines


def test_at_verbosity_2_a_periodic_task_that_ends_well_is_one_line(worker_output):
    _, lines = worker_output[2]
    said = [line for line in lines if "fold_beacons" in line]
    assert len(said) == 1, lines
    assert said[0].endswith("(fold_beacons) done")


def test_make_runs_console_prints_the_newsletters_confirmation_link_whole(db, settings, capsys):
    settings.MAILERS = development.MAILERS
    subscriber = Subscriber.objects.create(email="reader@example.org")
    # The link is signed with the time: the same second for the mail and the test.
    with time_machine.travel(timezone.now(), tick=False):
        mail.confirmation(subscriber).send()
        link = confirm_url(subscriber)
    printed = capsys.readouterr().out
    assert len(link) > 76  # a quoted-printable line's length
    assert link in printed
    assert "Subject: Confirm your Skillo newsletter" in printed
