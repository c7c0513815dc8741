"""Readership ingest (issue 32): beacons per second taken while readers read a cached
article page, on SQLite and PostgreSQL, with the default cache and with Redis.

    .venv/bin/python bench/readership.py            # both databases, both caches, 15 s phases
    .venv/bin/python bench/readership.py --quick    # smoke run: 200 articles, 3 s phases
    .venv/bin/python bench/readership.py --databases sqlite --caches redis --duration 30

For each database (a fresh SQLite file; a throwaway PostgreSQL cluster) it seeds
synthetic articles, then for each cache (``locmem://``, each process's own memory, the
default; a redis-server of its own on 127.0.0.1, ``CACHE_URL=redis://...``) starts
gunicorn as ``make serve`` does (bench.settings: production settings over plain http,
2 x cores + 1 workers, page cache on) and measures

(a) the cached article page with wrk (16 connections) alone: req/s and p99;
(b) the same while a second wrk posts beacons as fast as they are answered (valid ones:
    a browser's User-Agent and Sec-Fetch-* headers, ``{"p": article, "r": "", "w": "l"}``),
    and the beacons answered 204 per second;
(c) after the load, the beacons folded (readership.folding.fold, timed): as many as
    were answered 204. (Not the views they add: every beacon is one browser's, so they
    are one visitor's, a view an hour and, at this rate, a script's: none.) Each beacon
    connection has a wrk thread of its own that stops after an answer once its time is
    up, so none is left in flight unanswered.

Every beacon comes from 127.0.0.1: READERSHIP_PER_MINUTE is raised for the run, or the
per-address limit would drop all but 600 a minute. No background worker runs: the
periodic fold is replaced by the one after the load. Only loopback traffic; progress on
stderr, the table on stdout; exits 1 if a fold's count differs from the 204s.
"""

import argparse
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    BenchError,
    Gunicorn,
    PostgresCluster,
    _PlainProcess,
    django_env,
    exit_cleanly_on_sigterm,
    find_postgres,
    log,
    log_tail,
    manage,
    prepare_database,
    run_json,
    tags_for,
    wrk,
)

PER_MINUTE = 1_000_000_000  # READERSHIP_PER_MINUTE for the run: no beacon over the limit
BUFFER_SECONDS = 5  # READERSHIP_BUFFER_SECONDS's default: the longest a process holds one
TARGET_BEACONS, TARGET_P99_RATIO = 2000, 1.5  # the issue's
BROWSER_HEADERS = (
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/141.0.0.0 Safari/537.36",
    "Sec-Fetch-Site: same-origin",
    "Sec-Fetch-Mode: no-cors",
    "Sec-Fetch-Dest: empty",
    "Content-Type: text/plain;charset=UTF-8",
)
# The beacons' wrk script: one connection per thread, which stops after an answer once
# the deadline (Unix seconds) has passed, so that every beacon sent was answered.
BEACON_SCRIPT = """
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  deadline = tonumber(args[1])
  wrk.method = "POST"
  wrk.body = args[2]
  answered = 0
  other = 0
end

function response(status, headers, body)
  if status == 204 then answered = answered + 1 else other = other + 1 end
  if os.time() >= deadline then wrk.thread:stop() end
end

function done(summary, latency, requests)
  local answered, other = 0, 0
  for _, thread in ipairs(threads) do
    answered = answered + thread:get("answered")
    other = other + thread:get("other")
  end
  local e = summary.errors
  io.write(string.format(
    'BEACONS {"answered": %d, "other": %d, "requests": %d, "connect": %d, "read": %d, '
      .. '"write": %d, "timeout": %d, "p50_us": %d, "p99_us": %d}\\n',
    answered, other, summary.requests, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99)))
end
"""


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--caches", default="locmem,redis", help="locmem,redis")
    parser.add_argument("--articles", type=int, default=1000, help="articles to seed")
    parser.add_argument("--duration", type=float, default=15, help="seconds a phase")
    parser.add_argument(
        "--warmup", type=float, default=5,
        help="seconds of reading first (each worker's first page makes its release digest)",
    )  # fmt: skip
    parser.add_argument("--connections", type=int, default=16, help="readers' connections")
    parser.add_argument(
        "--beacon-connections", type=int, default=16,
        help="beacon connections (a wrk thread each)",
    )  # fmt: skip
    parser.add_argument(
        "--workers", type=int, default=2 * (os.cpu_count() or 1) + 1,
        help="gunicorn workers (make serve's: 2 x cores + 1)",
    )  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="200 articles, 3-second phases")
    args = parser.parse_args()
    if args.quick:
        args.articles, args.duration, args.warmup = 200, 3, 2
    args.databases = [name.strip() for name in args.databases.split(",") if name.strip()]
    args.caches = [name.strip() for name in args.caches.split(",") if name.strip()]
    if not args.databases or set(args.databases) - {"sqlite", "postgres"}:
        parser.error("--databases: sqlite and/or postgres")
    if not args.caches or set(args.caches) - {"locmem", "redis"}:
        parser.error("--caches: locmem and/or redis")
    if args.articles < 50 or args.duration < 1:
        parser.error("--articles at least 50, --duration at least 1")
    return args


