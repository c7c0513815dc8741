"""Page benchmark (issue 5): what each public page costs, uncached and cached.

    .venv/bin/python bench/pages.py                 # SQLite and PostgreSQL, 1,000 and 100,000
    .venv/bin/python bench/pages.py --quick         # smoke run: 200 articles, 1-second runs
    .venv/bin/python bench/pages.py --databases sqlite --sizes 1000,5000 --duration 5

For each database and size it creates a fresh database, migrates, runs seed_synthetic
(tags: 500 at 1,000 articles, 5,000 at 100,000; see _server.tags_for), then

- in-process with django.test.Client and the page cache off (PAGE_CACHE=0): SQL queries
  and median and 99th-percentile server time of each page, search for each query kind
  included, and of the minimal view below, so that each page reads as a multiple of it
  ("uncached / minimal view": machines differ several times over, that ratio less);
- over HTTP with wrk against gunicorn (2 workers, bench.settings, page cache on): each
  page's requests/s and p50/p99 latency, each followed by the same measurement of a
  minimal view that returns the article page's bytes from memory through the same
  middleware; the ratio of the two says how close a cached page comes to Django's floor;
- the cached article page served from in front (a second table, ``--no-front`` skips
  it): through Varnish (deploy/varnish/skillo.vcl) in front of gunicorn, as gunicorn
  alone (2 workers, and as ``make serve`` runs it: 2 x cores + 1 workers), and the same
  bytes as a static file from nginx, the yardstick; all asking for gzip, as browsers do.

- the Wagtail reference (a third table, ``--no-reference`` skips it): a blog post page of
  a small Wagtail site modelled on bakerydemo, with as many posts as the smallest size,
  timed in-process the same way against Skillo's uncached article page
  (bench/reference.py; its own virtualenv, .venv-wagtail/, made on first use). The two
  are timed turn about, REFERENCE_ROUNDS times, each in a fresh process, on SQLite at
  the smallest size: this machine's speed drifts during a long run (the minimal view
  took 0.23 to 0.67 ms within one), and only neighbouring measurements compare.

PostgreSQL is a throwaway cluster on 127.0.0.1 (skipped with a message if initdb is not
installed). Only loopback traffic. Progress goes to stderr; the table to stdout.
"""

import argparse
import contextlib
import gzip
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    BenchError,
    Gunicorn,
    Nginx,
    PostgresCluster,
    Varnish,
    django_env,
    exit_cleanly_on_sigterm,
    find_nginx,
    find_postgres,
    find_varnishd,
    free_port,
    log,
    log_tail,
    manage,
    prepare_database,
    run_json,
    tags_for,
    wrk,
)
from bench.reference import reference_site

MINIMAL = "minimal view"
# bench/urls.py's MINIMAL_PATH (that module needs Django's settings, this process has none).
MINIMAL_PATH = "/bench/minimal/"
REFERENCE_ROUNDS = 5


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgres", help="sqlite,postgres")
    parser.add_argument("--sizes", default="1000,100000", help="article counts")
    parser.add_argument("--duration", type=float, default=3, help="seconds per wrk run")
    parser.add_argument("--warmup", type=float, default=1, help="seconds of wrk warm-up")
    parser.add_argument("--repeat", type=int, default=7, help="timed in-process requests")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--quick", action="store_true", help="200 articles, 1-second runs")
    parser.add_argument(
        "--no-front", dest="front", action="store_false",
        help="skip the article page through Varnish, nginx and make serve's gunicorn",
    )  # fmt: skip
    parser.add_argument(
        "--no-reference", dest="reference", action="store_false",
        help="skip the Wagtail reference blog post (bench/reference.py)",
    )  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.duration, args.warmup, args.repeat = "200", 1, 1, 3
    args.databases = [db.strip() for db in args.databases.split(",") if db.strip()]
    args.sizes = [int(size) for size in args.sizes.split(",")]
    unknown = set(args.databases) - {"sqlite", "postgres"}
    if unknown or not args.databases:
        parser.error(f"--databases: sqlite and/or postgres, not {', '.join(unknown)}")
    if min(args.sizes) < 50:
        parser.error("--sizes: at least 50 articles (the pages need content)")
    return args


