"""check_sources on 10,000 source URLs against the local link server (loopback only).

    .venv/bin/python bench/sources.py                   # 10,000 URLs on 100 hosts
    .venv/bin/python bench/sources.py --urls 2000 --hosts 20 --delay 0.1

Migrates a throwaway SQLite database, cites the URLs from published articles (five
sources each), runs ``manage.py check_sources`` with the given politeness and prints
the wall time, the verdicts, and the most connections the server saw open at once to
any one host (tests/link_server.py counts them; it must not exceed --per-host). The
URLs mix pages, PDFs, permanent redirects, 404s, 410s, soft 404s, servers refusing HEAD,
server errors (retried once) and a few that never answer (timeouts).
"""

import argparse
import os
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# path, share of the URLs (the rest are plain pages)
MIX = [
    ("/moved", 0.03), ("/missing", 0.03), ("/gone", 0.01), ("/soft", 0.01),
    ("/soft-title", 0.01), ("/file.pdf", 0.02), ("/no-head", 0.03), ("/error", 0.005),
    ("/temporary", 0.02),
]  # fmt: skip


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=10000)
    parser.add_argument("--hosts", type=int, default=100)
    parser.add_argument("--per-host", type=int, default=2)
    parser.add_argument("--delay", type=float, default=0.05, help="between starts per host")
    parser.add_argument("--timeout", type=float, default=2.0)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--hanging", type=int, default=10, help="URLs that never answer")
    return parser.parse_args()


def urls_for(server, count, hanging):
    paths = []
    for path, share in MIX:
        paths += [path] * int(count * share)
    paths += ["/hang"] * hanging
    paths += ["/ok/page"] * (count - len(paths))
    return [server.url(f"{path}?n={n}", host=n % len(server.addresses)) for n, path in
            enumerate(paths)]  # fmt: skip


def main():
    args = parse_args()
    folder = tempfile.mkdtemp(prefix="skillo-bench-sources-")
    os.environ["DATABASE_URL"] = f"sqlite:///{folder}/bench.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.development")
    # The link server is on loopback, which source checks refuse unless this is on.
    os.environ["ALLOW_PRIVATE_ADDRESSES"] = "true"
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from news.models import Article, Source
    from tests.link_server import LinkServer

    call_command("migrate", verbosity=0)
    with LinkServer(hosts=args.hosts) as server:
        urls = urls_for(server, args.urls, args.hanging)
        now = timezone.now()
        articles = Article.objects.bulk_create(
            Article(
                title=f"Story {n}",
                slug=f"story-{n}",
                body="Text.",
                event_date=now.date(),
                facts_verified=now.date().replace(day=1),
                status="published",
                published_at=now,
            )
            for n in range((len(urls) + 4) // 5)
        )
        Source.objects.bulk_create(
            Source(article=articles[n // 5], position=n % 5, title="Notes", publisher="P", url=url)
            for n, url in enumerate(urls)
        )
        out = StringIO()
        started = time.monotonic()
        call_command(
            "check_sources", "--per-host", str(args.per_host), "--delay", str(args.delay),
            "--timeout", str(args.timeout), "--concurrency", str(args.concurrency), stdout=out,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        print(out.getvalue(), end="")
        print(
            f"{len(urls)} URLs on {args.hosts} hosts, per-host limit {args.per_host}, "
            f"delay {args.delay} s, timeout {args.timeout} s: {elapsed:.1f} s in all "
            f"(the command, database writes included)."
        )
        print(f"Most connections open at once to one host: {max(server.max_open.values())}")
        started = time.monotonic()
        out = StringIO()
        call_command("check_sources", stdout=out)
        print(f"A second run at once: {out.getvalue().splitlines()[0]} "
              f"({time.monotonic() - started:.1f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
