"""The task queue in Redis (TASKS_URL=redis://host:port/db), for a site that outgrows the
database queue: a ``django.tasks`` backend over RQ, and the worker that ``manage.py
run_worker`` runs when it is configured. The tasks, ``task.enqueue()`` and
``get_result()`` are the same as with the database backend, and so is what a worker does
(background.worker says what that is):

- a task queued inside a transaction is pushed to Redis when the transaction commits
  (a save that rolls back queues nothing); a crash between the commit and the push loses
  that task, which the database queue cannot (its task is written in the transaction);
- a task that raises is tried again after 1, 2, 4... times SKILLO_TASK_RETRY_DELAY, up to
  SKILLO_TASK_MAX_ATTEMPTS tries (RQ's Retry), then ends in RQ's failed registry with its
  error; one whose work no longer makes sense (background.worker.ABANDONED) fails at once;
- a running worker renews its task's entry in RQ's started registry every few seconds
  (a thread, so a long task does not stop it); a worker killed mid-task stops renewing,
  and once it has been silent SKILLO_TASK_LEASE seconds (to the second) another worker's
  registry cleanup finds the task abandoned and RQ tries it again (as a failed try:
  counted, after its back-off) or fails it after the last try;
- SIGTERM or Ctrl-C lets the running task finish, up to SKILLO_TASK_SHUTDOWN_TIMEOUT
  seconds, and takes no new one; a task cut short goes back to the front of the queue,
  the try not counted;
- periodic tasks are queued by background.schedule (kept in the database, PeriodicRun);
- the metrics count runs as the database worker does (metrics.registry.TASKS).

Jobs are stored as JSON (never pickled): the job's function is ``run_task``, its
arguments the task's path and the task's own arguments. Delayed jobs (a retry's back-off,
``run_after``) are moved to their queue by the workers themselves (``enqueue_due``),
never early; RQ's separate scheduler process is not used.

RQ's worker is used in-process (SimpleWorker: no fork per task, so a ``kill -9`` of the
worker cannot leave a task running on its own). What is overridden of it is marked so;
the RQ version is pinned (pyproject.toml) and tests/test_redis_queue.py runs it all on a
real redis-server with real worker processes.
"""

import logging
import math
import signal
import threading
import time
import traceback
import uuid
from contextlib import suppress
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction
from django.tasks import TaskContext, TaskResultStatus, task_backends
from django.tasks.backends.base import BaseTaskBackend
from django.tasks.base import Task, TaskError, TaskResult
from django.tasks.exceptions import TaskResultDoesNotExist
from django.tasks.signals import task_enqueued, task_finished, task_started
from django.utils import timezone
from django.utils.json import normalize_json
from django.utils.module_loading import import_string
from redis import Redis
from redis.exceptions import RedisError, WatchError
from rq import Queue, Retry, SimpleWorker, get_current_job
from rq.exceptions import AbandonedJobError, NoSuchJobError, StopRequested
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry
from rq.serializers import JSONSerializer
from rq.timeouts import BaseDeathPenalty
from rq.utils import utcparse
from rq.worker import WorkerStatus
from rq.worker_registration import get_keys

from metrics.registry import TASKS

from . import schedule
from .worker import ABANDONED, SCHEDULE_EVERY, Stop, WorkerLost, done_level, retry_delay

logger = logging.getLogger("background")

SERIALIZER = JSONSerializer
RUN_TASK = "background.redis_queue.run_task"

# A request (or /health/) waits at most this long on Redis, in seconds.
CLIENT_TIMEOUT = 2

STATUSES = {
    JobStatus.CREATED: TaskResultStatus.READY,
    JobStatus.QUEUED: TaskResultStatus.READY,
    JobStatus.SCHEDULED: TaskResultStatus.READY,
    JobStatus.DEFERRED: TaskResultStatus.READY,
    JobStatus.STARTED: TaskResultStatus.RUNNING,
    JobStatus.FINISHED: TaskResultStatus.SUCCESSFUL,
    JobStatus.FAILED: TaskResultStatus.FAILED,
    JobStatus.STOPPED: TaskResultStatus.FAILED,
    JobStatus.CANCELED: TaskResultStatus.FAILED,
}

_clients = {}


def client(url):
    """One Redis client (and connection pool) per URL in each process, with short
    timeouts: a Redis that is down fails a request or /health/ quickly."""
    if url not in _clients:
        _clients[url] = Redis.from_url(
            url, socket_connect_timeout=CLIENT_TIMEOUT, socket_timeout=CLIENT_TIMEOUT
        )
    return _clients[url]