def measure_http(server, pages, args):
    """wrk over each page, each followed by the minimal view; rows keyed by page name."""
    figures = {}

    def run(path, duration=args.duration):
        figures = wrk(server.base_url + path, duration, args.connections, args.threads)
        # wrk leaves up to one request per connection queued in the server (slow pages
        # too, whose requests timed out): let them finish before the next run.
        server.get("/robots.txt", timeout=300)
        return figures

    run(MINIMAL_PATH, args.warmup)
    for name, path in pages:
        server.get(path)  # a 200, or stop here
        run(path, args.warmup)
        page, floor = run(path), run(MINIMAL_PATH)
        if page["not_2xx"] or floor["not_2xx"]:
            raise BenchError(f"{name}: answers other than 2xx under load: {page}, {floor}")
        if floor["socket_errors"] or not floor["requests"]:
            raise BenchError(f"the minimal view failed under load: {floor}")
        # A slow uncached page (search) may see timeouts: a result, shown in the table.
        page["ratio"] = page["rps"] / floor["rps"]
        figures[name] = page
        figures.setdefault(MINIMAL, []).append(floor)
        log(f"  {name:<14} {page['rps']:>8.0f} req/s, minimal view {floor['rps']:>8.0f} req/s")
    floors = figures.pop(MINIMAL)
    figures[MINIMAL] = {
        key: statistics.mean(run[key] for run in floors) for key in ("rps", "p50_us", "p99_us")
    }
    figures[MINIMAL]["ratio"] = 1.0
    return figures


def bench_one(database, size, args, workdir, cluster, front_rows=None, keep=False):
    """Every figure for one database at one size, as table rows (a SQLite database is
    deleted after, unless ``keep``)."""
    log(f"== {database}, {size:,} articles, {tags_for(size):,} tags")
    if database == "sqlite":
        url = f"sqlite:///{workdir}/bench-{size}.sqlite3"
    else:
        url = cluster.create_database(f"bench_{size}")
    minimal_page = workdir / "minimal.html"
    env = django_env(url, workdir / "static", BENCH_MINIMAL_PAGE=str(minimal_page), PAGE_CACHE="1")
    seconds = prepare_database(env, size, tags_for(size), timeout=3600)
    log(f"   seeded in {seconds:.0f} s; in-process, page cache off:")
    uncached = run_json(
        {**env, "PAGE_CACHE": "0"}, "bench._inprocess", "--repeat", str(args.repeat),
        timeout=3600,
    )  # fmt: skip
    pages = [tuple(page) for page in uncached["pages"]]
    log("   gunicorn + wrk, page cache on:")
    with Gunicorn(env, workdir / "gunicorn.log", workers=args.workers) as server:
        minimal_page.write_bytes(server.get(dict(pages)["article"]))
        cached = measure_http(server, pages, args)
    if front_rows is not None:
        front_rows += measure_front(env, dict(pages)["article"], args, workdir, database, size)
    if database == "sqlite" and not keep:
        # 1.5 GB at 100,000 articles; PostgreSQL's go with the cluster.
        Path(url.removeprefix("sqlite:///")).unlink()
    by_page = {result["page"]: result for result in uncached["results"]}
    # Rows measured in-process only (pages whose fragments were made stale first).
    shown = {name for name, _ in pages}
    extra = [name for name in by_page if name not in shown and name != MINIMAL]
    no_http = dict.fromkeys(("rps", "p50_us", "p99_us", "ratio"))
    return [
        {
            "database": database,
            "articles": size,
            "page": name,
            "queries": by_page.get(name, {}).get("queries"),
            "median_ms": by_page.get(name, {}).get("median_ms"),
            "p99_ms": by_page.get(name, {}).get("p99_ms"),
            "socket_errors": cached.get(name, {}).get("socket_errors"),
            **{key: cached.get(name, no_http)[key] for key in no_http},
        }
        for name in [*(name for name, _ in pages), *extra, MINIMAL]
    ]


# The cached article page from in front: kept apart from the rest of this file.

