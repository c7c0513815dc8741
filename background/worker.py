"""The worker (``manage.py run_worker``): runs the tasks queued in the database, one at a
time, oldest first within a priority.

The queue is django-tasks-db's table, written by ``task.enqueue()`` in the transaction
of the change that causes it: a save that rolls back queues nothing, one that commits
cannot lose its task. What django-tasks-db's own ``db_worker`` leaves out is here:

- a task that raises is tried again after 1, 2, 4, 8... times SKILLO_TASK_RETRY_DELAY,
  up to SKILLO_TASK_MAX_ATTEMPTS tries (or as the task's own: background.limits.retries),
  then ends as failed with its error;
- a task that runs longer than its time limit (SKILLO_TASK_TIME_LIMIT, or its own:
  background.limits.time_limit) is stopped, and tried again or failed as above. SIGALRM
  raises TimeLimitExceeded in it: that ends Python code, sleeps and the waits of sockets,
  select and locks in the worker's thread (PEP 475: a handler that raises interrupts the
  call). What that cannot reach (C code that holds on without returning to Python, a
  thread the task started, a task that catches BaseException) faulthandler ends a grace
  later by ending the whole process, from a C thread that needs no Python: its
  heartbeat stops, the lease gives the task to another worker (the try counted), and
  run_workers starts a new worker;
- a task whose work no longer makes sense (what it was for is gone, its arguments do
  not fit: see ABANDONED) fails at once, and the worker goes on with the next;
- a task whose worker died (``kill -9``, a lost machine) runs again once the worker has
  been silent for SKILLO_TASK_LEASE seconds (a running worker says it is alive every
  few seconds, also while a long task runs): at least once, never lost (tasks are
  written to be safe to run twice);
- periodic tasks (background.schedule) are queued by whichever worker finds them due;
- SIGTERM or Ctrl-C lets the running task finish, up to SKILLO_TASK_SHUTDOWN_TIMEOUT
  seconds, and takes no new one; a task cut short there goes back to the queue.
"""

import contextlib
import faulthandler
import logging
import signal
import threading
import time
import traceback
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import (
    DatabaseError,
    OperationalError,
    close_old_connections,
    connection,
    transaction,
)
from django.tasks import TaskContext, TaskResultStatus
from django.tasks.signals import task_finished, task_started
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from metrics.registry import TASKS

from . import schedule
from .limits import backoff
from .models import WorkerBeat

logger = logging.getLogger("background")

# How often a worker looks for periodic tasks that are due, in seconds.
SCHEDULE_EVERY = 30


class Abandon(Exception):
    """Raised by a task whose work no longer makes sense: it fails at once, untried again."""


# Errors a second try cannot mend: the row the task was for is gone, or its arguments do
# not fit the function (a task changed since it was queued) or do not parse. (A task
# that cannot be imported is tried again: in a rolling deploy an old worker may take a
# task of the new code.)
ABANDONED = (Abandon, ObjectDoesNotExist, TypeError, ValueError)


class ClockDrift(Exception):
    """This machine's clock is too far from the database's for leases to hold."""


