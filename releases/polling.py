"""Reading the release sources that are due, on the background worker (releases.tasks).

Politely: every request goes through outbound's client (public addresses only, bodies
read up to a limit, redirects followed here, each hop checked), conditionally (the
source's ETag and Last-Modified), one host at a time at a pace (sources are read in an
order that alternates hosts, so the pace rarely waits), within each host's budget
(outbound.budget, shared with the fediverse's requests: a host that gave no answer is
backed off, and its other sources wait until then without a connection, unmarked), and a
source that fails is read again later and later (twice the wait at each failure, up to a
day; a 429's Retry-After when it says longer). One source's failure is written in its
health and the run goes on.

A source is marked read only once it was read. A run first claims the sources it will
read for a few minutes (a run that overlaps it skips them); a run that dies (a killed
worker, an error) leaves the ones it did not read due again when the claim ends, their
health as it was. A read that finds nothing new writes nothing for its source but that it
was read: one UPDATE at the run's end marks all of those.
"""

import logging
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import timedelta
from email.utils import parsedate_to_datetime
from itertools import chain, zip_longest
from urllib.parse import urljoin, urlsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from background.limits import backoff
from outbound import budget
from outbound.client import Refused, TooLarge, client, read_limited

from . import parsers, versions
from .models import READ_EVERY, ReleaseSource, Tip, TipLink

logger = logging.getLogger(__name__)

MAX_REDIRECTS = 5
REDIRECTS = {301, 302, 303, 307, 308}
LONGEST_WAIT = timedelta(days=1)
# How long a run holds the sources it is about to read (ten minutes: a run of a few
# hundred sources at one request per host per second, with room).
CLAIM = timedelta(minutes=10)
# A release older than this when first seen is history, not news (a project added to the
# desk would otherwise fill it with its whole past).
FRESH = timedelta(days=30)


class FetchFailed(Exception):
    """The source did not answer with its document; the message says why."""


