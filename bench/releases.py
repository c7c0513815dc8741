"""The release desk's polling run over 500 sources served on loopback (tests/releases).

    .venv/bin/python bench/releases.py                    # 500 sources on 25 hosts
    .venv/bin/python bench/releases.py --sources 2000 --pace 0.2

Migrates a throwaway SQLite database, watches a project for every two sources, and
serves each source's document as its service does (GitHub Atom, PyPI RSS, npm's
registry document, crates.io's versions, RSS and JSON Feed blogs; ETag, Last-Modified,
304). A tenth of the sources already hold the current ETag (they answer 304), a
twentieth fail (500, 429, a redirect loop, HTML for a feed). It runs one polling run in
this process (one worker), then a second one with nothing new, and prints for each its
wall time, the requests made, the tips created and the writes (INSERT, UPDATE, DELETE).
"""

import argparse
import os
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=500)
    parser.add_argument("--hosts", type=int, default=25)
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between requests per host")
    parser.add_argument("--releases", type=int, default=3, help="recent releases per source")
    return parser.parse_args()


def main():
    args = parse_args()
    folder = tempfile.mkdtemp(prefix="skillo-bench-releases-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.development")
    # The server is on loopback, which outbound refuses unless this is on.
    os.environ["ALLOW_PRIVATE_ADDRESSES"] = "true"
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from releases.models import READ_EVERY, ReleaseSource, Tip, WatchedProject
    from releases.polling import Pace, read_due
    from tests.releases import formats
    from tests.releases.release_server import ReleaseServer, Route

    call_command("migrate", verbosity=0)
    now = timezone.now().replace(microsecond=0)
    dates = [now - timedelta(days=2 * n + 1) for n in range(args.releases)]

    def route(kind, n):
        name = f"p{n // 2}"
        numbers = [f"{(n // 2) % 7 + 1}.{args.releases - k}.0" for k in range(args.releases)]
        if kind == "github":
            rows = [
                (f"v{v}", d, f"<p>{name} {v}.</p>") for v, d in zip(numbers, dates, strict=True)
            ]
            return Route(formats.github_atom(f"o/{name}", rows), "application/atom+xml")
        if kind == "pypi":
            return Route(
                formats.pypi_rss(name, list(zip(numbers, dates, strict=True))),
                "text/xml",
                modified=now,
            )
        if kind == "npm":
            return Route(
                formats.npm_document(name, list(zip(numbers, dates, strict=True))),
                "application/json",
            )
        if kind == "crates":
            return Route(
                formats.crates_versions(name, list(zip(numbers, dates, strict=True))),
                "application/json",
            )
        if kind == "rss":
            posts = [(f"{name} {v} released", f"https://example.org/{name}/{v}", d, "<p>Out.</p>")
                     for v, d in zip(numbers, dates, strict=True)]  # fmt: skip
            return Route(formats.rss_blog(name, posts), "application/rss+xml")
        posts = [(f"{name} {v}", f"https://example.org/{name}/{v}", d.isoformat(), "<p>Out.</p>")
                 for v, d in zip(numbers, dates, strict=True)]  # fmt: skip
        return Route(formats.json_feed(name, posts), "application/feed+json")

    # Each project: its GitHub releases with one of the registries or a blog, so one
    # tip per version comes from two sources.
    pairs = [("github", "pypi"), ("github", "npm"), ("github", "crates"), ("rss", "feedjson")]
    failures = [
        Route(status=500),
        Route(status=429, headers={"Retry-After": "600"}),
        Route(status=302, headers={"Location": "/loop"}),
        Route(b"<!doctype html><title>Blog</title>", "text/html"),
    ]
    with ReleaseServer(hosts=args.hosts, keep_alive=True) as server:
        server.serve("/loop", Route(status=302, headers={"Location": "/loop"}))
        projects = WatchedProject.objects.bulk_create(
            WatchedProject(name=f"Project {n}", slug=f"p{n}")
            for n in range((args.sources + 1) // 2)
        )
        sources = []
        for n in range(args.sources):
            kind = pairs[(n // 2) % len(pairs)][n % 2]
            path = f"/{n}/{kind}"
            # 5% failing
            answer = failures[(n // 20) % len(failures)] if n % 20 == 7 else route(kind, n)
            address = server.serve(path, answer, host=n % args.hosts)
            source = ReleaseSource(
                project=projects[n // 2],
                kind="feed" if kind in {"rss", "feedjson"} else kind,
                identifier=address,
            )
            if n % 10 == 3:  # 10% already read: their ETag matches, they answer 304
                source.etag = answer.etag
            sources.append(source)
        ReleaseSource.objects.bulk_create(sources)

        def one_run(at, label):
            queries = []

            def count(execute, sql, params, many, context):
                queries.append(sql.split()[0].upper())
                return execute(sql, params, many, context)

            started = time.perf_counter()
            with connection.execute_wrapper(count):
                summary = read_due(now=at, pace=Pace(per_host=args.pace))
            seconds = time.perf_counter() - started
            writes = sum(verb in {"INSERT", "UPDATE", "DELETE"} for verb in queries)
            print(
                f"{label}: {seconds:.2f} s, {summary.read} sources, {summary.requests} requests, "
                f"{summary.tips_created} tips created, {summary.links_added} links, "
                f"{summary.failed} failing, {summary.unchanged} unchanged; "
                f"{len(queries)} queries, {writes} writes"
            )

        print(f"{args.sources} sources on {args.hosts} hosts, {args.pace} s between requests "
              f"to a host, {args.releases} recent releases each")  # fmt: skip
        one_run(now, "first run ")
        one_run(now + READ_EVERY, "second run")
        print(f"tips: {Tip.objects.count()}; failing sources: "
              f"{ReleaseSource.objects.filter(failures__gt=0).count()}")  # fmt: skip


if __name__ == "__main__":
    main()
