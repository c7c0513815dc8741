"""manage.py check_sources: check the URLs that published articles cite. The background
workers run it hourly (sources.tasks): a run checks only what is due, so a second run at
once checks nothing."""

import sys
import time
from collections import Counter

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from sources.checker import Politeness, check_all
from sources.models import CHECK_FIELDS, SourceURL, State
from sources.registry import cited_urls

BAR_WIDTH = 30


class Command(BaseCommand):
    help = (
        "Check every source URL of published articles that is due (never checked, or "
        "not for a while): per-host limits, timeouts, one retry; prints a summary."
    )

    def add_arguments(self, parser):
        defaults = Politeness()
        parser.add_argument("--all", action="store_true", help="Check every URL, due or not.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Say how many are due; fetch nothing."
        )
        for name, kind, default, words in [
            ("--per-host", int, defaults.per_host, "Requests at once to one host"),
            ("--delay", float, defaults.delay, "Seconds between two requests to one host"),
            ("--timeout", float, defaults.timeout, "Seconds to connect, and for each read"),
            ("--concurrency", int, defaults.concurrency, "Requests at once over all hosts"),
        ]:
            parser.add_argument(
                name, type=kind, default=default, help=f"{words} (default %(default)s)."
            )

    def handle(self, *args, **options):
        self.verbosity = options["verbosity"]
        if options["per_host"] < 1 or options["concurrency"] < 1:
            raise CommandError("--per-host and --concurrency must be at least 1.")
        if options["delay"] < 0 or options["timeout"] <= 0:
            raise CommandError("--delay must be 0 or more and --timeout more than 0.")
        politeness = Politeness(
            per_host=options["per_host"],
            delay=options["delay"],
            timeout=options["timeout"],
            concurrency=options["concurrency"],
        )
        urls = cited_urls()
        SourceURL.objects.bulk_create(
            [SourceURL(url=url) for url in urls], ignore_conflicts=True, batch_size=500
        )
        rows = SourceURL.objects.filter(url__in=urls) if urls else SourceURL.objects.none()
        due = list(rows if options["all"] else rows.due())
        if options["dry_run"]:
            self.stdout.write(f"{len(due)} of {len(urls)} source URLs are due for a check.")
            return

        started = time.monotonic()
        outcomes = check_all([row.url for row in due], politeness, self.progress(len(due)))
        elapsed = time.monotonic() - started
        now = timezone.now()
        for row, outcome in zip(due, outcomes, strict=True):
            row.record(outcome, now)
        with transaction.atomic():
            SourceURL.objects.bulk_update(due, CHECK_FIELDS, batch_size=500)
        self.summary(urls, due, elapsed)

    def progress(self, total):
        """A bar on a terminal (redrawn in place); nothing when the output is a file."""
        if self.stdout._out is not sys.stdout or not sys.stdout.isatty() or not total:
            return None
        done = Counter()

        def step(outcome):
            done["n"] += 1
            filled = BAR_WIDTH * done["n"] // total
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stdout.write(f"\r[{bar}] {done['n']}/{total}", ending="")
            self.stdout.flush()
            if done["n"] == total:
                self.stdout.write("")

        return step

    def summary(self, urls, checked, elapsed):
        if self.verbosity < 1:
            return
        self.stdout.write(
            f"Checked {len(checked)} of {len(urls)} source URLs in {elapsed:.1f} s "
            f"({len(urls) - len(checked)} not due)."
        )
        states = Counter(row.state for row in checked)
        for state in State:
            if state != State.UNCHECKED:
                self.stdout.write(f"  {state.label:18} {states.get(state, 0):6d}")
        if self.verbosity > 1:
            for row in checked:
                if row.state != State.FINE:
                    detail = row.last_error or row.last_status or ""
                    self.stdout.write(f"  {row.state:9} {row.url} {detail} {row.final_url}")
        to_fix = SourceURL.objects.filter(url__in=urls).to_fix().count() if urls else 0
        style = self.style.WARNING if to_fix else self.style.SUCCESS
        self.stdout.write(style(f"Sources to fix: {to_fix}."))