class Throttled(FetchFailed):
    def __init__(self, message, retry_after=None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class Answer:
    body: bytes = b""
    content_type: str = ""
    etag: str = ""
    last_modified: str = ""
    not_modified: bool = False


@dataclass
class Pace:
    """The pause between two requests to one host, and the run's request count."""

    per_host: float = 1.0
    requests: int = 0
    _last: dict = field(default_factory=dict)

    def wait(self, url):
        host = urlsplit(url).netloc
        last = self._last.get(host)
        if last is not None:
            pause = last + self.per_host - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        self._last[host] = time.monotonic()
        self.requests += 1


@dataclass
class Summary:
    read: int = 0
    unchanged: int = 0
    failed: int = 0
    tips_created: int = 0
    links_added: int = 0
    requests: int = 0
    put_off: int = 0

    def __str__(self):
        waiting = f", {self.put_off} put off (their host is backed off)" if self.put_off else ""
        return (
            f"{plural(self.read, 'source')} read ({self.unchanged} unchanged, "
            f"{self.failed} failing{waiting}), {plural(self.requests, 'request')}, "
            f"{plural(self.tips_created, 'new tip')}, {plural(self.links_added, 'new link')}"
        )


def plural(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def user_agent():
    return f"Skillo release desk (+{settings.SKILLO_SITE_URL})"


def retry_after(value, now):
    """Retry-After's seconds or date as seconds from now; None when it says neither."""
    if not value:
        return None
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max((when - now).total_seconds(), 0.0)


def fetch(source, pace, now):
    """The source's answer, following redirects (each hop checked by outbound), with
    its ETag and Last-Modified sent; FetchFailed (or Throttled) when it gives none."""
    url = source.address
    headers = {"User-Agent": user_agent(), "Accept": parsers.ACCEPT[source.kind]}
    if source.etag:
        headers["If-None-Match"] = source.etag
    if source.last_modified:
        headers["If-Modified-Since"] = source.last_modified
    seen = [url]
    for _ in range(MAX_REDIRECTS + 1):
        if urlsplit(url).scheme not in {"http", "https"}:
            raise FetchFailed(f"{url[:200]} is not an http(s) address")
        host = urlsplit(url).hostname or ""
        budget.check(host)  # A backed-off host costs no wait of the pace, nor a request.
        pace.wait(url)
        try:
            with (
                budget.spending(host),
                client().stream("GET", url, headers=headers) as response,
            ):
                status = response.status_code
                location = response.headers.get("Location")
                if status in REDIRECTS and location:
                    url = urljoin(url, location)
                    if url in seen:
                        raise FetchFailed(f"redirects in a loop: {' -> '.join([*seen, url])}")
                    seen.append(url)
                    continue
                if status == 304:
                    return Answer(not_modified=True)
                if status == 429:
                    raise Throttled(
                        f"{url[:200]} answered 429 Too Many Requests",
                        retry_after(response.headers.get("Retry-After"), now),
                    )
                if status != 200:
                    raise FetchFailed(f"{url[:200]} answered {status}")
                return Answer(
                    body=read_limited(response, parsers.MAX_BYTES[source.kind]),
                    content_type=response.headers.get("Content-Type", ""),
                    etag=response.headers.get("ETag", "")[:500],
                    last_modified=response.headers.get("Last-Modified", "")[:100],
                )
        except (httpx.HTTPError, httpx.InvalidURL, Refused, TooLarge, UnicodeError) as error:
            raise FetchFailed(f"{url[:200]}: {error or type(error).__name__}") from error
    raise FetchFailed(f"more than {MAX_REDIRECTS} redirects from {seen[0][:200]}")


def alternating_hosts(sources):
    """The sources in an order that visits each host in turn (the pace then waits only
    when one host has most of them)."""
    by_host = defaultdict(list)
    for source in sources:
        by_host[urlsplit(source.address).netloc].append(source)
    return [s for s in chain.from_iterable(zip_longest(*by_host.values())) if s is not None]


def read_due(now=None, pace=None, limit=None, everything=False):
    """Read the sources that are due (or all of them); return a Summary."""
    now = now or timezone.now()
    pace = pace or Pace()
    due = ReleaseSource.objects.all() if everything else ReleaseSource.objects.due(now)
    due = due.select_related("project").order_by("next_attempt_at", "pk")
    sources = list(due[:limit] if limit else due)
    summary = Summary()
    if not sources:
        return summary
    # Claimed, not read: a run that overlaps this one (a second worker) skips them.
    ReleaseSource.objects.filter(pk__in=[s.pk for s in sources]).update(next_attempt_at=now + CLAIM)
    quiet = []  # read, with nothing to write but that
    try:
        for source in alternating_hosts(sources):
            summary.read += 1
            try:
                answer = fetch(source, pace, now)
                read = (
                    None
                    if answer.not_modified
                    else parsers.parse(
                        source.kind, answer.body, answer.content_type, source.address
                    )
                )
            except (FetchFailed, parsers.NotReadable) as error:
                summary.failed += 1
                failed(source, error, now)
                continue
            except budget.BackedOff as backed_off:
                # Not the source's failure: its host's. Due again when the host may be asked.
                summary.read -= 1
                summary.put_off += 1
                ReleaseSource.objects.filter(pk=source.pk).update(next_attempt_at=backed_off.until)
                continue
            if read is None:
                summary.unchanged += 1
                if not succeeded(source, now, problems=None):
                    quiet.append(source.pk)
                continue
            # The tips and the source's health in one commit.
            with transaction.atomic():
                created, linked = keep_tips(source, read.releases, now)
                if not succeeded(source, now, read.problems, answer):
                    quiet.append(source.pk)
            summary.tips_created += created
            summary.links_added += linked
            if not (created or linked):
                summary.unchanged += 1
    finally:
        # Also when the run stops short: those it read were read.
        ReleaseSource.objects.filter(pk__in=quiet).update(
            checked_at=now, next_attempt_at=now + READ_EVERY
        )
    summary.requests = pace.requests
    return summary


def failed(source, error, now):
    failures = source.failures + 1
    wait = backoff(READ_EVERY, failures + 1, LONGEST_WAIT)
    if isinstance(error, Throttled) and error.retry_after is not None:
        wait = min(max(wait, timedelta(seconds=error.retry_after)), LONGEST_WAIT)
    message = str(error) or type(error).__name__
    if isinstance(error, parsers.NotReadable):
        message = f"{source.address[:200]}: {message}"
    changes = {
        "failures": failures,
        "last_error": message[:2000],
        "checked_at": now,
        "next_attempt_at": now + wait,
    }
    if not source.failures:
        # It was well until now: its last success was its last read.
        changes["last_success_at"] = source.checked_at
    ReleaseSource.objects.filter(pk=source.pk).update(**changes)
    logger.info("release source %s failing (%s): %s", source.pk, failures, message)


def succeeded(source, now, problems, answer=None):
    """Write what changed in the source's health, and that it was read; False, writing
    nothing, for a read like the last (the run marks those read together)."""
    changes = {}
    if source.failures:
        changes.update(failures=0, last_success_at=now)
    if problems is not None:
        text = "\n".join(dict.fromkeys(problems))[:2000]
        if text != source.last_error:
            changes["last_error"] = text
    elif source.failures and source.last_error:
        changes["last_error"] = ""
    if answer is not None:
        if answer.etag != source.etag:
            changes["etag"] = answer.etag
        if answer.last_modified != source.last_modified:
            changes["last_modified"] = answer.last_modified
    if changes:
        ReleaseSource.objects.filter(pk=source.pk).update(
            **changes, checked_at=now, next_attempt_at=now + READ_EVERY
        )
    return bool(changes)


def keep_tips(source, releases, now):
    """One tip per new version of the project, and this source's link on each tip it
    reports; returns (tips created, links added). Two queries when nothing is new."""
    wanted = {}
    for release in releases:
        if release.released_at < now - FRESH:
            continue
        if release.prerelease and source.include == ReleaseSource.Include.STABLE:
            continue
        wanted.setdefault(versions.key(release.version), release)
    if not wanted:
        return 0, 0
    tips = {
        tip.version_key: tip
        for tip in Tip.objects.filter(project=source.project_id, version_key__in=wanted)
    }
    linked = set(
        TipLink.objects.filter(source=source, tip__in=tips.values()).values_list(
            "tip_id", flat=True
        )
    )
    unlinked = [key for key in wanted if key not in tips or tips[key].pk not in linked]
    if not unlinked:
        return 0, 0
    new_keys = [key for key in unlinked if key not in tips]
    # One transaction and a few statements for the source (SQLite syncs the disk at each
    # commit); a tip or link another run added meanwhile is left as it is.
    with transaction.atomic():
        if new_keys:
            Tip.objects.bulk_create(
                [
                    Tip(
                        project_id=source.project_id,
                        version_key=key,
                        version=wanted[key].version[:100],
                        prerelease=wanted[key].prerelease,
                        released_at=wanted[key].released_at,
                        release_url=wanted[key].url[:500],
                        notes_url=wanted[key].notes_url[:500],
                        summary=wanted[key].summary,
                    )
                    for key in new_keys
                ],
                ignore_conflicts=True,
            )
            tips.update(
                (tip.version_key, tip)
                for tip in Tip.objects.filter(project=source.project_id, version_key__in=new_keys)
            )
        TipLink.objects.bulk_create(
            [
                TipLink(
                    tip=tips[key],
                    source=source,
                    url=wanted[key].url[:500],
                    notes_url=wanted[key].notes_url[:500],
                )
                for key in unlinked
            ],
            ignore_conflicts=True,
        )
        for key in unlinked:
            tip, release = tips[key], wanted[key]
            # The notes and their first paragraph, from the source that has them (PyPI's
            # feed has none; the GitHub release page has both).
            fill = {}
            if not tip.notes_url and release.notes_url:
                fill["notes_url"] = release.notes_url[:500]
            if not tip.summary and release.summary:
                fill["summary"] = release.summary
            if fill:
                Tip.objects.filter(pk=tip.pk).update(**fill)
    return len(new_keys), len(unlinked)