class RedisServer(_PlainProcess):
    """Debian's redis-server on a free port of 127.0.0.1, nothing saved to disk."""

    name = "redis-server"

    def prepare(self):
        binary = shutil.which("redis-server")
        if binary is None:
            raise BenchError("redis-server not found: apt-get install -y redis-server")
        return [
            binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder),
            "--save", "", "--appendonly", "no",
        ]  # fmt: skip

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}/0"


def fold_and_count(env):
    """Fold what waits (in a child process, as the periodic task would): how many were
    folded, in how many seconds, and the views counted in all."""
    return run_json(env, "bench.readership", "--fold", timeout=1800)


def post_beacons(base_url, body, deadline, args, folder):
    """Start wrk posting ``body`` until ``deadline`` (Unix seconds); returns the process
    and the file its output goes to, for ``beacon_figures``."""
    if shutil.which("wrk") is None:
        raise BenchError("wrk not found: apt-get install -y wrk")
    script = folder / "beacons.lua"
    script.write_text(BEACON_SCRIPT)
    # wrk runs for its whole --duration: long enough for every thread to stop itself.
    duration = math.ceil(deadline - time.time()) + 2
    command = [
        "wrk", f"--threads={args.beacon_connections}",
        f"--connections={args.beacon_connections}", f"--duration={duration}s",
        "--timeout=30s", *(f"--header={header}" for header in BROWSER_HEADERS),
        f"--script={script}", base_url + "/readership/beacon/", "--", str(deadline), body,
    ]  # fmt: skip
    output = open(folder / "beacons.out", "w+")  # noqa: SIM115 (closed by beacon_figures)
    return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT), output


def beacon_figures(started, timeout):
    """The figures of the beacons' wrk (BEACON_SCRIPT's line), once it has ended."""
    process, output = started
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise BenchError("the beacons' wrk did not end") from None
    with output:
        output.seek(0)
        text = output.read()
    line = next((line for line in text.splitlines() if line.startswith("BEACONS ")), None)
    if process.returncode or line is None:
        raise BenchError(f"the beacons' wrk failed:\n{text}")
    return json.loads(line.removeprefix("BEACONS "))


def measure(env, path, args, folder, database, cache):
    """(a), (b) and (c) for one database and cache, on a gunicorn of their own."""
    log(f"== {database}, {cache}: gunicorn with {args.workers} workers")
    fold_and_count(env)  # what an earlier run left
    with Gunicorn(env, folder / "gunicorn.log", workers=args.workers) as server:
        url = server.base_url + path
        server.get(path)
        wrk(url, args.warmup, args.connections, 2)  # every worker has the page cached
        alone = wrk(url, args.duration, args.connections, 2)
        log(f"   article alone: {alone['rps']:,.0f} req/s, p99 {alone['p99_us'] / 1000:.1f} ms")
        server.get("/robots.txt", timeout=300)  # what wrk left queued is answered
        body = json.dumps({"p": path, "r": "", "w": "l"}, separators=(",", ":"))
        started = time.time()
        # The beacons start first and end after the readers: the whole reading is loaded.
        deadline = math.ceil(started + 1 + args.duration)
        poster = post_beacons(server.base_url, body, deadline, args, folder)
        time.sleep(1)
        try:
            loaded = wrk(url, args.duration, args.connections, 2)
        finally:
            posted = beacon_figures(poster, timeout=args.duration + 60)
        seconds = deadline - started
        log(
            f"   with beacons: {loaded['rps']:,.0f} req/s, p99 {loaded['p99_us'] / 1000:.1f} ms; "
            f"{posted['answered']:,} beacons answered 204 in {seconds:.1f} s"
        )
        if cache == "locmem":  # each process holds its beacons up to BUFFER_SECONDS
            time.sleep(BUFFER_SECONDS + 2)
        after = fold_and_count(env)
    folded = after["folded"] or 0
    if folded != posted["answered"]:
        log(f"   MISMATCH: {posted['answered']:,} answered 204, {folded:,} beacons folded")
    return {
        "database": database, "cache": cache, "alone": alone, "loaded": loaded,
        "beacons": posted, "beacons_per_second": posted["answered"] / seconds,
        "folded": folded, "fold_seconds": after["seconds"],
    }  # fmt: skip


def bench_database(database, args, workdir, stack):
    log(f"== {database}: {args.articles:,} articles")
    if database == "sqlite":
        url = f"sqlite:///{workdir}/readership.sqlite3"
    else:
        cluster = stack.enter_context(PostgresCluster())
        url = cluster.create_database("skillo_readership")
    env = django_env(
        url, workdir / "static", PAGE_CACHE="1", READERSHIP_PER_MINUTE=str(PER_MINUTE),
        READERSHIP_BUFFER_SECONDS=str(BUFFER_SECONDS), CACHE_URL="locmem://",
    )  # fmt: skip
    seconds = prepare_database(env, args.articles, tags_for(args.articles), timeout=3600)
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
    log(f"   seeded in {seconds:.0f} s")
    path = dict(run_json(env, "bench._inprocess", "--pick-only", timeout=600)["pages"])["article"]
    rows = []
    for cache in args.caches:
        folder = workdir / f"{database}-{cache}"
        folder.mkdir()
        try:
            if cache == "redis":
                with RedisServer(folder / "redis") as redis:
                    rows.append(measure({**env, "CACHE_URL": redis.url}, path, args, folder,
                                        database, cache))  # fmt: skip
            else:
                rows.append(measure(env, path, args, folder, database, cache))
        except BenchError:
            log_tail(folder / "gunicorn.log")
            raise
    return rows