FRONT_HEADERS = ("Accept-Encoding: gzip",)


def gzipped(url):
    """The body of ``url`` as sent to a browser asking for gzip, and its encoding."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read(), response.headers.get("Content-Encoding")


def measure_front(env, path, args, workdir, database, size):
    """The cached article page at ``path``, in one run: through Varnish in front of
    gunicorn, from gunicorn alone (bench's workers, and make serve's), and its bytes as a
    static file from nginx. Rows for print_front_table; a server that is not installed
    is left out with a message."""
    serve_workers = 2 * (os.cpu_count() or 1) + 1
    folder = workdir / "front"
    folder.mkdir(exist_ok=True)
    figures = []

    def measure(name, url, headers=FRONT_HEADERS):
        wrk(url, args.warmup, args.connections, args.threads, headers=headers)
        result = wrk(url, args.duration, args.connections, args.threads, headers=headers)
        if result["not_2xx"] or result["socket_errors"]:
            raise BenchError(f"{name}: errors under load: {result}")
        return result

    def run(name, url):
        result = measure(name, url)
        if not result["requests"]:
            # Seen once (make serve's workers on a 1.5 GB SQLite file): say so in the row.
            log(f"  {name}: no answer in {args.duration} s: {result}")
            name += " (no answers: not measured)"
        figures.append({"database": database, "articles": size, "server": name, **result})
        log(f"  {name:<44} {result['rps']:>8.0f} req/s")

    log("   the cached article page from in front (Accept-Encoding: gzip):")
    varnish_port = free_port()
    purged_env = {**env, "VARNISH_PURGE_URLS": f"http://127.0.0.1:{varnish_port}"}
    with Gunicorn(purged_env, folder / "gunicorn.log", workers=args.workers) as server:
        body, encoding = gzipped(server.base_url + path)
        run(f"gunicorn ({args.workers} workers)", server.base_url + path)
        if find_varnishd() is None:
            log("   varnishd not found (apt-get install -y varnish varnish-modules): no row")
        else:
            varnish = Varnish(folder / "varnish", server.port)
            varnish.port = varnish_port
            with varnish:
                run("Varnish in front of gunicorn", varnish.base_url + path)
    with Gunicorn(env, folder / "serve.log", workers=serve_workers) as server:
        run(f"gunicorn as make serve runs it ({serve_workers} workers)", server.base_url + path)
        # The measure of make serve: the cached page against the minimal view
        # served by the same processes, both asked as the first table asks (no gzip).
        for name, url in (("article", path), (MINIMAL, MINIMAL_PATH)):
            result = measure(name, server.base_url + url, headers=())
            log(f"  make serve's workers, {name:<31} {result['rps']:>8.0f} req/s")
            figures.append({"database": database, "articles": size, "serve": name, **result})
    if find_nginx() is None:
        log("   nginx not found (apt-get install -y nginx): no row")
    else:
        nginx = Nginx(folder / "nginx")
        page = nginx.root / "article.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        # The very bytes gunicorn sends, precompressed as Varnish keeps them (gzip_static).
        page.with_name("article.html.gz").write_bytes(body)
        page.write_bytes(gzip.decompress(body) if encoding == "gzip" else body)
        with nginx:
            run("nginx, the same page as a static file", nginx.base_url + "/article.html")
    floor = next((row["rps"] for row in figures if row.get("server", "").startswith("nginx")), None)
    for row in figures:
        row["to_nginx"] = row["rps"] / floor if floor else None
    return figures


def print_front_table(rows):
    print()
    print("The cached article page from in front (wrk, Accept-Encoding: gzip):")
    print()
    print("| database | articles | server | req/s | p50 ms | p99 ms | ratio to nginx |")
    print("|---|---|---|---:|---:|---:|---:|")
    for row in rows:
        if "server" not in row:
            continue
        ratio = "" if row["to_nginx"] is None else f"{row['to_nginx']:.2f}"
        print(
            f"| {row['database']} | {row['articles']:,} | {row['server']} | {row['rps']:,.0f} "
            f"| {row['p50_us'] / 1000:,.2f} | {row['p99_us'] / 1000:,.2f} | {ratio} |"
        )
    served = {(r["database"], r["articles"], r["serve"]): r for r in rows if "serve" in r}
    if not served:
        return
    print()
    print("make serve's workers: the cached article page against the minimal view on the same")
    print("server (no gzip asked, as in the first table):")
    print()
    print("| database | articles | article req/s | minimal view req/s | ratio |")
    print("|---|---|---:|---:|---:|")
    for (database, articles, name), row in served.items():
        if name != "article":
            continue
        floor = served[(database, articles, MINIMAL)]["rps"]
        print(
            f"| {database} | {articles:,} | {row['rps']:,.0f} | {floor:,.0f} "
            f"| {row['rps'] / floor:.2f} |"
        )


def scale_column(rows, sizes):
    """Median server time at the largest size over the smallest, per database and page."""
    if len(sizes) < 2:
        return None
    small, large = min(sizes), max(sizes)
    times = {(r["database"], r["articles"], r["page"]): r["median_ms"] for r in rows}
    for row in rows:
        before = times.get((row["database"], small, row["page"]))
        if row["articles"] == large and before and row["median_ms"]:
            row["scale"] = row["median_ms"] / before
    return f"server ms {large:,}/{small:,}"


def times_floor(row, floors):
    """A page's uncached median as a multiple of the minimal view's, measured in the same
    process: machines differ several times over in speed, this ratio much less."""
    floor = floors.get((row["database"], row["articles"]))
    if not floor or row["median_ms"] is None or row["page"] == MINIMAL:
        return ""
    return f"{row['median_ms'] / floor:,.0f}x"


def print_table(rows, scale_title):
    def number(value, digits=1):
        return "" if value is None else f"{value:,.{digits}f}"

    columns = [
        "database", "articles", "page", "queries", "median server ms (uncached)",
        "p99 server ms (uncached)", "uncached / minimal view", "req/s (cached)", "p50 ms",
        "p99 ms", "ratio to minimal view",
    ]  # fmt: skip
    floors = {(r["database"], r["articles"]): r["median_ms"] for r in rows if r["page"] == MINIMAL}
    if scale_title:
        columns.append(scale_title)
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---" if i < 3 else "---:" for i in range(len(columns))) + "|")
    for row in rows:
        errors = row.get("socket_errors")
        cells = [
            row["database"], f"{row['articles']:,}",
            row["page"] + (f" ({errors} socket errors)" if errors else ""),
            "" if row["queries"] is None else str(row["queries"]), number(row["median_ms"]),
            number(row.get("p99_ms")), times_floor(row, floors), number(row["rps"], 0),
            number(row["p50_us"] and row["p50_us"] / 1000),
            number(row["p99_us"] and row["p99_us"] / 1000), number(row["ratio"], 2),
        ]  # fmt: skip
        if scale_title:
            cells.append(number(row.get("scale"), 1) + ("x" if row.get("scale") else ""))
        print("| " + " | ".join(cells) + " |")


def measure_reference(args, workdir):
    """The Wagtail post and Skillo's uncached article (SQLite, the smallest size, kept by
    bench_one), timed turn about: [(wagtail, skillo, yardstick)], one a round, the
    yardstick being the minimal view through Django's default middleware."""
    size = min(args.sizes)
    env = django_env(f"sqlite:///{workdir}/bench-{size}.sqlite3", workdir / "static")
    repeat = str(max(args.repeat, 11))
    rounds = []
    with reference_site(posts=size) as measure_wagtail:
        for number in range(1, (2 if args.quick else REFERENCE_ROUNDS) + 1):
            wagtail = measure_wagtail(int(repeat))
            skillo, yardstick = run_json(
                {**env, "PAGE_CACHE": "0"}, "bench._inprocess", "--repeat", repeat,
                "--only", "article", timeout=600,
            )["results"]  # fmt: skip
            log(
                f"   round {number}: Wagtail {wagtail['median_ms']:.1f} ms, "
                f"Skillo {skillo['median_ms']:.1f} ms"
            )
            rounds.append((wagtail, skillo, yardstick))
    return rounds