def redis_backend():
    """The default task backend if it is this Redis queue, else None."""
    backend = task_backends["default"]
    return backend if isinstance(backend, RedisBackend) else None


def exception_path(error):
    return f"{type(error).__module__}.{type(error).__qualname__}"


def task_path(job):
    if job.func_name == RUN_TASK and job.args:
        return job.args[0]
    return job.func_name or "?"


def retry_policy():
    """Tries 2 to SKILLO_TASK_MAX_ATTEMPTS, after the doubling back-off of background.worker
    (RQ counts whole seconds)."""
    attempts = settings.SKILLO_TASK_MAX_ATTEMPTS
    if attempts < 2:
        return None
    return Retry(
        max=attempts - 1,
        interval=[math.ceil(retry_delay(attempt)) for attempt in range(1, attempts)],
    )


class RedisBackend(BaseTaskBackend):
    """``TASKS = {"default": {"BACKEND": "background.redis_queue.RedisBackend",
    "QUEUES": [...], "OPTIONS": {"URL": "redis://host:port/db"}}}`` (the settings write this
    from TASKS_URL). RQ has no priorities: a task with one is refused when defined."""

    supports_defer = True
    supports_async_task = True
    supports_get_result = True
    supports_priority = False

    def __init__(self, alias, params):
        super().__init__(alias, params)
        self.url = self.options["URL"]

    @property
    def connection(self):
        return client(self.url)

    def queue(self, name, connection=None):
        return Queue(name, connection=connection or self.connection, serializer=SERIALIZER)

    def enqueue(self, task, args, kwargs):
        self.validate_task(task)
        result = TaskResult(
            task=task,
            id=str(uuid.uuid4()),
            status=TaskResultStatus.READY,
            enqueued_at=timezone.now(),
            started_at=None,
            last_attempted_at=None,
            finished_at=None,
            args=args,
            kwargs=kwargs,
            backend=self.alias,
            errors=[],
            worker_ids=[],
        )
        if transaction.get_connection().in_atomic_block:
            # Pushed when the change that queues it commits; never if it rolls back.
            transaction.on_commit(lambda: self.push_after_commit(result))
        else:
            self.push(result)
        task_enqueued.send(type(self), task_result=result)
        return result

    def push(self, result):
        task = result.task
        queue = self.queue(task.queue_name)
        job = queue.create_job(
            run_task,
            args=[task.module_path, result.args, result.kwargs],
            job_id=result.id,
            description=task.module_path,
            timeout=-1,  # no time limit: a running task is the worker's own affair
            result_ttl=settings.SKILLO_TASK_RESULTS_DAYS * 86400,
            retry=retry_policy(),
            meta={"worker_ids": []},
        )
        if task.run_after is not None and task.run_after > timezone.now():
            queue.schedule_job(job, task.run_after)
        else:
            queue.enqueue_job(job)

    def push_after_commit(self, result):
        try:
            self.push(result)
        except RedisError as error:
            # The change is committed; failing its request now would only hide that.
            TASKS.labels(result.task.module_path, "lost").inc()
            logger.error(
                "task %s (%s) lost: the task queue could not be reached after the commit: %r",
                result.id, result.task.module_path, error,
            )  # fmt: skip

    def get_result(self, result_id):
        try:
            job = Job.fetch(result_id, connection=self.connection, serializer=SERIALIZER)
        except NoSuchJobError:
            raise TaskResultDoesNotExist(result_id) from None
        return task_result(job, backend=self.alias)


def task_result(job, task=None, backend="default"):
    """The job as Django's TaskResult."""
    path, args, kwargs = job.args
    task = task or import_string(path)
    status = STATUSES[job.get_status(refresh=False)]
    meta = job.meta or {}
    errors = []
    if status == TaskResultStatus.FAILED:
        error = meta.get("error") or {
            "exception_class_path": "builtins.Exception",
            "traceback": job.exc_info or "",
        }
        errors.append(TaskError(**error))
    finished = status in (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)
    result = TaskResult(
        task=task,
        id=job.id,
        status=status,
        enqueued_at=job.enqueued_at,
        started_at=job.started_at,
        last_attempted_at=job.started_at,
        finished_at=job.ended_at if finished else None,
        args=args,
        kwargs=kwargs,
        backend=backend,
        errors=errors,
        worker_ids=list(meta.get("worker_ids", [])),
    )
    if status == TaskResultStatus.SUCCESSFUL:
        object.__setattr__(result, "_return_value", job.return_value())
    return result


# The worker that runs tasks in this process, if any (run_task tells it when the task's
# own code has returned).
_worker = None


