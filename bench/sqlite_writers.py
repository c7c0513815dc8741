"""Concurrent editors on SQLite: processes saving articles at once, as admin saves do.

    .venv/bin/python bench/sqlite_writers.py                       # 4 x 60, both configs
    .venv/bin/python bench/sqlite_writers.py --processes 8 --saves 100 --configs skillo

Each process saves its own article ``--saves`` times, each save one transaction that
reads the article and then writes it (what an admin save does). ``skillo`` is the
project's SQLite configuration (write-ahead log, immediate transactions, busy timeout,
synchronous=FULL; skillo/settings/base.py); ``skillo-sync-normal`` the same with
synchronous=NORMAL; ``django-default`` is Django's (rollback journal, deferred
transactions, 5 s timeout). Prints, per configuration, the saves
that succeeded, those that failed with "database is locked", the wall time and the
saves per second. Everything happens in a temporary folder.
"""

import argparse
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CONFIGS = {
    "skillo": None,  # the settings as they are
    # The same with synchronous=NORMAL: what FULL costs.
    "skillo-sync-normal": {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    },
    "django-default": {"init_command": "PRAGMA journal_mode=DELETE;"},
}


def django_setup(database, config):
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "skillo.settings.development"
    from django.conf import settings

    if CONFIGS[config] is not None:
        settings.DATABASES["default"]["OPTIONS"] = dict(CONFIGS[config])
    import django

    django.setup()


def prepare(database, config, processes):
    """Migrate a new database and create one article per process; their ids."""
    django_setup(database, config)
    from django.core.management import call_command
    from django.utils import timezone

    from news.models import Article

    call_command("migrate", verbosity=0)
    today = timezone.localdate()
    return [
        Article.objects.create(
            title=f"Writer {n}", body="## Text\n\nDraft.", event_date=today,
            facts_verified=today.replace(day=1),
        ).pk
        for n in range(processes)
    ]  # fmt: skip


def writer(database, config, pk, saves, start, results):
    django_setup(database, config)
    from django.db import OperationalError, transaction

    from news.models import Article

    ok = locked = 0
    start.wait()
    for n in range(saves):
        try:
            with transaction.atomic():
                article = Article.objects.get(pk=pk)
                article.body = f"## Text\n\nVersion {n}."
                article.save()
            ok += 1
        except OperationalError as error:
            if "locked" not in str(error):
                raise
            locked += 1
    results.put((ok, locked))


def run(config, processes, saves, folder):
    """Saves that succeeded and that failed as locked, and the seconds it took."""
    database = Path(folder) / f"{config}.sqlite3"
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:  # a fresh process: settings are read once per process
        pks = pool.apply(prepare, (str(database), config, processes))
    start = context.Barrier(processes + 1)
    results = context.Queue()
    workers = [
        context.Process(target=writer, args=(str(database), config, pk, saves, start, results))
        for pk in pks
    ]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    counts = [results.get(timeout=600) for _ in workers]
    elapsed = time.perf_counter() - began
    for worker in workers:
        worker.join()
    return sum(ok for ok, _ in counts), sum(locked for _, locked in counts), elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--saves", type=int, default=60, help="saves per process")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated")
    args = parser.parse_args()
    print("| configuration | processes x saves | saved | database is locked | seconds | saves/s |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="skillo-sqlite-") as folder:
        for config in args.configs.split(","):
            ok, locked, elapsed = run(config, args.processes, args.saves, folder)
            print(
                f"| {config} | {args.processes} x {args.saves} | {ok} | {locked} | "
                f"{elapsed:.1f} | {ok / elapsed:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
