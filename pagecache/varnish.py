"""Purges to the Varnish servers in front (deploy/varnish/skillo.vcl), by key.

Every cached page names its dependency keys in a response header (pagecache.middleware,
``SURROGATE_KEY_HEADERS``); Varnish's xkey module indexes its copies by them. When keys
are purged here, each Varnish of ``VARNISH_PURGE_URLS`` gets ONE request, ``PURGE /``
with the keys in ``xkey-purge``, once the transaction that made the change has committed
(before that, a refetch would get the old page again). The purge is soft: Varnish keeps
serving the old page to readers while it fetches the new one.

A Varnish that does not answer within ``VARNISH_PURGE_TIMEOUT`` (about a second) keeps
its purge in the ``PendingPurge`` table, with its address as the target, and a thread of
the process re-sends it every second until it lands. Readers never wait on it. Each app
server process runs that thread from its start (``watch``): with Varnish in front, most
readers never reach the app, so a purge kept by a management command is not left waiting
for a request; the thread looks for kept purges every few seconds, and at once when a
request finds some (pagecache.purges, every second).
"""

import http.client
import logging
import threading
from urllib.parse import urlsplit

from django.conf import settings
from django.db import DatabaseError, close_old_connections, connection, transaction

from metrics.registry import VARNISH_PURGES

from . import release
from .models import PendingPurge, Release

logger = logging.getLogger(__name__)

PURGE_HEADER = "xkey-purge"
# Varnish refuses a request header longer than 8 KB (its http_req_hdr_len): a purge of
# more keys than fit goes in several requests (a bulk change; one edit needs one).
MAX_HEADER_LENGTH = 6000
RETRY_INTERVAL = 1.0
# How often an app server process looks for purges kept by another process.
WATCH_INTERVAL = 10.0

_retry = {"thread": None, "watch": False}
_retry_lock = threading.Lock()
_wake = threading.Event()


def targets():
    return list(settings.SKILLO_VARNISH_PURGE_URLS)


def purge(keys):
    """Soft-purge ``keys`` in every Varnish once the current transaction commits (at once
    outside one); kept in the database for a Varnish that does not answer."""
    if not keys or not targets():
        return
    keys = frozenset(keys)
    transaction.on_commit(lambda: send_to_all(keys))


def purge_later(keys):
    """Kept for every Varnish and sent by the retry thread: for a purge made while a
    reader waits (pagecache.purges, when this site's cache comes back)."""
    if keys and targets():
        keep(targets(), keys)
        retry_soon()


def send_to_all(keys):
    urls = targets()
    if len(urls) == 1:
        answered = [send(urls[0], keys)]
    else:
        # Side by side: one Varnish that does not answer costs one timeout, not one each.
        answered = [False] * len(urls)

        def send_one(index):
            answered[index] = send(urls[index], keys)

        threads = [threading.Thread(target=send_one, args=(i,)) for i in range(len(urls))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    failed = [url for url, ok in zip(urls, answered, strict=True) if not ok]
    if failed:
        keep(failed, keys)
        retry_soon()
    return not failed


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


def send(url, keys):
    """One soft purge of ``keys`` to the Varnish at ``url``; True if it answered 200."""
    address = urlsplit(url)
    for value in chunks(keys):
        conn = http.client.HTTPConnection(
            address.hostname, address.port or 80, timeout=settings.SKILLO_VARNISH_PURGE_TIMEOUT
        )
        try:
            conn.request("PURGE", address.path or "/", headers={PURGE_HEADER: value})
            response = conn.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as error:
            logger.warning("Varnish at %s did not take a purge (%s): kept for later.", url, error)
            VARNISH_PURGES.labels("unreachable").inc()
            return False
        finally:
            conn.close()
        if response.status != 200:
            logger.warning(
                "Varnish at %s refused a purge (%s %s): kept for later. Is this server in "
                "its purgers ACL (deploy/varnish/backend.vcl)?",
                url, response.status, response.reason,
            )  # fmt: skip
            VARNISH_PURGES.labels("refused").inc()
            return False
    VARNISH_PURGES.labels("sent").inc()
    return True


def keep(urls, keys):
    try:
        PendingPurge.objects.bulk_create(
            PendingPurge(keys="\n".join(sorted(keys)), target=url) for url in urls
        )
    except DatabaseError as error:
        logger.error("Could not keep a purge for %s (%s): it is lost.", ", ".join(urls), error)


def send_pending():
    """Re-send the purges kept for each Varnish: one request per Varnish for all its rows.
    Returns True while some remain."""
    rows = list(PendingPurge.objects.exclude(target="").order_by("pk")[:1000])
    configured = set(targets())
    by_target = {}
    for row in rows:
        by_target.setdefault(row.target, []).append(row)
    for target, kept in by_target.items():
        keys = {key for row in kept for key in row.keys.split()}
        # A Varnish no longer configured gets nothing more: its rows go.
        if target not in configured or send(target, keys):
            PendingPurge.objects.filter(pk__in=[row.pk for row in kept]).delete()
    return PendingPurge.objects.exclude(target="").exists()


def retry_soon(watch=False):
    """Have this process's retry thread re-send kept purges in a second: started unless
    it runs already, woken if it sleeps. Never waits. With ``watch`` (an app server
    process) the thread stays, and looks every WATCH_INTERVAL seconds."""
    if not targets():
        return
    with _retry_lock:
        _retry["watch"] = _retry["watch"] or watch
        thread = _retry["thread"]
        if thread is not None and thread.is_alive():
            if not watch:
                _wake.set()
            return
        thread = threading.Thread(target=_retry_loop, name="varnish-purges", daemon=True)
        _retry["thread"] = thread
        thread.start()


def watch():
    """Called once per app server process (by the page cache's middleware)."""
    retry_soon(watch=True)


def release_key(name=None):
    """The key naming every page of a release (this one by default) for Varnish."""
    return f"release:{name or release.release()}"


def announce_release():
    """Once per app server process: if the Varnish servers in front were last told of
    another release, the pages of that release are purged from them (kept and sent as
    any purge), so that a deploy reaches the edge too. Soft, as every purge: each page's
    next reader still gets the old copy while the new one is fetched."""
    current = release.release()
    with transaction.atomic():
        seen = Release.objects.select_for_update().order_by("pk").first()
        if seen is None:
            # The first release Varnish is told of: nothing of another to purge.
            Release.objects.create(name=current)
            return
        if seen.name == current:
            return
        previous, seen.name = seen.name, current
        seen.save()
    if previous:
        logger.info("Release %s follows %s: purging its pages from Varnish.", current, previous)
        keep(targets(), {release_key(previous)})


def _retry_loop():
    pending = not _retry["watch"]
    if _retry["watch"]:
        try:
            announce_release()
            pending = True
        except DatabaseError as error:
            logger.warning("Could not compare the release with Varnish's (%s).", error)
    while targets():
        _wake.wait(RETRY_INTERVAL if pending else WATCH_INTERVAL)
        _wake.clear()
        close_old_connections()
        try:
            pending = send_pending()
        except DatabaseError as error:
            logger.warning("Could not read the kept Varnish purges (%s).", error)
            pending = True
        finally:
            # Not one connection per process held for this thread between looks.
            connection.close()
        if not pending and not _retry["watch"]:
            return
