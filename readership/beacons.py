"""Page views as the reader's browser reports them (static/js/beacon.js): checked, then
buffered in the process and written to the database in batches (never a write per
view), where readership.folding turns them into counts. A beacon that is not a public
page's view is dropped without a word: the endpoint answers every beacon alike, so it
tells nothing to someone probing it."""

import hashlib
import json
import threading
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection
from django.urls import Resolver404, resolve
from django.utils import timezone

from .models import Beacon
from .visitors import client_address, is_bot, visitor_of

MAX_BODY = 1024  # bytes: a path, a referrer and a width
# The pages that are counted, by URL name: readership.folding knows how to find each
# one's article.
COUNTED_PAGES = {"news:article"}
WIDTHS = {"s", "m", "l"}  # under 640 px, under 1000 px, wider
# The channels Skillo's own links name with ?ref= (the newsletter's mails): the same word
# for every reader, so it tells where a view came from, never who.
VIA = {"newsletter", "fediverse"}


def parse(body):
    """The beacon's (path, referrer host, width, via), or None for anything else."""
    if len(body) > MAX_BODY:
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    path, referrer, width = data.get("p"), data.get("r", ""), data.get("w", "")
    via = data.get("s", "")
    if not (isinstance(path, str) and isinstance(referrer, str) and width in WIDTHS):
        return None
    if via and via not in VIA:
        return None
    if not path.startswith("/") or path.startswith("//") or len(path) > 500:
        return None
    try:
        match = resolve(path)
    except Resolver404:
        return None
    if match.view_name not in COUNTED_PAGES:
        return None
    host = ""
    if referrer:
        parts = urlsplit(referrer)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        host = parts.hostname[:253]
    return path, host, width, via


def over_rate(request):
    """More beacons this minute from the reader's address than READERSHIP_PER_MINUTE
    (generous: an office or a university is many readers behind one address)."""
    address = hashlib.sha256((client_address(request) or "").encode()).hexdigest()[:32]
    key = f"readership:rate:{address}:{int(time.time() // 60)}"
    cache.add(key, 0, timeout=120)
    try:
        return cache.incr(key) > settings.READERSHIP_PER_MINUTE
    except ValueError:  # expired between the add and the incr
        return False


def receive(request):
    """Count the request's beacon if it is a reader's view of a counted page."""
    if not settings.READERSHIP_COUNTING or is_bot(request):
        return
    beacon = parse(request.body)
    if beacon is None or over_rate(request):
        return
    now = timezone.now()
    path, host, width, via = beacon
    visitor = visitor_of(request, timezone.localdate(now))
    buffer.add(Beacon(path=path, referrer_host=host, via=via, width=width, visitor=visitor, at=now))


class Buffer:
    """Beacons held in this process until READERSHIP_BUFFER_SIZE of them have come or
    the oldest is READERSHIP_BUFFER_SECONDS old, then written in one statement. A
    process that dies loses what it held: figures, not records."""

    def __init__(self):
        self.lock = threading.Lock()
        self.beacons = []
        self.since = None
        self.timer = None

    def add(self, beacon):
        with self.lock:
            self.beacons.append(beacon)
            self.since = self.since or time.monotonic()
            full = len(self.beacons) >= settings.READERSHIP_BUFFER_SIZE
            old = time.monotonic() - self.since >= settings.READERSHIP_BUFFER_SECONDS
            if not (full or old):
                self.wake_later()
                return
            beacons, self.beacons, self.since = self.beacons, [], None
        Beacon.objects.bulk_create(beacons)

    def wake_later(self):
        # Beacons of a quiet minute are written by a timer, not by the next beacon.
        if self.timer is None or not self.timer.is_alive():
            self.timer = threading.Timer(settings.READERSHIP_BUFFER_SECONDS, self.flush_alone)
            self.timer.daemon = True
            self.timer.start()

    def flush(self):
        with self.lock:
            beacons, self.beacons, self.since = self.beacons, [], None
        if beacons:
            Beacon.objects.bulk_create(beacons)
        return len(beacons)

    def flush_alone(self):
        """flush() from the timer's thread, with a connection of its own."""
        close_old_connections()
        try:
            self.flush()
        finally:
            connection.close()


buffer = Buffer()
