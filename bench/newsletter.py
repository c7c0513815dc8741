"""The newsletter's sending (issue 29): one story to every subscriber through a real SMTP
server in its own process, counted at that server.

    .venv/bin/python bench/newsletter.py [--database sqlite|postgres|both]
                                         [--subscribers 100000] [--kills-only]

For each database: a fresh database with ``--subscribers`` active subscribers
(``manage.py seed_synthetic --subscribers``); for 1 and
then 4 workers (``manage.py run_worker``), a new story published and sent to all of them
through bench/smtp_sink.py (aiosmtpd): messages per second from the publication to the
issue's end, the workers' peak resident memory, and the cached article page's p99
(gunicorn, 2 processes, wrk, 8 connections) idle and while they send. Then the same send
with 4 workers while one of them is killed with kill -9 every 5 s (and another started):
messages received, duplicates and missing, counted at the sink. Figures on stdout as
JSON, progress on stderr.
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import smtp_sink
from bench._server import (
    ROOT,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    free_port,
    log,
    manage,
    run_json,
    wrk,
)
from bench.tasks import rss_mb

WORKLOAD = "bench.newsletter_workload"


class Sink:
    def __init__(self, folder, name):
        self.port = free_port()
        self.path = folder / f"sink-{name}.log"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{self.port}",
             "-c", "bench.smtp_sink.Counter", str(self.path)],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        import socket

        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the SMTP sink did not start")

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


def start_worker(env, name):
    return subprocess.Popen(
        [sys.executable, "manage.py", "run_worker", "--interval", "0.1", "--id", name],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip


def stop(processes):
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        process.wait(timeout=120)


def send(env, folder, label, workers, subscribers, server=None, path=None, kill_every=None):
    sink = Sink(folder, label)
    env = {**env, "EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(sink.port)}
    try:
        issue = run_json(env, WORKLOAD, "publish", label, timeout=600)["issue"]
        started = time.perf_counter()
        processes = {n: start_worker(env, f"{label}-{n}") for n in range(workers)}
        peak, kills, spawned = 0.0, 0, workers
        next_kill = started + kill_every if kill_every else None
        busy = None
        try:
            if server is not None:
                busy = wrk(server.base_url + path, 15, connections=8, threads=2)
            # Counted at the sink (a file), not through the database: a check in a new
            # process every half second would take a core from the workers. The issue's
            # own state is read every 10 s, for a send that ends with some missing.
            next_check = time.perf_counter() + 10
            while smtp_sink.count(sink.path)[2] < subscribers:
                if time.perf_counter() >= next_check:
                    state = run_json(env, WORKLOAD, "progress", str(issue), timeout=600)["state"]
                    if state in ("sent", "cancelled"):
                        break
                    next_check = time.perf_counter() + 10
                for process in processes.values():
                    peak = max(peak, rss_mb(process.pid) or 0)
                if next_kill and time.perf_counter() >= next_kill:
                    victim = random.choice(list(processes))
                    os.killpg(processes[victim].pid, signal.SIGKILL)
                    processes[victim].wait()
                    processes[victim] = start_worker(env, f"{label}-{spawned}")
                    kills, spawned = kills + 1, spawned + 1
                    next_kill = time.perf_counter() + kill_every
                if time.perf_counter() - started > 3600:
                    raise SystemExit("the issue was not sent within an hour")
                time.sleep(0.5)
            elapsed = time.perf_counter() - started
            deadline = time.monotonic() + 600
            while True:  # the last batch marks the issue sent
                progress = run_json(env, WORKLOAD, "progress", str(issue), timeout=600)
                if progress["state"] in ("sent", "cancelled") or time.monotonic() > deadline:
                    break
                time.sleep(1)
        finally:
            stop(processes.values())
    finally:
        sink.stop()
    received, distinct, recipients = smtp_sink.count(sink.path)
    result = {
        "workers": workers, "subscribers": subscribers, "seconds": round(elapsed, 1),
        "messages_per_second": round(recipients / elapsed, 1),
        "received": received, "duplicates": received - distinct,
        "missing": subscribers - recipients, "peak_worker_rss_mb": round(peak, 1),
        "deliveries": progress["deliveries"],
    }  # fmt: skip
    if kill_every:
        result["kills"] = kills
    if busy is not None:
        result["article_busy_p99_ms"] = busy["p99_us"] / 1000
        result["article_busy_rps"] = round(busy["rps"])
    log(f"  {label}: {result}")
    return result


def bench(url, folder, subscribers, kills_only=False):
    env = django_env(
        url, folder / "static", CACHE_URL="locmem://",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", TASK_LEASE="5",
    )  # fmt: skip
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
    # The page to measure, itself sent to no one.
    path = run_json(env, WORKLOAD, "publish", "page", "quiet", timeout=600)["path"]
    manage(env, "seed_synthetic", "--subscribers", str(subscribers), "--batch-size", "5000",
           timeout=1800)  # fmt: skip
    results = {}
    if kills_only:
        results["kill_every_5_s"] = send(env, folder, "kills", 4, subscribers, kill_every=5.0)
        return results
    with Gunicorn({**env, "PAGE_CACHE": "1"}, folder / "gunicorn.log", workers=2) as server:
        server.get(path)
        idle = wrk(server.base_url + path, 15, connections=8, threads=2)
        results["article_idle_p99_ms"] = idle["p99_us"] / 1000
        for workers in (1, 4):
            results[f"{workers}_workers"] = send(
                env, folder, f"w{workers}", workers, subscribers, server, path
            )
    results["kill_every_5_s"] = send(env, folder, "kills", 4, subscribers, kill_every=5.0)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--subscribers", type=int, default=100_000)
    parser.add_argument(
        "--kills-only", action="store_true", help="only the send with a worker killed every 5 s"
    )
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    results = {}
    with tempfile.TemporaryDirectory(prefix="skillo-bench-newsletter-") as folder:
        folder = Path(folder)
        if options.database in ("sqlite", "both"):
            log("SQLite")
            results["sqlite"] = bench(
                f"sqlite:///{folder / 'newsletter.sqlite3'}",
                folder,
                options.subscribers,
                options.kills_only,
            )
        if options.database in ("postgres", "both"):
            log("PostgreSQL")
            with PostgresCluster() as cluster:
                url = cluster.create_database("skillo_newsletter")
                results["postgres"] = bench(url, folder, options.subscribers, options.kills_only)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
