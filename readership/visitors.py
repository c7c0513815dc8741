"""Who is a visitor, without knowing who anyone is: a SHA-256 of the day's salt, the site,
the reader's address and browser. The salt is random, kept in the database for its day
only (every process of the site shares it) and deleted when the day ends: after that no
one, the operator included, can tell whether two days' hashes are one reader, nor try
addresses against a hash. Addresses are never stored."""

import hashlib
import re
import secrets

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from .models import DailySalt, DayVisitor

# Crawlers and previewers that run scripts, and headless browsers: not readers.
BOTS = re.compile(
    r"bot\b|bot/|crawl|spider|slurp|headless|lighthouse|phantomjs|puppeteer|playwright"
    r"|selenium|python-|curl/|wget/|go-http|java/|httpclient|facebookexternalhit|preview",
    re.IGNORECASE,
)

_salts = {}  # day: value, this process's copy of today's salt


def salt_for(day):
    """The day's salt, made by whichever process asks first."""
    if day not in _salts:
        try:
            with transaction.atomic():
                salt, _ = DailySalt.objects.get_or_create(
                    day=day, defaults={"value": secrets.token_bytes(32)}
                )
        except IntegrityError:  # another process made it between the get and the create
            salt = DailySalt.objects.get(day=day)
        _salts.clear()
        _salts[day] = bytes(salt.value)
    return _salts[day]


def forget_past_days():
    """Delete the salts and the day's visitor lists of every day before today: what
    made yesterday's hashes comparable is gone. Returns how many salts went."""
    today = timezone.localdate()
    DayVisitor.objects.filter(day__lt=today).delete()
    deleted, _ = DailySalt.objects.filter(day__lt=today).delete()
    for day in [day for day in _salts if day < today]:
        del _salts[day]
    return deleted


def is_bot(request):
    """A crawler's user agent, a headless browser, or a request no browser's page sent:
    browsers add Sec-Fetch-* headers to every request a page makes, beacons included."""
    # From META: request.headers builds a dict of every header, on every beacon.
    meta = request.META
    agent = meta.get("HTTP_USER_AGENT", "")
    if not agent or BOTS.search(agent):
        return True
    return meta.get("HTTP_SEC_FETCH_SITE") != "same-origin" or not meta.get("HTTP_SEC_FETCH_MODE")


def visitor_of(request, day):
    """The reader's hash for the day, or "" for one whose browser asks not to be tracked
    (Global Privacy Control): counted in the totals, never among visitors."""
    if request.META.get("HTTP_SEC_GPC") == "1":
        return ""
    agent = request.META.get("HTTP_USER_AGENT", "")
    parts = [salt_for(day), settings.SKILLO_SITE_URL.encode(), b"\0"]
    parts += [(client_address(request) or "").encode(), b"\0", agent.encode()]
    return hashlib.sha256(b"".join(parts)).hexdigest()


def client_address(request):
    # The reader's address behind the site's trusted proxies (skillo.proxy), as the
    # sign-up's rate limit and django-axes read it.
    return import_string(settings.AXES_CLIENT_IP_CALLABLE)(request)
