"""Background tasks (issue 28): how fast the database queue runs, whether a worker's
memory stays flat, and whether kill -9 loses or doubles work.

    .venv/bin/python bench/tasks.py [--database sqlite|postgres|both] [--tasks 10000]
                                    [--crash-tasks 5000]

For each database: 10,000 no-op tasks and 10,000 that each write one row, run by 1 and
by 4 workers (``manage.py run_worker --batch``), in tasks per second; a worker's
resident memory early in a 10,000-task run and at its end; then 4 workers through 5,000
row-writing tasks while one of them is killed with kill -9 every 2 s (and another
started in its place): tasks lost, rows written more or fewer than once, time to drain;
then an article page's p99 (gunicorn, 2 processes, wrk, 8 connections), kept by the page
cache and not, idle and while 4 workers run 10,000 row-writing tasks (--pages).
Figures on stdout as JSON, progress on stderr.
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

from bench._server import (
    ROOT,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    log,
    manage,
    run_json,
    wrk,
)

WORKLOAD = "bench.task_workload"


def rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except FileNotFoundError:
        return None
    return None


def start_worker(env, name, batch=True):
    command = [sys.executable, "manage.py", "run_worker", "--interval", "0.05", "--id", name]
    if batch:
        command.append("--batch")
    return subprocess.Popen(
        command, cwd=ROOT, env={**env, "TASK_LEASE": "3"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def throughput(env, kind, count, workers):
    run_json(env, WORKLOAD, "clear", timeout=600)
    run_json(env, WORKLOAD, "enqueue", kind, str(count), f"{kind}-{workers}-", timeout=1200)
    started = time.perf_counter()
    processes = [start_worker(env, f"bench-{n}") for n in range(workers)]
    samples = []
    while any(p.poll() is None for p in processes):
        if workers == 1:
            samples.append((time.perf_counter() - started, rss_mb(processes[0].pid)))
        time.sleep(0.2)
    elapsed = time.perf_counter() - started
    counts = run_json(env, WORKLOAD, "count", f"{kind}-{workers}-", timeout=600)
    done = counts["tasks"]["SUCCESSFUL"]
    result = {
        "kind": kind, "workers": workers, "tasks": count, "done": done,
        "seconds": round(elapsed, 1), "tasks_per_second": round(done / elapsed, 1),
    }  # fmt: skip
    memory = [mb for _, mb in samples if mb]
    if memory:
        early = memory[min(len(memory) - 1, 10)]  # after two seconds of work
        result["memory_mb"] = {"early": round(early, 1), "end": round(memory[-1], 1)}
    log(f"  {kind}, {workers} worker(s): {result['tasks_per_second']} tasks/s ({done}/{count})")
    return result


def crash_safety(env, count, workers=4, kill_every=2.0):
    run_json(env, WORKLOAD, "clear", timeout=600)
    run_json(env, WORKLOAD, "enqueue", "write", str(count), "crash-", timeout=1200)
    started = time.perf_counter()
    processes = {n: start_worker(env, f"crash-{n}", batch=False) for n in range(workers)}
    kills, next_kill, spawned = 0, started + kill_every, workers
    try:
        while True:
            time.sleep(0.25)
            counts = run_json(env, WORKLOAD, "count", "crash-", timeout=600)["tasks"]
            if counts["READY"] == 0 and counts["RUNNING"] == 0:
                break
            if time.perf_counter() >= next_kill:
                victim = random.choice(list(processes))
                os.killpg(processes[victim].pid, signal.SIGKILL)
                processes[victim].wait()
                processes[victim] = start_worker(env, f"crash-{spawned}", batch=False)
                kills, spawned, next_kill = kills + 1, spawned + 1, time.perf_counter() + kill_every
            if time.perf_counter() - started > 1800:
                raise SystemExit("the queue did not drain in 30 minutes")
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)
    elapsed = time.perf_counter() - started
    final = run_json(env, WORKLOAD, "count", "crash-", timeout=600)
    result = {
        "tasks": count, "workers": workers, "kills": kills,
        "succeeded": final["tasks"]["SUCCESSFUL"], "failed": final["tasks"]["FAILED"],
        "lost": count - final["tasks"]["SUCCESSFUL"] - final["tasks"]["FAILED"],
        "rows": final["rows"], "seconds_to_drain": round(elapsed, 1),
    }  # fmt: skip
    log(f"  crash safety: {result}")
    return result


def pages_under_load(env, folder, tasks, workers=4, seconds=10):
    """An article page's latency, idle and while the workers write."""
    manage(env, "seed_synthetic", "--articles", "1000", "--tags", "500", timeout=1800)
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
    path = run_json(env, WORKLOAD, "article", timeout=600)["path"]
    results = {}
    for kept in (True, False):
        name = "cached" if kept else "uncached"
        server_env = {**env, "PAGE_CACHE": "1" if kept else "0"}
        with Gunicorn(server_env, folder / f"gunicorn-{name}.log", workers=2) as server:
            server.get(path)
            idle = wrk(server.base_url + path, seconds, connections=8, threads=2)
            run_json(env, WORKLOAD, "clear", timeout=600)
            run_json(env, WORKLOAD, "enqueue", "write", str(tasks), f"{name}-", timeout=1200)
            processes = [start_worker(env, f"pages-{n}", batch=False) for n in range(workers)]
            try:
                busy = wrk(server.base_url + path, seconds, connections=8, threads=2)
            finally:
                for process in processes:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(timeout=60)
            done = run_json(env, WORKLOAD, "count", f"{name}-", timeout=600)["tasks"]["SUCCESSFUL"]
        results[name] = {
            "idle_p99_ms": idle["p99_us"] / 1000, "busy_p99_ms": busy["p99_us"] / 1000,
            "idle_rps": round(idle["rps"]), "busy_rps": round(busy["rps"]),
            "tasks_done_meanwhile": done,
        }  # fmt: skip
        log(f"  article page, {name}: {results[name]}")
    return results


def bench(database_url, tasks, crash_tasks, folder, pages=False):
    env = django_env(database_url, folder / "static", CACHE_URL="locmem://")
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    runs = [
        throughput(env, kind, tasks, workers) for kind in ("noop", "write") for workers in (1, 4)
    ]
    result = {"throughput": runs, "crash_safety": crash_safety(env, crash_tasks)}
    if pages:
        result["article_page"] = pages_under_load(env, folder, tasks)
    return result


def run(url, options, folder):
    if options.only_pages:
        env = django_env(url, folder / "static", CACHE_URL="locmem://")
        manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
        return {"article_page": pages_under_load(env, folder, options.tasks)}
    return bench(url, options.tasks, options.crash_tasks, folder, pages=options.pages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--crash-tasks", type=int, default=5_000)
    parser.add_argument("--pages", action="store_true", help="also the article page's p99")
    parser.add_argument("--only-pages", action="store_true", help="the article page alone")
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    results = {}
    with tempfile.TemporaryDirectory(prefix="skillo-bench-tasks-") as folder:
        folder = Path(folder)
        if options.database in ("sqlite", "both"):
            log("SQLite")
            url = f"sqlite:///{folder / 'tasks.sqlite3'}"
            results["sqlite"] = run(url, options, folder)
        if options.database in ("postgres", "both"):
            log("PostgreSQL")
            with PostgresCluster() as cluster:
                url = cluster.create_database("skillo_tasks")
                results["postgres"] = run(url, options, folder)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
