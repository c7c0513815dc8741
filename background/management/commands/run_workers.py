import signal
import subprocess
import sys
import threading
import time

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

# A worker that exits is started again after this many seconds, doubled each time it
# exits again within RESTART_SETTLED seconds of its start, at most RESTART_MAX.
RESTART_FIRST = 1.0
RESTART_MAX = 60.0
RESTART_SETTLED = 30.0


def parse_workers(spec):
    """ "urgent:1,default:2" -> {"urgent": 1, "default": 2}; every queue of TASKS named
    with at least one worker, so that none is left without."""
    known = settings.TASKS["default"]["QUEUES"]
    counts = {}
    for part in spec.split(","):
        queue, _, count = part.strip().partition(":")
        if queue.isdigit():
            raise CommandError(
                f"TASK_WORKERS: {spec!r} is a count; workers are counted by queue now, such "
                f"as urgent:1,default:{queue}"
            )
        if queue not in known:
            raise CommandError(f"TASK_WORKERS: unknown queue {queue!r} in {spec!r}; the queues "
                               f"are {', '.join(known)}")  # fmt: skip
        if not count.isdigit() or int(count) < 1:
            raise CommandError(
                f"TASK_WORKERS: {part.strip()!r} needs a number of workers, such as {queue}:1"
            )
        counts[queue] = int(count)
    if missing := [queue for queue in known if queue not in counts]:
        raise CommandError(
            f"TASK_WORKERS: no worker for the {' and '.join(missing)} queue in {spec!r}: "
            f"its tasks would never run (add {missing[0]}:1)"
        )
    return counts


class Command(BaseCommand):
    help = (
        "Run background workers (manage.py run_worker) for each queue and keep them "
        "running: one that exits (killed, crashed) is started again, with back-off. "
        "SIGTERM or Ctrl-C stops them all, each letting its running task finish. SIGHUP "
        "(make deploy) replaces them: new workers, on the code installed now, start at once "
        "while the old ones finish their task and exit."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--workers",
            help="workers by queue, such as urgent:1,default:2 (default: TASK_WORKERS, "
            "else urgent:1,default:1,remote:1)",
        )

    def handle(self, *args, workers, verbosity, **options):
        counts = parse_workers(workers or settings.SKILLO_TASK_WORKERS)
        stopping = threading.Event()

        def stop(number, frame):
            if not stopping.is_set():
                self.stderr.write(f"run_workers: {signal.strsignal(number)}, stopping the workers")
            stopping.set()

        replacing = threading.Event()

        def replace(number, frame):
            self.stderr.write("run_workers: hangup, replacing the workers")
            replacing.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, replace)
        supervised = [
            Supervised(queue, f"{queue} {n} of {count}", verbosity, self.stderr)
            for queue, count in counts.items()
            for n in range(1, count + 1)
        ]
        try:
            for worker in supervised:
                worker.start()
            while not stopping.wait(0.5):
                if replacing.is_set():
                    replacing.clear()
                    for worker in supervised:
                        worker.replace()
                for worker in supervised:
                    worker.tend()
        finally:
            # Also when this supervisor fails: its workers, in sessions of their own,
            # would outlive it.
            for worker in supervised:
                worker.stop()
            for worker in supervised:
                worker.wait()


class Supervised:
    """One ``run_worker`` process on one queue, started again whenever it exits."""

    def __init__(self, queue, name, verbosity, log):
        self.queue, self.name, self.verbosity, self.log = queue, name, verbosity, log
        self.process = None
        # Replaced by a deploy, finishing their task.
        self.retiring = []
        self.started = 0.0
        self.delay = RESTART_FIRST
        self.due = 0.0

    def start(self):
        # Each process its own id (host:pid, run_worker's default): a worker started again
        # under its predecessor's name would pass for it, and the task it was killed in
        # would never be taken back.
        manage = settings.BASE_DIR / "manage.py"
        command = [
            sys.executable, str(manage), "run_worker", "--queue", self.queue,
            "--verbosity", str(self.verbosity),
        ]  # fmt: skip
        # A session of its own: a Ctrl-C at the terminal reaches this supervisor only,
        # which stops the workers in turn.
        self.process = subprocess.Popen(command, start_new_session=True)
        self.started = time.monotonic()

    def replace(self):
        """A new process in place of this one, which finishes its task and exits."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.retiring.append(self.process)
        self.process, self.due, self.delay = None, 0.0, RESTART_FIRST
        self.start()

    def tend(self):
        self.retiring = [process for process in self.retiring if process.poll() is None]
        if self.process is None:
            if time.monotonic() >= self.due:
                self.start()
            return
        status = self.process.poll()
        if status is None:
            return
        ran = time.monotonic() - self.started
        if ran >= RESTART_SETTLED:
            self.delay = RESTART_FIRST
        wait, self.delay = self.delay, min(self.delay * 2, RESTART_MAX)
        self.log.write(
            f"run_workers: worker {self.name} exited with status {status} after {ran:.0f} s; "
            f"starting it again in {wait:g} s"
        )
        self.process, self.due = None, time.monotonic() + wait

    def stop(self):
        for process in [self.process, *self.retiring]:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGTERM)

    def wait(self):
        for process in [self.process, *self.retiring]:
            if process is not None:
                process.wait()
