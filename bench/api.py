"""The API's request rates next to the article page's, in one run (issue 18).

    .venv/bin/python bench/api.py [--articles 1000] [--duration 5]

Seeds a fresh SQLite database, then for the page cache on and off serves it with
gunicorn (2 workers, bench.settings) and puts wrk (16 connections) on the article page,
the API's article list and one article, and the JSON Feed. The anonymous rate limit is
lifted for the run (it would answer wrk with 429s). Prints a Markdown table.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import Gunicorn, django_env, log, manage, prepare_database, tags_for, wrk


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--duration", type=float, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skillo-bench-api-") as folder:
        workdir = Path(folder)
        env = django_env(
            f"sqlite:///{workdir}/bench.sqlite3",
            workdir / "static",
            API_ANON_RATE="100000000/min",
        )
        manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=300)
        prepare_database(env, args.articles, tags_for(args.articles), timeout=3600)
        rows = {}
        for cached in (True, False):
            server_env = {**env, "PAGE_CACHE": "1" if cached else "0"}
            with Gunicorn(server_env, workdir / "gunicorn.log") as server:
                slug = server.get("/api/v1/articles/?page_size=1").decode()
                slug = slug.split('"slug":"', 1)[1].split('"', 1)[0]
                pages = {
                    "article page": f"/articles/{slug}/",
                    "API article list": "/api/v1/articles/",
                    "API article": f"/api/v1/articles/{slug}/",
                    "JSON Feed": "/feed.json",
                }
                for name, path in pages.items():
                    server.get(path)
                    wrk(server.base_url + path, 1, 16, 2)  # warm-up
                    figures = wrk(server.base_url + path, args.duration, 16, 2)
                    if figures["not_2xx"] or figures["socket_errors"]:
                        raise SystemExit(f"{name}: errors under load: {figures}")
                    rows.setdefault(name, {})[cached] = figures
                    log(f"  {name:<18} cached={cached}: {figures['rps']:.0f} req/s")
    print("| page | cached req/s | cached p50 ms | uncached req/s | uncached p50 ms |")
    print("|---|---:|---:|---:|---:|")
    for name, by in rows.items():
        print(
            f"| {name} | {by[True]['rps']:.0f} | {by[True]['p50_us'] / 1000:.1f} "
            f"| {by[False]['rps']:.0f} | {by[False]['p50_us'] / 1000:.1f} |"
        )


if __name__ == "__main__":
    main()