def database_clock():
    """The database server's own time (on another machine with PostgreSQL)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT now()")
            return cursor.fetchone()[0]
        cursor.execute("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")
        moment = datetime.fromisoformat(cursor.fetchone()[0])
        return moment.replace(tzinfo=UTC)


def check_clock():
    """Refuse to start on a machine whose clock is off by more than a quarter lease:
    leases compare the heartbeats workers write with their own clocks, so a worker
    ahead of the others would take their running tasks, and one behind would be taken
    for dead. Returns the drift in seconds (this machine minus the database)."""
    before = time.monotonic()
    theirs = database_clock()
    mine = timezone.now() - timedelta(seconds=(time.monotonic() - before) / 2)
    drift = (mine - theirs).total_seconds()
    if abs(drift) > settings.SKILLO_TASK_LEASE / 4:
        raise ClockDrift(
            f"this machine's clock is {abs(drift):.0f} s {'ahead of' if drift > 0 else 'behind'} "
            f"the database's; workers need clocks within {settings.SKILLO_TASK_LEASE / 4:.0f} s "
            "of each other (TASK_LEASE / 4): run NTP (systemd-timesyncd, chrony) here"
        )
    return drift


class WorkerLost(Exception):
    """The worker running the task stopped before the task ended."""


class Stop(BaseException):
    """Raised into a running task when the worker must stop now (BaseException, so that a
    task's own ``except Exception`` does not keep it running)."""


class TimeLimitExceeded(BaseException):
    """Raised into a task that ran past its time limit (BaseException, as Stop)."""


def time_limit_of(task):
    """Seconds the task may run: its own limit (limits.time_limit), else the setting."""
    return getattr(task.func, "time_limit", settings.SKILLO_TASK_TIME_LIMIT)


def grace(limit):
    """How long past its limit a task that ignored TimeLimitExceeded may go on before
    its worker's process is ended."""
    return min(limit, 30)


def done_level(path):
    """How loud "done" is: a periodic task's success, every minute or so, would bury
    what else the log says, so it is said only at DEBUG (run_worker -v 2)."""
    return logging.DEBUG if path in schedule.periodic_task_paths() else logging.INFO


def retry_rule(row):
    """(tries, first wait, longest wait) of the task: its own (limits.retries), else the
    settings'."""
    default = (settings.SKILLO_TASK_MAX_ATTEMPTS, settings.SKILLO_TASK_RETRY_DELAY, 3600)
    try:
        return getattr(row.task.func, "retries", default)
    except Exception:  # The task cannot be loaded: it fails, saying so.
        return default


class Worker:
    def __init__(self, worker_id, queues=None, interval=1.0, max_tasks=None, batch=False):
        self.worker_id = worker_id
        # In the order given, the first first: a worker on every queue takes what is
        # urgent before the rest.
        self.queues = list(queues or settings.TASKS["default"]["QUEUES"])
        self.interval = interval
        self.max_tasks = max_tasks
        self.batch = batch
        self.ran = 0
        self.stopping = threading.Event()
        self.stopped_by = None
        self.in_task = False
        # Monotonic times at which the running task is stopped, and at which a stopping
        # worker stops waiting for it; one SIGALRM for the nearer (arm()).
        self.task_limit = self.task_deadline = self.stop_deadline = None
        # Time limits hold in a worker that owns its process's signals (run()), not in
        # a test or a command that runs a task in its own process (tests.background_tasks).
        self.limits_time = False

    # Signals

    def install_signals(self):
        self.limits_time = True
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, self.stop)
        signal.signal(signal.SIGALRM, self.alarm)

    def stop(self, number, frame):
        # Asked twice the same way (Ctrl-C, Ctrl-C): do not wait for the task. A SIGTERM
        # after a Ctrl-C is a launcher passing the same request on (make run's trap).
        if self.stopping.is_set() and number == self.stopped_by:
            self.stop_now(number, frame)
        if self.stopping.is_set():
            return
        logger.info(
            "%s: %s, stopping after the running task", self.worker_id, signal.strsignal(number)
        )
        self.stopped_by = number
        self.stopping.set()
        if self.in_task:
            self.start_shutdown_timer()

    def start_shutdown_timer(self):
        self.stop_deadline = time.monotonic() + max(settings.SKILLO_TASK_SHUTDOWN_TIMEOUT, 0.1)
        self.arm()

    def arm(self):
        if not self.limits_time:
            return
        deadlines = [d for d in (self.task_deadline, self.stop_deadline) if d is not None]
        if not deadlines:
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        signal.setitimer(signal.ITIMER_REAL, max(min(deadlines) - time.monotonic(), 0.001))

    def alarm(self, number, frame):
        now = time.monotonic()
        if self.stop_deadline is not None and now >= self.stop_deadline:
            self.stop_now(number, frame)
        if self.in_task and self.task_deadline is not None and now >= self.task_deadline:
            self.task_deadline = None
            self.arm()  # a shutdown's alarm, if one is set
            raise TimeLimitExceeded(f"stopped after its time limit of {self.task_limit:g} s")
        self.arm()

    def stop_now(self, number, frame):
        if self.in_task:
            raise Stop(signal.strsignal(number))
        raise SystemExit(0)

    # The loop

    def run(self):
        self.install_signals()
        check_clock()
        logger.info("%s: taking tasks from %s", self.worker_id, ", ".join(self.queues))
        beating = threading.Thread(target=self.beat, name="heartbeat", daemon=True)
        beating.start()
        try:
            self.loop()
        finally:
            self.stopping.set()
            beating.join(timeout=5)
            WorkerBeat.objects.filter(worker_id=self.worker_id).delete()

    def beat(self):
        """Say every few seconds that this worker is alive, until it stops (a thread, with
        a database connection of its own, so a long task does not silence it)."""
        every = max(settings.SKILLO_TASK_LEASE / 4, 0.5)
        try:
            while True:
                try:
                    WorkerBeat.objects.update_or_create(
                        worker_id=self.worker_id,
                        defaults={"seen_at": timezone.now(), "queues": ",".join(self.queues)},
                    )
                except DatabaseError as error:
                    # Beat again next time: a thread that died here would leave the
                    # worker's task to be taken away while it still runs.
                    logger.warning("%s: could not say it is alive: %s", self.worker_id, error)
                    connection.close()
                if self.stopping.wait(every):
                    return
        finally:
            connection.close()

    def loop(self):
        next_schedule = 0.0
        while not self.stopping.is_set():
            # Connections the database dropped meanwhile are opened again, as per request.
            close_old_connections()
            try:
                if time.monotonic() >= next_schedule:
                    queued = schedule.queue_due()
                    if queued:
                        logger.debug(
                            "%s: queued the periodic %s", self.worker_id, ", ".join(queued)
                        )
                    next_schedule = time.monotonic() + SCHEDULE_EVERY
                ran = self.run_one()
            except DatabaseError as error:
                # The database is down or busy: wait for it rather than exit (a task this
                # worker was running goes back to the queue when its lease runs out).
                logger.warning("%s: the database failed (%s); trying again", self.worker_id, error)
                connection.close()
                self.stopping.wait(max(self.interval, 5))
                continue
            if not ran:
                if self.batch:
                    break
                self.stopping.wait(self.interval)
            elif self.max_tasks is not None and self.ran >= self.max_tasks:
                break
        logger.info("%s: stopped after %d tasks", self.worker_id, self.ran)

    def run_one(self):
        """Run the next task due, if there is one; say whether there was."""
        row = self.claim()
        if row is None:
            return False
        self.run_task(row)
        return True

    def tasks(self):
        return DBTaskResult.objects.filter(backend_name="default", queue_name__in=self.queues)

    def claim(self):
        """The next task due, marked as running here; None if there is none."""
        try:
            with transaction.atomic():
                self.return_lost()
                for queue in self.queues:
                    row = self.tasks().filter(queue_name=queue).ready().get_locked()
                    if row is not None:
                        row.claim(self.worker_id)
                        return row
                return None
        except OperationalError as error:
            # SQLite busy past its timeout with other writers: look again next time.
            if "locked" in str(error):
                return None
            raise

    def return_lost(self):
        """Give the tasks whose worker stopped mid-task (silent for the lease) another go."""
        expired = timezone.now() - timedelta(seconds=settings.SKILLO_TASK_LEASE)
        candidates = list(
            self.tasks()
            .running()
            .filter(started_at__lt=expired)
            .select_for_update(skip_locked=True)
        )
        if not candidates:
            return
        alive = set(
            WorkerBeat.objects.filter(seen_at__gte=expired).values_list("worker_id", flat=True)
        )
        for row in candidates:
            stopped = row.worker_ids[-1] if row.worker_ids else "?"
            if stopped in alive:
                continue
            error = WorkerLost(f"worker {stopped} stopped while running it")
            logger.warning("%s: task %s: %s", self.worker_id, row.id, error)
            self.retry_or_fail(row, error, delay=0)

    def run_task(self, row):
        self.in_task = True
        if self.stopping.is_set():  # asked to stop while the task was being claimed
            self.start_shutdown_timer()
        try:
            try:
                task = row.task
                limit = time_limit_of(task)
                self.task_limit = limit
                self.task_deadline = time.monotonic() + limit
                self.arm()
                if self.limits_time:
                    # Written to standard error, with every thread's stack, as it ends
                    # the process: where the task was stuck.
                    faulthandler.dump_traceback_later(limit + grace(limit), exit=True)
                result = row.task_result
                task_started.send(sender=type(task.get_backend()), task_result=result)
                if task.takes_context:
                    value = task.call(
                        TaskContext(task_result=result), *result.args, **result.kwargs
                    )
                else:
                    value = task.call(*result.args, **result.kwargs)
            finally:
                if self.limits_time:
                    faulthandler.cancel_dump_traceback_later()
                self.in_task = False
                self.task_deadline = self.stop_deadline = None
                self.arm()
        except Stop as stop:
            self.back_to_queue(row, stop)
            raise SystemExit(0) from None
        except TimeLimitExceeded as error:
            # Stopped mid-query, the connection may be in any state: a new one.
            connection.close()
            self.retry_or_fail(row, error)
        except Exception as error:
            self.retry_or_fail(row, error)
        else:
            row.set_successful(value)
            TASKS.labels(row.task_path, "succeeded").inc()
            logger.log(
                done_level(row.task_path),
                "%s: task %s (%s) done",
                self.worker_id, row.id, row.task_name,
            )  # fmt: skip
        self.ran += 1
        # The task cannot be loaded (gone, or not a task): it failed above, saying so.
        with contextlib.suppress(Exception):
            task_finished.send(sender=type(row.task.get_backend()), task_result=row.task_result)

    def retry_or_fail(self, row, error, delay=None):
        attempts = len(row.worker_ids)
        most, first, longest = retry_rule(row)
        if isinstance(error, ABANDONED) or attempts >= most:
            row.set_failed(error)
            TASKS.labels(row.task_path, "failed").inc()
            logger.error(
                "%s: task %s (%s) failed after %d tries: %r",
                self.worker_id, row.id, row.task_path, attempts, error,
            )  # fmt: skip
            return
        wait = backoff(first, attempts, longest) if delay is None else delay
        row.status = TaskResultStatus.READY
        row.run_after = timezone.now() + timedelta(seconds=wait)
        row.exception_class_path = f"{type(error).__module__}.{type(error).__qualname__}"
        row.traceback = "".join(traceback.format_exception(error))
        row.save(update_fields=["status", "run_after", "exception_class_path", "traceback"])
        TASKS.labels(row.task_path, "retried").inc()
        logger.warning(
            "%s: task %s (%s) try %d failed, again in %gs: %r",
            self.worker_id, row.id, row.task_path, attempts, wait, error,
        )  # fmt: skip

    def back_to_queue(self, row, reason):
        """A task cut short by a shutdown: due again at once, the try not counted."""
        row.status = TaskResultStatus.READY
        row.run_after = timezone.now()
        row.worker_ids = row.worker_ids[:-1]
        row.save(update_fields=["status", "run_after", "worker_ids"])
        logger.warning(
            "%s: task %s stopped (%s), back in the queue", self.worker_id, row.id, reason
        )
