"""Each public page in the four states a reader meets it in, against the Wagtail post of
the same run (issue 43, "Fast when nothing is kept").

    .venv/bin/python bench/states.py                       # SQLite, 1,000 articles
    .venv/bin/python bench/states.py --articles 100000 --no-reference
    .venv/bin/python bench/states.py --database postgres
    .venv/bin/python bench/states.py --quick               # 200 articles, short runs

For the article, home, topic, author and archive (month) pages:

- **page-cache hit over HTTP**: requests per second through gunicorn (bench settings,
  2 workers, the page cache on, metrics counting) against the floor: the same server
  with only the middleware Django's startproject writes, answering the same bytes from
  memory (bench/floor_settings.py), page and floor one after the other; wrk asks for
  gzip, as browsers do;
- **warm**, **after an edit** (of the page's newest article) and **cold** (every cache
  emptied before each request): server time in-process (bench/_states.py), with the
  page cache off, and the SQL queries of each;

each in-process round followed by the Wagtail post (bench/reference.py, as many posts
as articles), ``--rounds`` times turn about: only neighbouring measurements compare on
a machine whose speed drifts. The tables print medians over the rounds and the ratio
"Wagtail post ÷ this page" (above 1: faster than the post).

Progress goes to stderr, the tables (Markdown) to stdout.
"""

import argparse
import contextlib
import statistics
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
    find_postgres,
    log,
    manage,
    prepare_database,
    run_json,
    tags_for,
    wrk,
)
from bench._states import PAGES
from bench.reference import reference_site

MINIMAL_PATH = "/bench/minimal/"
HEADERS = ("Accept-Encoding: gzip",)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3, help="in-process rounds, turn about")
    parser.add_argument("--repeat", type=int, default=50, help="timed requests per state")
    parser.add_argument("--duration", type=float, default=5, help="seconds of wrk per run")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--no-http", action="store_true", help="skip the page-cache hits")
    parser.add_argument("--no-reference", action="store_true", help="skip the Wagtail post")
    parser.add_argument("--quick", action="store_true", help="200 articles, short runs")
    args = parser.parse_args()
    if args.quick:
        args.articles, args.rounds, args.repeat, args.duration = 200, 1, 10, 2
    return args


def measure_hits(env, workdir, paths, args):
    """{page: (hit req/s, floor req/s)} over HTTP, each page then its floor."""
    figures = {}
    with Gunicorn(env, workdir / "gunicorn.log") as server:
        for page, path in paths.items():
            body = gzipped_body(server, path)
            wrk(server.base_url + path, 1, args.connections, 2, headers=HEADERS)
            hit = wrk(server.base_url + path, args.duration, args.connections, 2, headers=HEADERS)
            floor_page = workdir / f"floor-{page}.bin"
            floor_page.write_bytes(body)
            floor_env = {
                **env,
                "DJANGO_SETTINGS_MODULE": "bench.floor_settings",
                "BENCH_MINIMAL_PAGE": str(floor_page),
            }
            with Gunicorn(floor_env, workdir / "gunicorn-floor.log") as floor_server:
                url = floor_server.base_url + MINIMAL_PATH
                wrk(url, 1, args.connections, 2, headers=HEADERS)
                floor = wrk(url, args.duration, args.connections, 2, headers=HEADERS)
            if hit["not_2xx"] or floor["not_2xx"] or hit["socket_errors"]:
                raise BenchError(f"{page}: errors under load: {hit}, {floor}")
            log(f"  {page:<8} hit {hit['rps']:>7.0f} req/s, floor {floor['rps']:>7.0f} req/s")
            figures[page] = (hit["rps"], floor["rps"])
    return figures


def gzipped_body(server, path):
    """The bytes a browser asking for gzip gets (twice: the first stores the page)."""
    import urllib.request

    request = urllib.request.Request(server.base_url + path, headers={"Accept-Encoding": "gzip"})
    for _ in range(2):
        with urllib.request.urlopen(request, timeout=60) as response:
            body = response.read()
    return body


