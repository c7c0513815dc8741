"""Purges to the Varnish servers in front (deploy/varnish/skillo.vcl), by key.

Every cached page names its dependency keys in a response header (pagecache.middleware,
``SURROGATE_KEY_HEADERS``); Varnish's xkey module indexes its copies by them, every query
variant of a page included. When keys are purged here, each Varnish of
``VARNISH_PURGE_URLS`` gets ONE request, ``PURGE /`` with the keys in ``xkey-purge``, once
the transaction that made the change has committed (before that, a refetch would get the
old page again).

A purge is soft by default: Varnish keeps serving the old page (grace) while it fetches
the new one. A *hard* purge (``hard=True``, ``xkey-hard: 1`` on the request) is for
content that was withdrawn (unpublished, deleted, hidden): its pages are dropped at once
and the next reader waits for the app's answer, a 404 or the page without it.

A Varnish that does not answer within ``VARNISH_PURGE_TIMEOUT`` (about a second), or
refuses, gets its purge from a background task (``purge_varnish``), which the worker
tries again with back-off (``PURGE_RETRIES``) until it lands. Nobody waits on it.
"""

import http.client
import logging
import threading
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError, transaction
from django.tasks import task

from background.limits import retries
from metrics.registry import VARNISH_PURGES

from . import release
from .models import Release

logger = logging.getLogger(__name__)

PURGE_HEADER = "xkey-purge"
# The VCL drops the pages at once (xkey.purge) rather than keeping them in grace
# (xkey.softpurge) when a purge carries this header.
HARD_HEADER = "xkey-hard"
# Varnish refuses a request header longer than 8 KB (its http_req_hdr_len): a purge of
# more keys than fit goes in several requests (a bulk change; one edit needs one).
MAX_HEADER_LENGTH = 6000


# A purge a Varnish (or this site's cache: pagecache.purges) missed is tried again after
# 1, 2, 4... seconds, then every minute for about a day (tries, first wait, longest): a
# page outlives an outage only as long as its purge is late, and a page kept an hour
# (Surrogate-Control) outlives a shorter one unless its purge still lands.
PURGE_RETRIES = (1450, 1.0, 60.0)


class PurgeNotTaken(Exception):
    """A Varnish did not take a purge: the task raises it to be tried again."""


def targets():
    """Where purges go: VARNISH_PURGE_URLS, or, in a process where it is not set at all (a
    manage.py command, a worker started by hand), the Varnish servers the app servers
    named when they started (announce_release): every process sharing the database
    purges the same ones."""
    configured = settings.SKILLO_VARNISH_PURGE_URLS
    if configured is not None:
        return list(configured)
    try:
        return list(Release.objects.order_by("pk").values_list("varnish", flat=True).first() or [])
    except DatabaseError:
        return []


def purge(keys, hard=False):
    """Purge ``keys`` in every Varnish once the current transaction commits (at once
    outside one): soft, or ``hard`` for withdrawn content. A Varnish that does not
    answer gets it from a task."""
    if not keys or not targets():
        return
    keys = frozenset(keys)
    transaction.on_commit(lambda: send_to_all(keys, hard))


def send_to_all(keys, hard=False):
    urls = targets()
    if len(urls) == 1:
        answered = [send(urls[0], keys, hard)]
    else:
        # Side by side: one Varnish that does not answer costs one timeout, not one each.
        answered = [False] * len(urls)

        def send_one(index):
            answered[index] = send(urls[index], keys, hard)

        threads = [threading.Thread(target=send_one, args=(i,)) for i in range(len(urls))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    failed = [url for url, ok in zip(urls, answered, strict=True) if not ok]
    for url in failed:
        retry_later(url, keys, hard)
    return not failed


def retry_later(url, keys, hard):
    try:
        purge_varnish.enqueue(url, sorted(keys), hard)
    except DatabaseError as error:
        logger.error("Could not queue a purge for %s (%s): it is lost.", url, error)


# Urgent: readers keep seeing what an editor withdrew or changed until it lands, and it
# must not wait behind the default queue's bulk and untrusted work.
@task(queue_name="urgent")
@retries(*PURGE_RETRIES)
def purge_varnish(url, keys, hard=False):
    """Send a purge a Varnish missed; raises (and is tried again) until it lands. Safe to
    run twice: a purge of pages already gone purges nothing. A Varnish no longer in
    VARNISH_PURGE_URLS gets nothing more."""
    if url in targets() and not send(url, keys, hard):
        raise PurgeNotTaken(f"Varnish at {url} did not take the purge")


def chunks(keys):
    """The keys as ``xkey-purge`` values, each short enough for Varnish."""
    chunk = []
    for key in sorted(keys):
        if chunk and sum(len(k) + 1 for k in chunk) + len(key) > MAX_HEADER_LENGTH:
            yield " ".join(chunk)
            chunk = []
        chunk.append(key)
    if chunk:
        yield " ".join(chunk)


def send(url, keys, hard=False):
    """One purge of ``keys`` to the Varnish at ``url``; True if it answered 200."""
    address = urlsplit(url)
    headers = {HARD_HEADER: "1"} if hard else {}
    for value in chunks(keys):
        conn = http.client.HTTPConnection(
            address.hostname, address.port or 80, timeout=settings.SKILLO_VARNISH_PURGE_TIMEOUT
        )
        try:
            conn.request("PURGE", address.path or "/", headers={PURGE_HEADER: value, **headers})
            response = conn.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as error:
            logger.warning("Varnish at %s did not take a purge (%s): queued.", url, error)
            VARNISH_PURGES.labels("unreachable").inc()
            return False
        finally:
            conn.close()
        if response.status != 200:
            logger.warning(
                "Varnish at %s refused a purge (%s %s): queued. Is this server in its "
                "purgers ACL (deploy/varnish/backend.vcl)?",
                url, response.status, response.reason,
            )  # fmt: skip
            VARNISH_PURGES.labels("refused").inc()
            return False
    VARNISH_PURGES.labels("sent").inc()
    return True


def release_key(name=None):
    """The key naming every page of a release (this one by default) for Varnish."""
    return f"release:{name or release.release()}"


def announce_release():
    """Once per app server process, as it starts: if the Varnish servers in front were
    last told of another release, the pages of that release are purged from them (sent
    as any purge), so that a deploy reaches the edge too. Soft, as every purge of a page
    still public: each page's next reader still gets the old copy while the new one is
    fetched."""
    urls = settings.SKILLO_VARNISH_PURGE_URLS
    if not urls:
        return
    current = release.release()
    try:
        with transaction.atomic():
            seen = Release.objects.select_for_update().order_by("pk").first()
            if seen is None:
                # The first release Varnish is told of: nothing of another to purge.
                Release.objects.create(name=current, varnish=urls)
                return
            if (seen.name, seen.varnish) == (current, urls):
                return
            previous = seen.name if seen.name != current else None
            seen.name, seen.varnish = current, urls
            seen.save()
    except DatabaseError as error:
        logger.warning("Could not compare the release with Varnish's (%s).", error)
        return
    if previous:
        logger.info("Release %s follows %s: purging its pages from Varnish.", current, previous)
        purge({release_key(previous)})
