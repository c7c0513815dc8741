"""Addresses of the pages that lists link to most, without a reverse() per link, and
the site's absolute addresses (on SITE_URL).

A page of twenty cards links each card's article, its topics and its authors: some 120
reverse() calls, each walking the URL resolver (docs/benchmarks.md measures what that
costs a page). Each address's pattern is reversed once per URL configuration and script
prefix, then filled in with the slug.
"""

import functools
import re

from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

# What the <slug:...> converter accepts; anything else goes through reverse(), which
# refuses it as it always did.
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
MARK = "SLUG-MARK"


@functools.cache
def _pattern(name, urlconf, prefix):
    # ``prefix`` is part of the cache key only: reverse() reads the script prefix itself.
    return reverse(name, kwargs={"slug": MARK}, urlconf=urlconf)


@functools.cache
def _path(name, urlconf, prefix):
    return reverse(name, urlconf=urlconf)


def page_path(name):
    """``reverse(name)`` for an address without arguments, fast."""
    return _path(name, get_urlconf(), get_script_prefix())


def slug_path(name, slug):
    """``reverse(name, kwargs={"slug": slug})``, fast."""
    if not SLUG.fullmatch(slug):
        return reverse(name, kwargs={"slug": slug})
    return _pattern(name, get_urlconf(), get_script_prefix()).replace(MARK, slug, 1)


def article_path(slug):
    return slug_path("news:article", slug)


def tag_path(slug):
    return slug_path("news:tag", slug)


def author_path(slug):
    return slug_path("news:author", slug)


@functools.lru_cache(maxsize=4096)
def _archive(year, month, urlconf, prefix):
    if month is None:
        return reverse("news:archive-year", args=[year], urlconf=urlconf)
    return reverse("news:archive-month", args=[year, month], urlconf=urlconf)


def archive_path(year, month=None):
    """An archive year's or month's address, each reversed once (a page links to every
    year and month it has)."""
    return _archive(year, month, get_urlconf(), get_script_prefix())


def origin():
    """The site's public address, without a closing slash: ``https://news.example.org``."""
    return settings.SKILLO_SITE_URL.rstrip("/")


def absolute(path):
    """``path`` on the site's public address. Every address the site gives out is made
    here (canonical links, share links, feeds, sitemaps, e-mails, fediverse ids, webhook
    payloads), never from a request's Host: a page kept in a cache serves every reader,
    and a host name that reached the app some other way (a second allowed name, an
    internal health check) must not end up in readers' feeds and search engines.
    An address that is already absolute (a picture on a CDN) is returned as it is."""
    if path.startswith(("https://", "http://")):
        return path
    if path.startswith("//"):
        return f"{origin().partition(':')[0]}:{path}"
    return origin() + path