def run_task(path, args, kwargs):
    """What an RQ job runs: the task at ``path`` with its arguments."""
    try:
        task = import_string(path)
        if not isinstance(task, Task):
            raise ValueError(f"{path} is not a task")
        job = get_current_job()
        result = task_result(job, task) if job else None
        task_started.send(sender=RedisBackend, task_result=result)
        if task.takes_context:
            value = task.call(TaskContext(task_result=result), *args, **kwargs)
        else:
            value = task.call(*args, **kwargs)
    finally:
        if _worker is not None:
            _worker.task_returned()
    return normalize_json(value)


class NoTimeLimit(BaseDeathPenalty):
    """Tasks run without RQ's time limit, which would take SIGALRM, the shutdown timer's."""

    def setup_death_penalty(self):
        pass

    def cancel_death_penalty(self):
        pass


class RedisWorker(SimpleWorker):
    """RQ's in-process worker with Skillo's semantics (the module's docstring says which)."""

    death_penalty_class = NoTimeLimit

    def __init__(
        self, worker_id, queues=("default",), interval=1.0, max_tasks=None, batch=False,
        connection=None, handle_signals=True,
    ):  # fmt: skip
        self.interval = max(float(interval), 0.1)
        self.max_tasks, self.batch, self.handle_signals = max_tasks, batch, handle_signals
        self.lease = max(math.ceil(settings.SKILLO_TASK_LEASE), 1)
        if connection is None:
            connection = Redis.from_url(redis_backend().url, socket_connect_timeout=5)
        super().__init__(
            list(queues),
            name=worker_id,
            connection=connection,
            serializer=SERIALIZER,
            exception_handlers=[self.on_exception],
            # The registries are cleaned (lost tasks found) this often, by one worker at a time.
            maintenance_interval=max(self.lease // 2, 1),
            worker_ttl=60,
        )
        self.stopped_by = None
        self.in_task = False
        self.cut_short = None
        self.beating = threading.Event()
        self.running_lock = threading.Lock()
        self.running = None  # (job, execution) while a task runs
        self.next_schedule = 0.0

    # Running

    def run(self):
        global _worker
        _worker = self
        logger.info("%s: taking tasks from Redis, %s", self.name, ", ".join(self.queue_names()))
        beating = threading.Thread(target=self.beat, name="heartbeat", daemon=True)
        beating.start()
        try:
            self.work(
                burst=self.batch,
                max_jobs=self.max_tasks,
                # RQ's own lines (each job twice, each registry cleanup) only when debugging;
                # the "background" logger says what the database worker says.
                logging_level="INFO" if logger.getEffectiveLevel() <= logging.DEBUG else "WARNING",
            )
        finally:
            self.beating.set()
            beating.join(timeout=5)
            _worker = None
        logger.info("%s: stopped", self.name)

    @property
    def dequeue_timeout(self):
        # RQ's: how long a look at an empty queue waits; also how often the maintenance
        # below runs on an idle worker, and how soon an idle worker sees a stop.
        return self.interval

    # Signals: as background.worker.Worker's (RQ's own stop at once on a second signal and
    # have no time limit for the running task).

    def _install_signal_handlers(self):
        if self.handle_signals:
            for number in (signal.SIGTERM, signal.SIGINT):
                signal.signal(number, self.stop)
            signal.signal(signal.SIGALRM, self.stop_now)

    def stop(self, number, frame):
        if self._stop_requested and number == self.stopped_by:
            self.stop_now(number, frame)
        if self._stop_requested:
            return
        logger.info("%s: %s, stopping after the running task", self.name, signal.strsignal(number))
        self.stopped_by = number
        self._stop_requested = True
        if self.in_task:
            signal.alarm(max(int(settings.SKILLO_TASK_SHUTDOWN_TIMEOUT), 1))

    def stop_now(self, number, frame):
        if self.in_task:
            raise Stop(signal.strsignal(number))
        raise SystemExit(0)

    def task_returned(self):
        signal.alarm(0)
        self.in_task = False

    # Maintenance, between tasks and at each look at an empty queue

    @property
    def should_run_maintenance_tasks(self):
        return True  # run_maintenance_tasks does what is due

    def run_maintenance_tasks(self):
        if self._stop_requested:
            # An idle worker stops here, between two Redis calls.
            raise StopRequested()
        self.enqueue_due()
        if time.monotonic() >= self.next_schedule:
            self.queue_periodic()
        if self.last_cleaned_at is None or timezone.now() - self.last_cleaned_at > timedelta(
            seconds=self.maintenance_interval
        ):
            # RQ's registry cleanup: a task whose worker stopped renewing its entry is
            # retried (StartedJobRegistry.cleanup, through on_exception) or failed.
            super().run_maintenance_tasks()

    def queue_periodic(self):
        close_old_connections()
        try:
            queued = schedule.queue_due()
        except DatabaseError as error:
            logger.warning("%s: the database failed (%s); trying again", self.name, error)
            connection.close()
            self.next_schedule = time.monotonic() + 5
            return
        if queued:
            logger.debug("%s: queued the periodic %s", self.name, ", ".join(queued))
        self.next_schedule = time.monotonic() + SCHEDULE_EVERY

    def enqueue_due(self):
        """Move the delayed jobs that are due to their queue. Scores are whole seconds,
        rounded down: a job is moved a second after its score, never early. Each move is a
        transaction watched on the registry, so two workers never both move one job."""
        due, redis = int(time.time()) - 1, self.connection
        for queue in self.queues:
            registry = queue.scheduled_job_registry
            for job_id in redis.zrangebyscore(registry.key, 0, due, start=0, num=100):
                with redis.pipeline() as pipeline, suppress(WatchError):
                    pipeline.watch(registry.key)
                    if pipeline.zscore(registry.key, job_id) is None:
                        continue
                    try:
                        job = Job.fetch(job_id.decode(), connection=redis, serializer=SERIALIZER)
                    except NoSuchJobError:  # deleted meanwhile: nothing to run
                        pipeline.multi()
                        pipeline.zrem(registry.key, job_id)
                        pipeline.execute()
                        continue
                    pipeline.multi()
                    pipeline.zrem(registry.key, job_id)
                    front = job.should_enqueue_at_front()
                    queue._enqueue_job(job, pipeline=pipeline, at_front=front)
                    pipeline.execute()

    # A task

    def execute_job(self, job, queue):
        if self._stop_requested:
            # Taken from the queue as the stop came: back at its front, untried.
            with self.connection.pipeline() as pipeline:
                pipeline.lrem(queue.intermediate_queue_key, 1, job.id)
                queue.push_job_id(job.id, pipeline=pipeline, at_front=True)
                pipeline.execute()
            raise StopRequested()
        self.in_task, self.cut_short = True, None
        close_old_connections()
        try:
            job.meta.setdefault("worker_ids", []).append(self.name)
            job.save_meta()
            self.prepare_execution(job)
            with self.running_lock:
                self.running = (job, self.execution)
            self.perform_job(job, queue)
        finally:
            with self.running_lock:
                self.running = None
            self.task_returned()
            close_old_connections()
        self.set_state(WorkerStatus.IDLE)
        with suppress(Exception):  # the task may no longer load: it failed above, saying so
            task_finished.send(sender=RedisBackend, task_result=task_result(job))

    def get_heartbeat_ttl(self, job):
        # How long the task's entry in the started registry holds without a renewal: at
        # least the lease (RQ's scores are whole seconds, rounded down).
        return self.lease + 1

    def beat(self):
        """Renew the running task's lease every few seconds (and the worker's own entry),
        also while a long task runs; RQ's in-process worker renews neither meanwhile."""
        every = max(self.lease / 4, 0.25)
        while not self.beating.wait(every):
            with self.running_lock:
                running = self.running
            if running is None:
                continue
            job, execution = running
            try:
                with self.connection.pipeline() as pipeline:
                    self.heartbeat(self.worker_ttl + 60, pipeline=pipeline)
                    # xx: renew only, never put back an entry the task's end removed.
                    ttl = self.get_heartbeat_ttl(job)
                    job.started_job_registry.add_execution(
                        execution, pipeline=pipeline, ttl=ttl, xx=True
                    )
                    pipeline.expire(execution.key, ttl)
                    pipeline.execute()
            except RedisError as error:
                logger.warning("%s: could not renew the task's lease: %s", self.name, error)

    def on_exception(self, job, exc_type, error, tb):
        """RQ's exception handler: a task that raised, or one found abandoned by the
        registry cleanup (its worker gone)."""
        if issubclass(exc_type, Stop):
            self.cut_short = error
            return False
        if issubclass(exc_type, AbandonedJobError):
            stopped = (job.meta.get("worker_ids") or ["?"])[-1]
            error = WorkerLost(f"worker {stopped} stopped while running it")
            text = "".join(traceback.format_exception_only(error))
            retried = bool(job.retries_left and job.retries_left > 0)
            TASKS.labels(task_path(job), "retried" if retried else "failed").inc()
            logger.warning("%s: task %s: %s", self.name, job.id, error)
        else:
            text = "".join(traceback.format_exception(exc_type, error, tb))
            if isinstance(error, ABANDONED):
                job.retries_left = 0  # fails at once
        job.meta["error"] = {"exception_class_path": exception_path(error), "traceback": text}
        job.save_meta()
        return True

    def handle_job_failure(self, job, queue, started_job_registry=None, exc_string=""):
        if self.cut_short is not None:
            self.back_to_queue(job, queue)
            return
        retried = job.should_retry
        super().handle_job_failure(job, queue, started_job_registry, exc_string)
        path, tries = task_path(job), len(job.meta.get("worker_ids", []))
        error = (job.meta.get("error") or {}).get("exception_class_path", "?")
        if retried:
            TASKS.labels(path, "retried").inc()
            logger.warning(
                "%s: task %s (%s) try %d failed, again in %gs: %s",
                self.name, job.id, path, tries, retry_delay(tries), error,
            )  # fmt: skip
        else:
            TASKS.labels(path, "failed").inc()
            logger.error(
                "%s: task %s (%s) failed after %d tries: %s", self.name, job.id, path, tries, error
            )

    def handle_job_success(self, job, queue, started_job_registry):
        super().handle_job_success(job, queue, started_job_registry)
        TASKS.labels(task_path(job), "succeeded").inc()
        path = task_path(job)
        logger.log(done_level(path), "%s: task %s (%s) done", self.name, job.id, path)

    def back_to_queue(self, job, queue):
        """A task cut short by a shutdown: due again at once, the try not counted."""
        job.meta["worker_ids"] = job.meta.get("worker_ids", [])[:-1]
        job.started_at = job.ended_at = None
        with self.connection.pipeline() as pipeline:
            self.cleanup_execution(job, pipeline=pipeline)
            queue._enqueue_job(job, pipeline=pipeline, at_front=True)
            pipeline.execute()
        logger.warning(
            "%s: task %s stopped (%s), back in the queue", self.name, job.id, self.cut_short
        )
        self.cut_short = None


# What the queue holds, for background.status (/health/, tasks_status, the metrics)


def queue_status(backend, now=None):
    """As background.status.queue_status, read from Redis."""
    redis = backend.connection
    counts = {"queued": 0, "running": 0, "failed": 0, "succeeded": 0}
    oldest = None
    for name in sorted(backend.queues):
        queue = backend.queue(name)
        counts["queued"] += queue.count + queue.scheduled_job_registry.get_job_count(cleanup=False)
        for key, registry in (
            ("running", StartedJobRegistry), ("failed", FailedJobRegistry),
            ("succeeded", FinishedJobRegistry),
        ):  # fmt: skip
            counts[key] += registry(name, connection=redis).get_job_count(cleanup=False)
        first = queue.get_job_ids(0, 1)
        job = queue.fetch_job(first[0]) if first else None
        if job is not None and job.enqueued_at and (oldest is None or job.enqueued_at < oldest):
            oldest = job.enqueued_at
    now = now or timezone.now()
    return {
        **counts,
        "oldest_queued_seconds": round(max((now - oldest).total_seconds(), 0), 1) if oldest else 0,
        "workers": live_workers(redis, now),
    }


def live_workers(redis, now):
    """RQ workers that said they were alive in the last minute."""
    keys = sorted(get_keys(connection=redis))
    with redis.pipeline(transaction=False) as pipeline:
        for key in keys:
            pipeline.hget(key, "last_heartbeat")
        beats = pipeline.execute()
    since = now - timedelta(minutes=1)
    return sum(1 for beat in beats if beat and utcparse(beat.decode()) >= since)


def latest_failures(backend, limit):
    """The tasks that failed last, newest first, as tasks_status shows them."""
    redis, jobs = backend.connection, []
    for name in sorted(backend.queues):
        registry = FailedJobRegistry(name, connection=redis, serializer=SERIALIZER)
        ids = registry.get_job_ids(0, limit - 1, desc=True, cleanup=False)
        jobs += [job for job in Job.fetch_many(ids, redis, serializer=SERIALIZER) if job]
    oldest = datetime.min.replace(tzinfo=UTC)
    jobs.sort(key=lambda job: job.ended_at or oldest, reverse=True)
    failures = []
    for job in jobs[:limit]:
        error = (job.meta or {}).get("error") or {}
        text = error.get("traceback") or job.exc_info or error.get("exception_class_path", "")
        failures.append(
            {
                "id": job.id,
                "task": task_path(job),
                "finished_at": job.ended_at.isoformat() if job.ended_at else None,
                "tries": len((job.meta or {}).get("worker_ids", [])),
                "error": (text.strip().splitlines() or ["?"])[-1],
            }
        )
    return failures
