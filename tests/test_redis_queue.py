"""The task queue in Redis (TASKS_URL, background.redis_queue) on a real redis-server of
this module's own (stopped in one test), with real worker processes (manage.py
run_worker) on the suite's own database, as tests/test_background_workers.py runs the
database queue's. Retries, leases and back-offs are short here (a second or two)."""

import logging
import os
import shutil
import signal
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from itertools import pairwise

import pytest
import time_machine
from django.core.management import call_command
from django.db import transaction
from django.tasks import TaskResultStatus
from django.tasks.exceptions import TaskResultDoesNotExist
from django.test import Client
from django.utils import timezone
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from redis.exceptions import ConnectionError as RedisConnectionError
from rq.job import Job
from rq.registry import FailedJobRegistry, FinishedJobRegistry

from background import tasks as background_tasks
from background.models import PeriodicRun
from background.redis_queue import SERIALIZER, RedisWorker, redis_backend, task_path
from news.models import Tag
from skillo.settings import base as base_settings

from . import background_tasks as tasks
from .factories import ArticleFactory
from .redis_server import RedisServer
from .test_background_workers import ROOT, database_url
from .waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

RETRY_DELAY, MAX_ATTEMPTS, LEASE = 1, 3, 2


@pytest.fixture(scope="module")
def redis():
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    server = RedisServer()
    server.start()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def backend(redis, settings):
    """The Redis queue as the default backend, empty, with short retries."""
    if redis.process is None:  # stopped by the test before
        redis.start()
    settings.TASKS = {
        "default": {
            "BACKEND": "background.redis_queue.RedisBackend",
            "QUEUES": ["default"],
            "OPTIONS": {"URL": redis.url},
        }
    }
    settings.SKILLO_TASK_RETRY_DELAY = RETRY_DELAY
    settings.SKILLO_TASK_MAX_ATTEMPTS = MAX_ATTEMPTS
    settings.SKILLO_TASK_LEASE = LEASE
    settings.SKILLO_PERIODIC_TASKS = {}  # in this process; the workers have the settings'
    backend = redis_backend()
    backend.connection.flushall()
    return backend


@pytest.fixture
def start_worker(tmp_path, redis):
    started, logs = [], []
    metrics = tmp_path / "metrics"
    metrics.mkdir()

    def start(name, **environment):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.test",
            "DATABASE_URL": database_url(),
            "TASKS_URL": redis.url,
            "TASK_RETRY_DELAY": str(RETRY_DELAY),
            "TASK_MAX_ATTEMPTS": str(MAX_ATTEMPTS),
            "TASK_LEASE": str(LEASE),
            "PROMETHEUS_MULTIPROC_DIR": str(metrics),
            **{key: str(value) for key, value in environment.items()},
        }
        log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115
        logs.append(log)
        process = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", "--interval", "0.2", "--id", name],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append(process)
        return process

    start.counted = lambda: counted(metrics)
    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    for log in logs:
        log.close()


