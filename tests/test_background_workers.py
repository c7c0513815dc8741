"""Real worker processes (manage.py run_worker) on the suite's own database: a worker
killed with kill -9 mid-task loses nothing, and SIGTERM lets the running task finish.

The workers must see what the test commits: on PostgreSQL the suite's test database,
on SQLite a file (make test's server run names one: SKILLO_TEST_DATABASE_FILE)."""

import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection
from django.tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from background.models import WorkerBeat
from fediverse.actors import site_actor
from fediverse.delivery import queue
from members.tasks import send_sign_in_link
from news.models import Tag

from . import background_tasks as tasks
from .mail_server import MailServer
from .waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[1]
EVERY_QUEUE = "urgent:1,default:1,remote:1"


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

    def start(name, queue=None, **environment):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.test",
            "DATABASE_URL": database_url(),
            **{key: str(value) for key, value in environment.items()},
        }
        log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115
        logs.append(log)
        process = subprocess.Popen(
            [
                sys.executable, "manage.py", "run_worker", "--interval", "0.1", "--id", name,
                *(["--queue", queue] if queue else []),
            ],
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
            [sys.executable, "manage.py", "run_workers", "--workers", EVERY_QUEUE],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            until(lambda: WorkerBeat.objects.count() == 3, "three workers beat")
            assert sorted(WorkerBeat.objects.values_list("queues", flat=True)) == [
                "default", "remote", "urgent",
            ]  # fmt: skip
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


def test_a_hangup_starts_new_workers_at_once_and_the_old_one_finishes_its_task(tmp_path):
    """make deploy's SIGHUP: the queues are served by new workers (the code installed
    now) while the task a replaced worker had begun still ends, on that worker."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.test",
        "DATABASE_URL": database_url(),
    }
    running = tasks.held.enqueue("deploying")
    with open(tmp_path / "supervisor.log", "wb") as log:
        supervisor = subprocess.Popen(
            [sys.executable, "manage.py", "run_workers", "--workers", EVERY_QUEUE],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            until(lambda: has_topic("deploying-started"), "a worker starts the task")
            # All workers seen beating first (a busy machine may start a task before its
            # worker's first beat is written): the new ones are then told apart.
            until(
                lambda: (
                    WorkerBeat.objects.count() == 3
                    and set(DBTaskResult.objects.get(id=running.id).worker_ids)
                    <= set(WorkerBeat.objects.values_list("worker_id", flat=True))
                ),
                "every worker's heartbeat",
            )
            first = set(WorkerBeat.objects.values_list("worker_id", flat=True))
            supervisor.send_signal(signal.SIGHUP)
            until(
                lambda: (
                    len(set(WorkerBeat.objects.values_list("worker_id", flat=True)) - first) == 3
                ),
                "a new worker for each queue",
            )
            assert not has_topic("deploying")  # Still running, on its first worker.
            Tag.objects.create(name="deploying-released")
            until(
                lambda: DBTaskResult.objects.get(id=running.id).status == "SUCCESSFUL",
                "the task ends",
            )
            [old] = DBTaskResult.objects.get(id=running.id).worker_ids
            assert old in first
            old_pid = int(old.rsplit(":", 1)[1])
            until(lambda: not Path(f"/proc/{old_pid}").exists() or zombie(old_pid),
                  "the replaced worker exits")  # fmt: skip
            supervisor.send_signal(signal.SIGTERM)
            assert supervisor.wait(timeout=60) == 0
        finally:
            if supervisor.poll() is None:
                supervisor.kill()


def zombie(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except OSError:
        return True


def test_a_sign_in_mail_is_sent_by_the_urgent_worker_while_the_default_queue_is_held(
    start_worker, tmp_path
):
    server = MailServer(tmp_path / "maildir")
    try:
        holding = tasks.held.enqueue("bulk")
        behind = tasks.record.enqueue("behind the bulk")
        mail = {
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": server.port,
        }
        start_worker("bulk-worker", queue="default", **mail)
        until(lambda: has_topic("bulk-started"), "the default queue's only worker is held")
        send_sign_in_link.enqueue("reader@example.org")
        start_worker("urgent-worker", queue="urgent", **mail)
        (message,) = until(lambda: server.to("reader@example.org"), "the sign-in mail")
        assert message["Subject"] == "Your link to sign in to Skillo"
        # Sent while the bulk work still held its worker, the task behind it waiting.
        assert DBTaskResult.objects.get(id=holding.id).status == TaskResultStatus.RUNNING
        assert DBTaskResult.objects.get(id=behind.id).status == TaskResultStatus.READY
        Tag.objects.create(name="bulk-released")
        until(lambda: has_topic("behind the bulk"), "the default queue goes on")
    finally:
        server.stop()


def test_deliveries_to_other_servers_wait_on_the_remote_queue_not_the_sites_own(
    start_worker, silent_host
):
    address, taken = silent_host
    queue(site_actor(), {"type": "Note"}, [f"{address}/inbox"])
    tasks.record.enqueue("site work")  # queued after the delivery
    start_worker("default-worker", queue="default", ALLOW_PRIVATE_ADDRESSES="1")
    until(lambda: has_topic("site work"), "the default queue's task runs")
    assert taken == []  # the silent server was not waited on
    start_worker("remote-worker", queue="remote", ALLOW_PRIVATE_ADDRESSES="1")
    until(lambda: taken, "the remote worker tries the delivery")


def test_a_task_that_never_ends_is_stopped_at_its_time_limit_and_the_next_one_runs(
    start_worker,
):
    endless = tasks.never_ends.enqueue("endless")
    tasks.record.enqueue("next")
    start_worker("limited", TASK_TIME_LIMIT=1, TASK_MAX_ATTEMPTS=1)
    until(lambda: has_topic("next"), "the next task runs")
    row = DBTaskResult.objects.get(id=endless.id)
    assert row.status == TaskResultStatus.FAILED
    assert row.exception_class_path == "background.worker.TimeLimitExceeded"
    assert "stopped after its time limit of 1 s" in row.traceback


def test_a_task_over_its_own_time_limit_is_stopped_and_tried_again_later(start_worker):
    endless = tasks.never_ends_within_its_own_limit.enqueue("own limit")
    tasks.record.enqueue("after it")
    start_worker("own-limit", TASK_RETRY_DELAY=600)  # the setting's limit: 300 s
    until(lambda: has_topic("after it"), "the next task runs")
    row = DBTaskResult.objects.get(id=endless.id)
    assert (row.status, len(row.worker_ids)) == (TaskResultStatus.READY, 1)
    assert row.run_after > row.started_at + timedelta(seconds=500), "after the back-off"


def test_a_task_stuck_where_the_alarm_cannot_reach_ends_its_workers_process(start_worker):
    stuck = tasks.stuck_where_no_signal_reaches.enqueue("stuck")
    first = start_worker("stuck", TASK_TIME_LIMIT=1, TASK_LEASE=2, TASK_MAX_ATTEMPTS=1)
    until(lambda: has_topic("stuck-started"), "the worker starts the task")
    assert first.wait(timeout=120) != 0, "its process is ended"
    # The lease gives the task back, as after any lost worker: here its last try.
    tasks.record.enqueue("after the stuck one")
    start_worker("next", TASK_LEASE=2, TASK_MAX_ATTEMPTS=1)
    until(lambda: has_topic("after the stuck one"), "the next worker runs the next task")
    until(
        lambda: DBTaskResult.objects.get(id=stuck.id).status == TaskResultStatus.FAILED,
        "the stuck task fails",
    )