def print_reference_table(rounds, rows):
    """The turn-about rounds of measure_reference, then Skillo's article pages of the
    main table against the Wagtail post's median."""
    wagtail = rounds[0][0]
    print(
        "Uncached article page against the Wagtail reference blog post "
        f"(Wagtail {wagtail['wagtail']}, Django {wagtail['django']}, "
        f"{wagtail['posts']:,} posts and as many articles, SQLite), timed turn about, "
        "each in a fresh process:"
    )
    print()
    print("| round | Wagtail post queries | Wagtail median ms | Skillo article queries "
          "| Skillo median ms | Wagtail / Skillo | minimal view, Django's default "
          "middleware, ms |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for number, (post, article, yardstick) in enumerate(rounds, 1):
        print(
            f"| {number} | {post['queries']} | {post['median_ms']:.1f} | {article['queries']} "
            f"| {article['median_ms']:.1f} | {post['median_ms'] / article['median_ms']:.1f}x "
            f"| {yardstick['median_ms']:.2f} |"
        )
    post_ms = statistics.median(post["median_ms"] for post, _, _ in rounds)
    article_ms = statistics.median(article["median_ms"] for _, article, _ in rounds)
    floor_ms = statistics.median(yardstick["median_ms"] for _, _, yardstick in rounds)
    print(
        f"| median | | {post_ms:.1f} | | {article_ms:.1f} | {post_ms / article_ms:.1f}x "
        f"| {floor_ms:.2f} |"
    )
    print()
    print(
        "The issue measured that minimal view at 0.12 ms and set the article's target at "
        f"4 ms, 33 times it; here the article took {article_ms / floor_ms:.0f} times it."
    )
    print()
    print("Skillo's article pages of the table above against that Wagtail median:")
    print()
    print("| database | articles | queries | median ms | minimal view ms | Wagtail / this |")
    print("|---|---|---:|---:|---:|---:|")
    floors = {(r["database"], r["articles"]): r["median_ms"] for r in rows if r["page"] == MINIMAL}
    for row in rows:
        if row["page"] != "article" or not row["median_ms"]:
            continue
        floor = floors.get((row["database"], row["articles"]))
        print(
            f"| {row['database']} | {row['articles']:,} | {row['queries']} "
            f"| {row['median_ms']:.1f} | {'' if floor is None else f'{floor:.2f}'} "
            f"| {post_ms / row['median_ms']:.1f}x |"
        )


def main():
    args = parse_args()
    exit_cleanly_on_sigterm()
    started = time.monotonic()
    if "postgres" in args.databases and find_postgres() is None:
        log("PostgreSQL server not found (initdb, pg_ctl): measuring SQLite only.")
        args.databases = [db for db in args.databases if db != "postgres"]
        if not args.databases:
            return 0
    workdir = Path(tempfile.mkdtemp(prefix="skillo-bench-"))
    rows = []
    front_rows = [] if args.front else None
    rounds = None
    try:
        manage(django_env("sqlite://:memory:", workdir / "static"), "collectstatic",
               "--noinput", "--verbosity", "0", timeout=300)  # fmt: skip
        for database in args.databases:
            cluster = PostgresCluster() if database == "postgres" else None
            with cluster or contextlib.nullcontext():
                for size in args.sizes:
                    keep = args.reference and database == "sqlite" and size == min(args.sizes)
                    rows += bench_one(database, size, args, workdir, cluster, front_rows, keep)
        if args.reference and "sqlite" in args.databases:
            log(f"== the Wagtail reference and Skillo's article, {min(args.sizes):,} each")
            try:
                rounds = measure_reference(args, workdir)
            except BenchError as error:
                # Its own virtualenv and packages: a failure there leaves Skillo's figures.
                log(f"The Wagtail reference failed: {error}")
    except BenchError as error:
        log(f"Benchmark failed: {error}")
        log_tail(workdir / "gunicorn.log")
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print_table(rows, scale_column(rows, args.sizes))
    if front_rows:
        print_front_table(front_rows)
    if rounds:
        print()
        print_reference_table(rounds, rows)
    log(f"Total {time.monotonic() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