def counted(metrics):
    """The workers' task counts (metrics.registry.TASKS): (task, outcome) -> count."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics))
    return {
        (sample.labels["task"], sample.labels["outcome"]): sample.value
        for family in registry.collect()
        for sample in family.samples
        if sample.name == "skillo_tasks_total"
    }


def has_topic(name):
    return Tag.objects.filter(name=name).exists()


def status_of(task, result):
    return task.get_result(result.id).status


# Queued at the commit, with the settings' retries


def test_a_task_queued_in_a_save_that_rolls_back_is_never_pushed_one_that_commits_is_at_commit(
    backend,
):
    queue = backend.queue("default")
    with pytest.raises(RuntimeError), transaction.atomic():
        tasks.record.enqueue("never")
        raise RuntimeError("the save failed")
    assert queue.count == 0
    with transaction.atomic():
        result = tasks.record.enqueue("committed")
        assert queue.count == 0  # not before the commit
    assert queue.job_ids == [result.id]
    queued = tasks.record.get_result(result.id)
    assert (queued.status, queued.args) == (TaskResultStatus.READY, ["committed"])
    with pytest.raises(TaskResultDoesNotExist):
        tasks.record.get_result("no-such-task")


def test_a_queued_job_carries_the_retries_and_back_off_of_the_settings(settings, backend):
    settings.SKILLO_TASK_RETRY_DELAY, settings.SKILLO_TASK_MAX_ATTEMPTS = 30, 5
    result = tasks.record.enqueue("x")
    job = Job.fetch(result.id, connection=backend.connection, serializer=SERIALIZER)
    assert (job.retries_left, job.retry_intervals) == (4, [30, 60, 120, 240])
    assert job.timeout == -1  # no time limit of RQ's: the shutdown timer's SIGALRM is free


def test_with_redis_down_a_task_queued_in_a_transaction_is_lost_and_said_so(redis, caplog):
    redis.stop()
    with caplog.at_level(logging.ERROR, logger="background"), transaction.atomic():
        tasks.record.enqueue("lost")  # the commit goes through
    assert "lost: the task queue could not be reached after the commit" in caplog.text
    with pytest.raises(RedisConnectionError):  # outside a transaction the caller is told
        tasks.record.enqueue("refused")


def test_a_task_runs_after_its_run_after_and_is_given_its_context(backend):
    later = timezone.now() + timedelta(hours=1)
    result = tasks.note_attempt.using(run_after=later).enqueue("deferred")
    assert backend.queue("default").count == 0  # waiting in the scheduled registry
    assert tasks.note_attempt.get_result(result.id).status == TaskResultStatus.READY
    RedisWorker("in-process", batch=True, handle_signals=False).run()
    assert not has_topic("deferred try 1")
    with time_machine.travel(later + timedelta(seconds=2)):
        RedisWorker("in-process", batch=True, handle_signals=False).run()
    assert has_topic("deferred try 1")
    assert tasks.note_attempt.get_result(result.id).status == TaskResultStatus.SUCCESSFUL


# Real workers


def test_a_worker_runs_queued_and_periodic_tasks_get_result_reads_them_and_they_are_counted(
    backend, start_worker
):
    ran = tasks.record.enqueue("ran")
    returned = background_tasks.prune_results.enqueue()
    start_worker("runner")
    periodic = base_settings.SKILLO_PERIODIC_TASKS
    expected = sorted(
        [tasks.record.module_path, background_tasks.prune_results.module_path]
        + [path for path, _ in periodic.values()]
    )
    redis = backend.connection
    # The digests' planner queues each digest's send for its period's end, already past:
    # those may run too, beside the ones this test waits for.
    queued_by_periodic = {"newsletters.tasks.send_issue"}

    def ended():
        ids = FinishedJobRegistry("default", connection=redis).get_job_ids(cleanup=False)
        ids += FailedJobRegistry("default", connection=redis).get_job_ids(cleanup=False)
        jobs = Job.fetch_many(ids, redis, serializer=SERIALIZER)
        ours = [job for job in jobs if task_path(job) not in queued_by_periodic]
        return sorted(task_path(job) for job in ours) == expected and jobs

    jobs = until(ended, "the worker runs the two tasks and queues and runs the periodic ones")
    assert {task_path(job) for job in jobs} <= set(expected) | queued_by_periodic
    outcomes = sorted(
        (task_path(job), job.get_status(refresh=False))
        for job in jobs
        if task_path(job) not in queued_by_periodic
    )
    assert outcomes == [(path, "finished") for path in expected]
    assert PeriodicRun.objects.filter(last_queued_at__isnull=False).count() == len(periodic)
    result = tasks.record.get_result(ran.id)
    assert (result.status, result.worker_ids) == (TaskResultStatus.SUCCESSFUL, ["runner"])
    assert result.enqueued_at <= result.started_at <= result.finished_at
    assert has_topic("ran")
    assert background_tasks.prune_results.get_result(returned.id).return_value == 0
    assert start_worker.counted()[(tasks.record.module_path, "succeeded")] == 1


def test_a_task_about_a_deleted_article_fails_at_once_and_the_next_task_runs(start_worker):
    article = ArticleFactory()
    gone = tasks.about_article.enqueue(article.pk)
    article.delete()
    following = tasks.record.enqueue("next")
    start_worker("runner")
    until(lambda: status_of(tasks.record, following) == "SUCCESSFUL", "the next task runs")
    result = tasks.about_article.get_result(gone.id)
    assert (result.status, result.attempts) == (TaskResultStatus.FAILED, 1)
    assert result.errors[0].exception_class_path == "news.models.Article.DoesNotExist"
    path = tasks.about_article.module_path
    until(lambda: (path, "failed") in start_worker.counted(), "the failure is counted")
    counts = start_worker.counted()
    assert counts[(path, "failed")] == 1
    assert (tasks.about_article.module_path, "retried") not in counts


def test_a_failing_task_is_tried_again_after_a_doubling_back_off_then_fails_with_its_error(
    start_worker,
):
    result = tasks.fails_noting.enqueue("try")
    start_worker("runner")
    until(lambda: tasks.fails_noting.get_result(result.id).is_finished, "it fails for good")
    result.refresh()
    assert (result.status, result.worker_ids) == (TaskResultStatus.FAILED, ["runner"] * 3)
    assert result.errors[0].exception_class_path == "builtins.ConnectionError"
    assert "the receiver did not answer" in result.errors[0].traceback
    names = Tag.objects.filter(name__startswith="try ").values_list("name", flat=True)
    tried = sorted(float(name.split()[1]) for name in names)
    gaps = [later - earlier for earlier, later in pairwise(tried)]
    assert len(tried) == MAX_ATTEMPTS
    assert gaps[0] >= RETRY_DELAY
    assert gaps[1] >= 2 * RETRY_DELAY
    path = tasks.fails_noting.module_path
    # The worker counts the failure just after it records it: on a busy machine a read
    # in between sees the result finished and the count not yet written.
    until(lambda: (path, "failed") in start_worker.counted(), "the failure is counted")
    counts = start_worker.counted()
    assert (counts[(path, "retried")], counts[(path, "failed")]) == (2, 1)


def test_a_task_whose_worker_is_killed_runs_again_on_another_once_its_lease_is_over(
    start_worker,
):
    result = tasks.slow.enqueue("survivor", 2)
    first = start_worker("first")
    until(lambda: has_topic("survivor-started"), "the first worker starts the task")
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    start_worker("second")
    until(lambda: status_of(tasks.slow, result) == "SUCCESSFUL", "the second worker runs it")
    assert tasks.slow.get_result(result.id).worker_ids == ["first", "second"]
    assert Tag.objects.filter(name="survivor").count() == 1
    assert start_worker.counted()[(tasks.slow.module_path, "retried")] == 1  # the lost try


def test_a_task_longer_than_the_lease_runs_once_while_its_worker_lives(start_worker):
    result = tasks.slow.enqueue("long", 3 * LEASE)
    start_worker("steady")
    until(lambda: has_topic("long-started"), "the first worker starts the task")
    start_worker("eager")
    until(lambda: status_of(tasks.slow, result) == "SUCCESSFUL", "it is done")
    assert tasks.slow.get_result(result.id).worker_ids == ["steady"]


# SIGTERM; and make run's Ctrl-C, then its trap's SIGTERM: the same request passed on.
@pytest.mark.parametrize(
    "signals", [[signal.SIGTERM], [signal.SIGINT, signal.SIGTERM]], ids=["sigterm", "ctrl-c"]
)
def test_sigterm_lets_the_running_task_finish_and_takes_no_new_one(backend, start_worker, signals):
    running = tasks.slow.enqueue("finished", 1)
    waiting = tasks.record.enqueue("not taken")
    worker = start_worker("stopping")
    until(lambda: has_topic("finished-started"), "the worker starts the task")
    for number in signals:
        worker.send_signal(number)
    assert worker.wait(timeout=60) == 0
    assert has_topic("finished")
    assert status_of(tasks.slow, running) == TaskResultStatus.SUCCESSFUL
    assert status_of(tasks.record, waiting) == TaskResultStatus.READY
    assert waiting.id in backend.queue("default").job_ids


def test_a_task_outlasting_the_shutdown_timeout_goes_back_to_the_queue(backend, start_worker):
    result = tasks.slow.enqueue("cut short", 120)
    worker = start_worker("impatient", TASK_SHUTDOWN_TIMEOUT=1)
    until(lambda: has_topic("cut short-started"), "the worker starts the task")
    worker.send_signal(signal.SIGTERM)
    assert worker.wait(timeout=60) == 0
    back = tasks.slow.get_result(result.id)
    assert (back.status, back.worker_ids) == (TaskResultStatus.READY, [])
    assert backend.queue("default").job_ids[0] == result.id  # first in line
    job = Job.fetch(result.id, connection=backend.connection, serializer=SERIALIZER)
    assert job.retries_left == MAX_ATTEMPTS - 1  # the try not counted
    assert not has_topic("cut short")


# /health/ and manage.py tasks_status


def test_health_and_tasks_status_read_the_redis_queue(settings, client):
    settings.SKILLO_TASK_MAX_ATTEMPTS = 1
    tasks.always_fails.enqueue()
    RedisWorker("in-process", batch=True, max_tasks=1, handle_signals=False).run()
    with time_machine.travel(timezone.now() - timedelta(seconds=90)):
        tasks.record.enqueue("waiting")
    tasks.record.enqueue("also waiting")
    response = client.get("/health/")
    assert response.status_code == 200
    health = response.json()["tasks"]
    assert (health["queued"], health["failed"]) == (2, 1)
    assert health["oldest_queued_seconds"] == pytest.approx(90, abs=5)
    out = StringIO()
    call_command("tasks_status", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("2 queued")
    assert "1 failed" in lines[0]
    assert "tests.background_tasks.always_fails (1 tries" in lines[1]
    assert "the receiver did not answer" in lines[1]


def test_health_is_503_when_redis_cannot_be_reached(redis):
    redis.stop()
    response = Client(raise_request_exception=False).get("/health/")
    assert response.status_code == 503
    assert response.json()["status"] == "task queue unavailable"


def test_a_redis_outage_leaves_every_server_ready_for_the_balancer_and_says_so(redis, settings):
    settings.CACHES = {"default": base_settings.cache_from_url(redis.url.rsplit("/", 1)[0] + "/3")}
    redis.stop()
    response = Client(raise_request_exception=False).get("/health/ready/")
    assert response.status_code == 200
    assert response.json() == {
        "status": "degraded", "database": "ok", "cache": "unavailable", "tasks": "unavailable",
    }  # fmt: skip
