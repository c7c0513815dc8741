"""Load test (issue 6): the production server under 64 concurrent connections.

    .venv/bin/python bench/load.py                    # throwaway PostgreSQL, 30 seconds
    .venv/bin/python bench/load.py --duration 5
    DATABASE_URL=postgres://... .venv/bin/python bench/load.py   # an existing database

Starts gunicorn (bench.settings: production settings over plain http on 127.0.0.1, page
cache on) against PostgreSQL, seeds synthetic articles (unless the database already has
some), then runs wrk spreading requests over the home page, an article and a topic page.
Prints requests/s, p50 and p99 latency, answers other than 2xx and socket errors; exits
1 if there was any of either.
"""

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    BenchError,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    log,
    log_tail,
    manage,
    run_json,
    tags_for,
    wrk,
)

LOADED_PAGES = ("home", "article", "tag")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000, help="articles to seed")
    parser.add_argument("--duration", type=float, default=30, help="seconds of load")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--timeout", type=float, default=5, help="wrk's request timeout, s")
    args = parser.parse_args()
    if args.articles < 50 or args.duration <= 0:
        parser.error("--articles at least 50, --duration positive")
    return args


def database(stack):
    """DATABASE_URL if given, else a fresh database in a throwaway cluster."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    cluster = stack.enter_context(PostgresCluster())
    return cluster.create_database("skillo_load")


def report(figures, paths):
    print(f"Paths: {', '.join(paths)}")
    print(
        f"{figures['requests']:,} requests in {figures['duration_us'] / 1e6:.1f} s: "
        f"{figures['rps']:,.0f} requests/s, p50 {figures['p50_us'] / 1000:.1f} ms, "
        f"p99 {figures['p99_us'] / 1000:.1f} ms, max {figures['max_us'] / 1000:.1f} ms"
    )
    print(
        f"Answers other than 2xx: {figures['not_2xx']}; socket errors: "
        f"connect {figures['connect']}, read {figures['read']}, "
        f"write {figures['write']}, timeout {figures['timeout']}"
    )


def run(args, workdir, stack):
    env = django_env(database(stack), workdir / "static")
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=300)
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    existing = run_json(env, "bench._inprocess", "--count-only", timeout=120)["articles"]
    if existing:
        log(f"The database has {existing:,} articles: not seeding.")
    else:
        manage(
            env, "seed_synthetic", "--articles", str(args.articles),
            "--tags", str(tags_for(args.articles)), timeout=3600,
        )  # fmt: skip
    pages = dict(run_json(env, "bench._inprocess", "--pick-only", timeout=600)["pages"])
    paths = [pages[name] for name in LOADED_PAGES]
    server = stack.enter_context(Gunicorn(env, workdir / "gunicorn.log", args.workers))
    for path in paths:
        server.get(path)  # a 200 (and a cached page) before the load starts
    log(f"wrk: {args.connections} connections for {args.duration:g} s on {server.base_url}")
    figures = wrk(
        server.base_url + "/", args.duration, args.connections, args.threads,
        paths=paths, timeout=args.timeout,
    )  # fmt: skip
    report(figures, paths)
    return 1 if figures["not_2xx"] or figures["socket_errors"] else 0


def main():
    args = parse_args()
    exit_cleanly_on_sigterm()
    workdir = Path(tempfile.mkdtemp(prefix="skillo-load-"))
    try:
        with contextlib.ExitStack() as stack:
            return run(args, workdir, stack)
    except BenchError as error:
        log(f"Load test failed: {error}")
        log_tail(workdir / "gunicorn.log")
        return 2
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
