"""Writing desk benchmark (issue 31): the article form's server time at 100,000 articles.

    .venv/bin/python bench/desk.py                      # SQLite and PostgreSQL, 100,000
    .venv/bin/python bench/desk.py --quick              # smoke run: 1,000 articles
    .venv/bin/python bench/desk.py --databases sqlite --articles 20000 --repeat 21

For each database it creates a fresh one, migrates, runs seed_synthetic, then times
in-process (django.test.Client, production settings, the page cache off, logged in as an
editor) what an editor's browser asks of the server: opening the add form and the change
form of the article with the most sources and related links, the preview and the autosave
it sends while they type, and saving changes and a new article (the POST alone; each is
posted from the form as loaded). Each row gives the median and slowest of ``--repeat``
runs after one to warm up, and the SQL queries of one. The budget is 150 ms of server
time each. PostgreSQL is a throwaway cluster on 127.0.0.1. Progress goes to stderr; the
table to stdout.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    BenchError,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    log,
    manage,
    prepare_database,
    run_json,
    tags_for,
)

BUDGET_MS = 150
ROWS = [
    "open add form",
    "open change form",
    "preview while typing",
    "autosave while typing",
    "save changes",
    "save new article",
]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="1,000 articles, 5 runs each")
    args = parser.parse_args()
    if args.quick:
        args.articles, args.repeat = 1000, 5
    return args


def measure(database, articles, repeat, workdir, static):
    cluster = PostgresCluster() if database == "postgres" else None
    with cluster or _nothing():
        if cluster:
            url = cluster.create_database("desk")
        else:
            url = f"sqlite:///{workdir}/desk-{articles}.sqlite3"
        env = django_env(url, static, PAGE_CACHE="0")
        log(f"== {database}: seeding {articles:,} articles")
        seconds = prepare_database(env, articles, tags_for(articles), timeout=3600)
        log(f"{database}: seeded in {seconds:.0f} s; timing the article form")
        return run_json(env, "bench._desk", "--repeat", str(repeat), timeout=1800)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False


def print_table(results):
    print(f"| request | {' | '.join(results)} |")
    print(f"|---|{'---|' * len(results)}")
    for row in ROWS:
        cells = []
        for figures in results.values():
            found = figures[row]
            over = " (over)" if found["median_ms"] > BUDGET_MS else ""
            cells.append(
                f"{found['median_ms']:.1f} ms median, {found['max_ms']:.1f} max, "
                f"{found['queries']} queries{over}"
            )
        print(f"| {row} | {' | '.join(cells)} |")
    for database, figures in results.items():
        print(f"\n{database}: {figures['articles']:,} articles; the change form's article: "
              f"{figures['article']}")  # fmt: skip


def main():
    exit_cleanly_on_sigterm()
    args = parse_args()
    results = {}
    with tempfile.TemporaryDirectory(prefix="skillo-desk-") as folder:
        workdir = Path(folder)
        static = workdir / "static"
        manage(django_env("sqlite://:memory:", static), "collectstatic", "--noinput",
               "--verbosity", "0", timeout=900)  # fmt: skip
        for database in args.databases.split(","):
            try:
                results[database] = measure(database, args.articles, args.repeat, workdir, static)
            except BenchError as error:
                log(f"{database}: skipped: {error}")
    if not results:
        raise SystemExit("no database could be measured")
    print_table(results)


if __name__ == "__main__":
    main()
