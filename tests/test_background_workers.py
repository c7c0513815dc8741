"""Real worker processes (manage.py run_worker) on the suite's own database: a worker
killed with kill -9 mid-task loses nothing, and SIGTERM lets the running task finish.

The workers must see what the test commits: on PostgreSQL the suite's test database,
on SQLite a file (make test's server run names one: SKILLO_TEST_DATABASE_FILE)."""

import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from background.models import WorkerBeat
from news.models import Tag

from . import background_tasks as tasks
from .waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[1]


def database_url():
    database = connection.settings_dict
    if connection.vendor == "postgresql":
        user, password = quote(database["USER"] or ""), quote(database["PASSWORD"] or "")
        host = database["HOST"] or os.environ.get("PGHOST", "")
        address = f"{quote(host, safe='')}:{database['PORT'] or 5432}"
        return f"postgres://{user}:{password}@{address}/{database['NAME']}"
    name = str(database["NAME"])
    if "memory" in name:
        pytest.fail(
            "Worker processes cannot see an in-memory SQLite database: run with "
            "SKILLO_TEST_DATABASE_FILE=/tmp/skillo-tests.sqlite3 (make test does)."
        )
    return f"sqlite:///{name}"


def has_topic(name):
    return Tag.objects.filter(name=name).exists()


@pytest.fixture
def start_worker(tmp_path):
    started, logs = [], []

    def start(name, **environment):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.test",
            "DATABASE_URL": database_url(),
            **{key: str(value) for key, value in environment.items()},
        }
        log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115
        logs.append(log)
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", "--interval", "0.1", "--id", name],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    for log in logs:
        log.close()


def test_a_task_whose_worker_is_killed_runs_again_on_another_once_its_lease_is_over(
    start_worker,
):
    result = tasks.slow.enqueue("survivor", 2)
    first = start_worker("first", TASK_LEASE=3)
    until(lambda: has_topic("survivor-started"), "the first worker starts the task")
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    start_worker("second", TASK_LEASE=3)
    until(lambda: has_topic("survivor"), "the second worker runs the task again")
    row = DBTaskResult.objects.get(id=result.id)
    until(lambda: DBTaskResult.objects.get(id=result.id).status == "SUCCESSFUL", "it is done")
    row.refresh_from_db()
    assert row.worker_ids == ["first", "second"]
    assert Tag.objects.filter(name="survivor").count() == 1


def test_a_task_longer_than_the_lease_runs_once_while_its_worker_lives(start_worker):
    result = tasks.slow.enqueue("long", 4)
    start_worker("steady", TASK_LEASE=1)
    until(lambda: has_topic("long-started"), "the first worker starts the task")
    start_worker("eager", TASK_LEASE=1)
    until(lambda: DBTaskResult.objects.get(id=result.id).status == "SUCCESSFUL", "it is done")
    assert DBTaskResult.objects.get(id=result.id).worker_ids == ["steady"]


def test_sigterm_lets_the_running_task_finish_and_takes_no_new_one(start_worker):
    running = tasks.slow.enqueue("finished", 1)
    waiting = tasks.record.enqueue("not taken")
    worker = start_worker("stopping")
    until(lambda: has_topic("finished-started"), "the worker starts the task")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    assert has_topic("finished")
    assert DBTaskResult.objects.get(id=running.id).status == TaskResultStatus.SUCCESSFUL
    assert DBTaskResult.objects.get(id=waiting.id).status == TaskResultStatus.READY


def test_ctrl_c_then_the_launchers_sigterm_still_lets_the_task_finish(start_worker):
    # make run: Ctrl-C reaches the worker, then the launcher's trap sends SIGTERM.
    running = tasks.slow.enqueue("finished anyway", 1)
    worker = start_worker("interrupted")
    until(lambda: has_topic("finished anyway-started"), "the worker starts the task")
    worker.send_signal(signal.SIGINT)
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    assert DBTaskResult.objects.get(id=running.id).status == TaskResultStatus.SUCCESSFUL


def test_a_task_outlasting_the_shutdown_timeout_goes_back_to_the_queue(start_worker):
    result = tasks.slow.enqueue("cut short", 120)
    worker = start_worker("impatient", TASK_SHUTDOWN_TIMEOUT=1)
    until(lambda: has_topic("cut short-started"), "the worker starts the task")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    row = DBTaskResult.objects.get(id=result.id)
    assert (row.status, row.worker_ids) == (TaskResultStatus.READY, [])
    assert not has_topic("cut short")


def test_the_supervisor_starts_a_killed_worker_again_and_stops_them_all(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.test",
        "DATABASE_URL": database_url(),
    }
    with open(tmp_path / "supervisor.log", "wb") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "manage.py", "run_workers", "--count", "2"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            until(lambda: WorkerBeat.objects.count() == 2, "two workers beat")
            first = set(WorkerBeat.objects.values_list("worker_id", flat=True))
            victim = int(sorted(first)[0].rsplit(":", 1)[1])
            os.kill(victim, signal.SIGKILL)
            until(
                lambda: set(WorkerBeat.objects.values_list("worker_id", flat=True)) - first,
                "a new worker in the killed one's place",
            )
            pids = [
                int(w.rsplit(":", 1)[1])
                for w in WorkerBeat.objects.values_list("worker_id", flat=True)
            ]
            supervisor.send_signal(signal.SIGTERM)
            assert supervisor.wait(timeout=60) == 0
        finally:
            if supervisor.poll() is None:
                supervisor.kill()
    alive = [pid for pid in pids if pid != victim and Path(f"/proc/{pid}").exists()]
    assert alive == []