def print_table(rows, args):
    print(
        f"Readership ingest: the cached article page (wrk, {args.connections} connections) "
        f"alone and while {args.beacon_connections} more connections post beacons as fast "
        f"as they are answered; {args.duration:g} s a phase, {args.articles:,} articles."
    )
    print(
        f"gunicorn with {args.workers} workers (make serve's 2 x cores + 1 on this "
        f"{os.cpu_count()}-core machine), production settings (bench.settings), page cache on."
    )
    print(
        f"READERSHIP_PER_MINUTE raised to {PER_MINUTE:,} for the run: every beacon comes "
        "from 127.0.0.1, and the per-address limit (600 a minute) would drop the rest."
    )
    print(
        "No background worker: instead of the periodic fold, one fold after the load "
        "(its seconds in the last column)."
    )
    print()
    print(
        "| database | cache | article req/s alone | p99 ms alone | article req/s with beacons "
        "| p99 ms with beacons | p99 with / alone | beacons/s answered 204 | beacon p99 ms "
        "| answered 204 | beacons folded | target | fold s |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for row in rows:
        alone, loaded, beacons = row["alone"], row["loaded"], row["beacons"]
        ratio = loaded["p99_us"] / alone["p99_us"] if alone["p99_us"] else math.inf
        met = row["beacons_per_second"] >= TARGET_BEACONS and ratio <= TARGET_P99_RATIO
        folded = f"{row['folded']:,}" + ("" if row["folded"] == beacons["answered"] else " (!)")
        print(
            f"| {row['database']} | {row['cache']} | {alone['rps']:,.0f} "
            f"| {alone['p99_us'] / 1000:,.1f} | {loaded['rps']:,.0f} "
            f"| {loaded['p99_us'] / 1000:,.1f} | {ratio:.2f} | {row['beacons_per_second']:,.0f} "
            f"| {beacons['p99_us'] / 1000:,.1f} | {beacons['answered']:,} | {folded} "
            f"| {'met' if met else 'not met'} | {row['fold_seconds']:.1f} |"
        )
    print()
    print(
        f"Target (issue 32): at least {TARGET_BEACONS:,} beacons/s with the article page's "
        f"p99 no more than {TARGET_P99_RATIO}x its figure without them."
    )
    problems = []
    for row in rows:
        beacons, name = row["beacons"], f"{row['database']}, {row['cache']}"
        if row["folded"] != beacons["answered"]:
            problems.append(
                f"{name}: {beacons['answered']:,} beacons answered 204 but {row['folded']:,} "
                "beacons folded: they must be equal"
            )
        errors = sum(beacons[key] for key in ("connect", "read", "write", "timeout"))
        if beacons["other"] or errors:
            problems.append(
                f"{name}: {beacons['other']:,} beacons answered other than 204, "
                f"{errors:,} socket errors"
            )
        for phase in ("alone", "loaded"):
            if row[phase]["not_2xx"] or row[phase]["socket_errors"]:
                problems.append(f"{name}: article page {phase}: errors: {row[phase]}")
    for problem in problems:
        print(f"PROBLEM: {problem}")
    if not problems:
        print("Every run: the beacons folded equal those answered 204, and no errors.")
    return problems


def run(args):
    if find_postgres() is None and "postgres" in args.databases:
        log("PostgreSQL not found (initdb, pg_ctl): SQLite only")
        args.databases = [name for name in args.databases if name != "postgres"]
    workdir = Path(tempfile.mkdtemp(prefix="skillo-bench-readership-"))
    started = time.monotonic()
    try:
        rows = []
        for database in args.databases:
            with contextlib.ExitStack() as stack:
                rows += bench_database(database, args, workdir, stack)
    except BenchError as error:
        log(f"Readership benchmark failed: {error}")
        return 2
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    problems = print_table(rows, args)
    log(f"Done in {time.monotonic() - started:.0f} s")
    return 1 if problems else 0


def fold_child():
    """``python -m bench.readership --fold`` in the site's environment: one fold, as JSON."""
    import django

    django.setup()
    from django.db.models import Sum

    from readership.folding import fold
    from readership.models import ArticleHour

    started = time.perf_counter()
    folded = fold()
    seconds = time.perf_counter() - started
    views = ArticleHour.objects.aggregate(views=Sum("views"))["views"] or 0
    print(json.dumps({"folded": folded, "seconds": seconds, "views": views}))


def main():
    if sys.argv[1:] == ["--fold"]:
        return fold_child()
    exit_cleanly_on_sigterm()
    return run(parse_args())


if __name__ == "__main__":
    sys.exit(main())