def measure_states(env, args, measure_wagtail):
    """[(skillo rows, wagtail ms or None)], one per round."""
    rounds = []
    for number in range(1, args.rounds + 1):
        log(f"Round {number}: Skillo's pages in-process")
        rows = run_json(
            {**env, "PAGE_CACHE": "0"}, "bench._states", "--repeat", str(args.repeat),
            timeout=1800,
        )  # fmt: skip
        wagtail = measure_wagtail(args.repeat)["median_ms"] if measure_wagtail else None
        if wagtail is not None:
            log(f"  Wagtail post {wagtail:.1f} ms")
        rounds.append((rows, wagtail))
    return rounds


def print_tables(args, rounds, hits, wagtail_queries):
    pages = list(dict.fromkeys(row["page"] for row in rounds[0][0]))
    states = list(dict.fromkeys(row["state"] for row in rounds[0][0]))
    print(
        f"\n### {args.database}, {args.articles:,} articles: server time in-process "
        f"(median of {args.rounds} rounds of {args.repeat} requests)\n"
    )
    header = "| page | " + " | ".join(f"{state}: queries, ms, Wagtail ÷ this" for state in states)
    print(header + " |")
    print("|---|" + "---|" * len(states))
    for page in pages:
        cells = []
        for state in states:
            times, ratios, queries = [], [], None
            for rows, wagtail in rounds:
                row = next(r for r in rows if r["page"] == page and r["state"] == state)
                times.append(row["ms"])
                queries = row["queries"]
                if wagtail:
                    ratios.append(wagtail / row["ms"])
            ratio = f"{statistics.median(ratios):.2f}x" if ratios else "-"
            cells.append(f"{queries}, {statistics.median(times):.1f}, {ratio}")
        print(f"| {page} | " + " | ".join(cells) + " |")
    wagtail = [w for _, w in rounds if w]
    if wagtail:
        print(
            f"\nWagtail post: {wagtail_queries} queries, median "
            f"{statistics.median(wagtail):.1f} ms (rounds: "
            + ", ".join(f"{w:.1f}" for w in wagtail)
            + ")"
        )
    if hits:
        print(f"\n### Page-cache hit over HTTP (gunicorn, 2 workers, wrk {args.connections} "
              f"connections, {args.duration:.0f} s, gzip)\n")  # fmt: skip
        print("| page | hit req/s | floor req/s | hit ÷ floor |")
        print("|---|---:|---:|---:|")
        for page, (hit, floor) in hits.items():
            print(f"| {page} | {hit:.0f} | {floor:.0f} | {hit / floor:.2f} |")


def main():
    exit_cleanly_on_sigterm()
    args = parse_args()
    with tempfile.TemporaryDirectory(prefix="skillo-bench-states-") as folder:
        workdir = Path(folder)
        if args.database == "postgres" and find_postgres() is None:
            sys.exit("PostgreSQL (initdb) not found")
        cluster = PostgresCluster() if args.database == "postgres" else None
        with cluster or contextlib.nullcontext():
            run(args, workdir, cluster)


def run(args, workdir, cluster):
    try:
        if cluster is not None:
            url = cluster.create_database("bench")
        else:
            url = f"sqlite:///{workdir}/bench.sqlite3"
        env = django_env(url, workdir / "static")
        manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
        log(f"Seeding {args.articles:,} articles")
        prepare_database(env, args.articles, tags_for(args.articles), timeout=3600)
        picked = run_json(
            {**env, "PAGE_CACHE": "0"}, "bench._inprocess", "--pick-only", timeout=600
        )
        picked = dict(picked["pages"])
        paths = {page: picked[name] for page, name in PAGES.items()}
        wagtail_queries = None
        if args.no_reference:
            rounds = measure_states(env, args, None)
        else:
            with reference_site(posts=args.articles) as measure_wagtail:
                wagtail_queries = measure_wagtail(5)["queries"]
                rounds = measure_states(env, args, measure_wagtail)
        hits = None if args.no_http else measure_hits(env, workdir, paths, args)
    except BenchError as error:
        sys.exit(f"bench/states.py failed: {error}")
    print_tables(args, rounds, hits, wagtail_queries)


if __name__ == "__main__":
    main()
