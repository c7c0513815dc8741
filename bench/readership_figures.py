"""Readership figures benchmark (issue 32): what the editors' figures cost on a big site.

    .venv/bin/python bench/readership_figures.py                  # SQLite in a temp folder
    tests/with-postgres.sh .venv/bin/python bench/readership_figures.py
    .venv/bin/python bench/readership_figures.py --quick          # 2,000 articles, 200,000 views

Seeds ``--articles`` synthetic articles (manage.py seed_synthetic) and ``--views`` folded
views over the last ``--days`` days: ArticleHour rows (as readership.folding writes
them), a few hundred articles read each hour, recent ones far more often, and a
SourceHour row beside each. Then, in-process with django.test.Client, the page cache
off, each timed ``--repeat`` times after a warm-up: the admin's home page with its
Readers module (a superuser) and the module's figures alone, an article's change form
with its Readers panel (the most read article of the period, so the longest chart) and
the panel's figures alone, and the periodic task's two parts: the "Most read" ranking and
the dashboard's figures (which the dashboard then reads as kept). Prints the queries,
median and 99th percentile of each. Nothing is sent over the network.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SOURCES = [
    "Direct", "Search engines", "Newsletter", "Fediverse", "E-mail", "Skillo",
    "news.ycombinator.com", "lobste.rs", "reddit.com", "lwn.net", "theregister.com",
    "github.com",
]  # fmt: skip


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--views", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=90, help="the period the views span")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs of each")
    parser.add_argument("--quick", action="store_true", help="a smoke run, small")
    parser.add_argument(
        "--slowest", type=int, default=0, help="print each measure's N slowest queries"
    )
    args = parser.parse_args()
    if args.quick:
        args.articles, args.views, args.repeat = 2000, 200_000, 5
    return args


def setup(folder):
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{folder}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.development")
    os.environ.setdefault("DEBUG", "false")
    os.environ["PAGE_CACHE"] = "0"
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ.setdefault("STATIC_ROOT", folder)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def seed_articles(count):
    from django.core.management import call_command

    from bench._server import tags_for
    from news.models import Article

    if Article.objects.count() >= count:
        return 0.0
    started = time.perf_counter()
    call_command("seed_synthetic", articles=count, tags=tags_for(count), verbosity=0)
    return time.perf_counter() - started


def seed_views(total, days):
    """``total`` views over ``days`` days as folded figures; returns the seconds taken
    and the rows written."""
    from django.db import transaction
    from django.db.models import Sum
    from django.utils import timezone

    from news.models import Article
    from readership.models import ArticleHour, SourceHour

    if ArticleHour.objects.aggregate(views=Sum("views"))["views"] == total:
        return 0.0, ArticleHour.objects.count()  # seeded by an earlier run (DATABASE_URL)
    ArticleHour.objects.all().delete()
    SourceHour.objects.all().delete()
    rng = random.Random(32)
    # Newest first: readers read recent stories far more than old ones.
    ids = list(Article.objects.published().order_by("-published_at").values_list("pk", flat=True))
    hours = days * 24
    per_hour = max(1, min(len(ids), 400))
    views_per_row = total / (hours * per_hour)
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    started, written, rows = time.perf_counter(), 0, 0
    for n in range(hours):
        hour = now - timedelta(hours=n)
        read = {ids[int(len(ids) * rng.random() ** 4)] for _ in range(per_hour)}
        counts, sources = [], []
        for pk in read:
            views = max(1, round(rng.expovariate(1 / views_per_row)))
            views = min(views, total - written)
            if views <= 0:
                break
            written += views
            counts.append(
                ArticleHour(article_id=pk, hour=hour, views=views, visitors=views * 3 // 4)
            )
            sources.append(
                SourceHour(article_id=pk, hour=hour, source=rng.choice(SOURCES), views=views)
            )
        with transaction.atomic():
            ArticleHour.objects.bulk_create(counts, batch_size=2000)
            SourceHour.objects.bulk_create(sources, batch_size=2000)
        rows += len(counts)
    # The views left over go to the newest hour's articles, so that the total is exact.
    left = total - written
    if left > 0:
        newest = ArticleHour.objects.filter(hour=now).order_by("pk").first()
        ArticleHour.objects.filter(pk=newest.pk).update(views=newest.views + left)
    analyse()
    return time.perf_counter() - started, rows


def analyse():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def timed(function, repeat, slowest=0):
    """(queries, median ms, p99 ms) of ``function()``, after a warm-up run; prints its
    ``slowest`` slowest queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    function()
    with CaptureQueriesContext(connection) as captured:
        function()
    queries = len(captured)
    by_time = sorted(captured.captured_queries, key=lambda q: -float(q["time"]))
    for query in by_time[:slowest]:
        # What it reads and how, rather than its long list of columns.
        sql = query["sql"]
        sql = sql[:60] + " ..." + sql[sql.find(" FROM ") :] if " FROM " in sql else sql
        print(f"    {float(query['time']) * 1000:8.1f} ms  {sql[:400]}")
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    return (
        queries,
        statistics.median(timings),
        timings[min(len(timings) - 1, int(len(timings) * 0.99))],
    )


def get(client, path):
    def request():
        response = client.get(path)
        if response.status_code != 200:
            raise SystemExit(f"GET {path} answered {response.status_code}")

    return request


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory() as folder:
        setup(folder)
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django.db.models import Sum
        from django.test import Client

        from readership import figures, most_read
        from readership.models import ArticleHour
        from readership.templatetags.readership_admin import readership_dashboard

        seeding = seed_articles(args.articles)
        print(
            f"{connection.vendor}: {args.articles} articles (seeded in {seeding:.0f} s)", flush=True
        )
        seconds, rows = seed_views(args.views, args.days)
        total = ArticleHour.objects.aggregate(views=Sum("views"))["views"]
        print(
            f"{total:,} folded views in {rows:,} article-hours over {args.days} days "
            f"(seeded in {seconds:.0f} s)",
            flush=True,
        )

        user = get_user_model().objects.filter(username="bench").first()
        user = user or get_user_model().objects.create_superuser("bench", "b@example.org", "bench")
        client = Client()
        client.force_login(user)
        top = figures.most_read(30, 1)[0][0]
        measured = {
            "dashboard (admin home page)": get(client, "/admin/"),
            "  its Readers module, as kept": lambda: readership_dashboard(),
            "article form with Readers panel": get(client, f"/admin/news/article/{top.pk}/change/"),
            "  its panel's figures": lambda: figures.readers(top),
            "'Most read' ranking (periodic task)": most_read.refresh,
            "dashboard's figures (periodic task)": figures.summarise,
        }
        print(f"{'':<38} {'queries':>8} {'median ms':>10} {'p99 ms':>8}")
        for name, function in measured.items():
            queries, median, p99 = timed(function, args.repeat, args.slowest)
            print(f"{name:<38} {queries:>8} {median:>10.1f} {p99:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
