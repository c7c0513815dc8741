"""What a source's answer says: its releases, one parser per kind of source, each read
from the service's documented format. Feeds (RSS 0.9x/1.0/2.0, Atom) are read by
feedparser; JSON Feed, npm's registry document and crates.io's API are JSON; the HTML of release
notes is read by lxml (libxml2), in time linear in its size: no regular expression runs
over what a source sends.

A parser returns the releases it read and the problems it met on the way (an entry
without a date, a version its ecosystem's rules refuse, a duplicate): those are skipped
and named in the source's health, the rest is kept. A document that cannot be read at
all raises NotReadable.
"""

import calendar
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, unquote, urlsplit

import feedparser
import lxml.etree
import lxml.html

from . import versions

MAX_SUMMARY = 1000
# A date with its zone: "...Z", "...+02:00", "... +0200", "... GMT", "... EST".
HAS_ZONE = re.compile(r"(Z|[+-]\d\d:?\d\d|\b(GMT|UTC?|[ECMP][SD]T)\b)\s*$", re.IGNORECASE)
# libxml2's HTML parser: it never fetches anything, and it stops at a nesting depth
# no real page has (so a hostile document costs time in proportion to its size).
HTML = lxml.html.HTMLParser(encoding="utf-8", no_network=True)


class NotReadable(Exception):
    """The answer is not a document of the source's kind."""


@dataclass
class Release:
    version: str
    released_at: datetime
    url: str
    notes_url: str = ""
    summary: str = ""
    prerelease: bool = False


@dataclass
class Read:
    releases: list
    problems: list


def first_paragraph(text):
    """The first paragraph of HTML (its first <p>, else its text up to a blank line; or
    of plain text) as plain text."""
    try:
        root = lxml.html.document_fromstring(str(text or "").encode(), parser=HTML)
    except lxml.etree.ParserError:  # nothing but spaces or an unclosed comment
        return ""
    # The first one with words, found by libxml2's XPath (in C, so "<p>" * 700000 costs
    # a tenth of a second, not seconds).
    paragraph = root.xpath("(//p[normalize-space()])[1]")
    if paragraph:
        words = paragraph[0].text_content()
    else:
        words = "\n".join(root.itertext()).strip().split("\n\n")[0]
    return " ".join(words.split())[:MAX_SUMMARY]


def utc(text, problems, what):
    """``text`` (ISO 8601, with or without a zone) as an aware datetime in UTC; one
    without a zone is read as UTC and said."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, AttributeError) as error:
        raise versions.BadVersion(f"{what}: the date “{str(text)[:40]}” does not parse") from error
    if when.tzinfo is None:
        problems.append(f"{what}: the date “{text}” has no time zone; read as UTC")
        return when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def feed_date(entry, problems, what):
    """An entry's own date (published, else updated) in UTC; None without one."""
    for field in ("published", "updated", "created"):
        raw = entry.get(field)
        parsed = entry.get(f"{field}_parsed")
        if raw and parsed:
            if not HAS_ZONE.search(raw):
                problems.append(f"{what}: the date “{raw}” has no time zone; read as UTC")
            # feedparser gives the time in UTC already.
            return datetime.fromtimestamp(calendar.timegm(parsed), tz=UTC)
        if raw:
            problems.append(f"{what}: the date “{raw[:40]}” does not parse")
            return None
    problems.append(f"{what}: no date")
    return None


def web_address(url):
    """``url`` if it is an http(s) address, else "": the desk links to it, and a feed's
    ``javascript:`` link must not become one."""
    url = str(url or "").strip()
    return url if urlsplit(url).scheme in {"http", "https"} else ""


def entry_link(entry):
    for link in entry.get("links", []):
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return web_address(link["href"])
    return web_address(entry.get("link", ""))


def entry_html(entry):
    for content in entry.get("content", []):
        if content.get("value"):
            return content["value"]
    return entry.get("summary", "")


def read_feed(body, content_type=""):
    parsed = feedparser.parse(
        body,
        response_headers={"content-type": content_type or "text/xml"},
        # Only the notes' text is kept (first_paragraph): feedparser's own HTML
        # sanitiser and link rewriting would cost four times the rest of its reading.
        sanitize_html=False,
        resolve_relative_uris=False,
    )
    if not parsed.version:
        reason = parsed.get("bozo_exception")
        detail = f" ({reason})" if reason else ""
        raise NotReadable(f"not an RSS or Atom feed{detail}")
    return parsed


def deduplicated(releases, problems):
    """The first release of each version (feeds list the newest first)."""
    kept, seen = [], set()
    for release in releases:
        key = versions.key(release.version)
        if key in seen:
            problems.append(f"{release.version}: listed twice; the first kept")
            continue
        seen.add(key)
        kept.append(release)
    return kept


def github(body, content_type="", address=""):
    """A repository's releases.atom or tags.atom: each entry links to
    /OWNER/REPO/releases/tag/TAG, whose page holds the notes."""
    parsed = read_feed(body, content_type)
    releases, problems = [], []
    for entry in parsed.entries:
        url = entry_link(entry)
        tag = unquote(url.rstrip("/").rsplit("/tag/", 1)[-1]) if "/tag/" in url else ""
        tag = tag or entry.get("title", "")
        try:
            version = versions.from_tag(tag)
        except versions.BadVersion as error:
            problems.append(str(error))
            continue
        when = feed_date(entry, problems, version)
        if when is None:
            continue
        releases.append(
            Release(
                version=version,
                released_at=when,
                url=url,
                notes_url=url,
                summary=first_paragraph(entry_html(entry)),
                prerelease=versions.is_prerelease("github", tag),
            )
        )
    return Read(deduplicated(releases, problems), problems)


def pypi(body, content_type="", address=""):
    """PyPI's /rss/project/NAME/releases.xml: an item per release, its title the version,
    its link the release's page."""
    parsed = read_feed(body, content_type)
    releases, problems = [], []
    for entry in parsed.entries:
        text = entry.get("title", "").strip()
        try:
            prerelease = versions.is_prerelease("pypi", text)
        except versions.BadVersion as error:
            problems.append(str(error))
            continue
        when = feed_date(entry, problems, text)
        if when is None:
            continue
        releases.append(
            Release(version=text, released_at=when, url=entry_link(entry), prerelease=prerelease)
        )
    return Read(deduplicated(releases, problems), problems)


def load_json(body):
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        # RecursionError: arrays nested deeper than Python's stack ("[" * 100000).
        raise NotReadable(f"not JSON ({type(error).__name__}: {str(error)[:200]})") from error


def npm(body, content_type="", address=""):
    """The registry's package document: its versions, and in "time" when each was
    published."""
    document = load_json(body)
    if not isinstance(document, dict) or not isinstance(document.get("versions"), dict):
        raise NotReadable("not an npm package document (no “versions”)")
    name = document.get("name") or unquote(urlsplit(address).path.strip("/"))
    times = document.get("time") if isinstance(document.get("time"), dict) else {}
    releases, problems = [], []
    for version in document["versions"]:
        try:
            prerelease = versions.is_prerelease("npm", version)
            if version not in times:
                problems.append(f"{version}: no date")
                continue
            when = utc(times[version], problems, version)
        except versions.BadVersion as error:
            problems.append(str(error))
            continue
        url = f"https://www.npmjs.com/package/{quote(name, safe='@/')}/v/{quote(version)}"
        releases.append(Release(version, when, url, prerelease=prerelease))
    releases.sort(key=lambda release: release.released_at, reverse=True)
    return Read(releases, problems)


def crates(body, content_type="", address=""):
    """crates.io's /api/v1/crates/NAME/versions: each version's number, date and whether
    it was yanked (a yanked version is no release)."""
    document = load_json(body)
    if not isinstance(document, dict) or not isinstance(document.get("versions"), list):
        raise NotReadable("not a crates.io versions document (no “versions”)")
    releases, problems = [], []
    for row in document["versions"]:
        if not isinstance(row, dict) or row.get("yanked"):
            continue
        number = str(row.get("num", ""))
        try:
            prerelease = versions.is_prerelease("crates", number)
            when = utc(row.get("created_at", ""), problems, number)
        except versions.BadVersion as error:
            problems.append(str(error))
            continue
        crate = row.get("crate") or urlsplit(address).path.rstrip("/").split("/")[-2]
        url = f"https://crates.io/crates/{quote(crate)}/{quote(number)}"
        releases.append(Release(number, when, url, prerelease=prerelease))
    return Read(deduplicated(releases, problems), problems)


def json_feed(document):
    releases, problems = [], []
    for item in document.get("items") or []:
        if not isinstance(item, dict):
            continue
        title = str(item.get("title") or "")
        try:
            version, prerelease = versions.from_title(title)
        except versions.BadVersion:
            continue  # a post that is not about a release
        raw = item.get("date_published") or item.get("date_modified")
        if not raw:
            problems.append(f"{version}: no date")
            continue
        try:
            when = utc(raw, problems, version)
        except versions.BadVersion as error:
            problems.append(str(error))
            continue
        url = web_address(item.get("url") or item.get("id"))
        text = item.get("content_html") or item.get("summary") or item.get("content_text") or ""
        releases.append(post_release(version, prerelease, when, url, str(text)))
    return Read(deduplicated(releases, problems), problems)


def post_release(version, prerelease, when, url, html):
    """A release a feed's post announces: the post is its page and its notes."""
    return Release(
        version=version,
        released_at=when,
        url=url,
        notes_url=url,
        summary=first_paragraph(html),
        prerelease=prerelease,
    )


def feed(body, content_type="", address=""):
    """A project's blog or changelog: RSS, Atom or JSON Feed. A post whose title holds
    no version is not a release and is passed over."""
    if "json" in content_type or body.lstrip()[:1] == b"{":
        document = load_json(body)
        if not isinstance(document, dict) or "jsonfeed.org" not in str(document.get("version")):
            raise NotReadable("JSON, but not a JSON Feed")
        return json_feed(document)
    parsed = read_feed(body, content_type)
    releases, problems = [], []
    for entry in parsed.entries:
        title = entry.get("title", "")
        try:
            version, prerelease = versions.from_title(title)
        except versions.BadVersion:
            continue
        when = feed_date(entry, problems, version)
        if when is None:
            continue
        releases.append(
            post_release(version, prerelease, when, entry_link(entry), entry_html(entry))
        )
    return Read(deduplicated(releases, problems), problems)


PARSERS = {"github": github, "pypi": pypi, "npm": npm, "crates": crates, "feed": feed}
ACCEPT = {
    "github": "application/atom+xml, application/xml;q=0.9, */*;q=0.5",
    "pypi": "application/rss+xml, application/xml;q=0.9, */*;q=0.5",
    "npm": "application/json",
    "crates": "application/json",
    "feed": "application/atom+xml, application/rss+xml, application/feed+json, "
    "application/xml;q=0.9, */*;q=0.5",
}


# The most of an answer read, by kind. npm's documents of big packages weigh megabytes
# (JSON is read in C); feedparser reads a feed at about a microsecond a byte, twenty for
# markup inline in an Atom entry, so a feed's limit keeps a hostile one to seconds, with
# room for GitHub's releases.atom (ten releases, their notes in full).
MAX_BYTES = {
    "github": 2_000_000,
    "pypi": 2_000_000,
    "npm": 10_000_000,
    "crates": 10_000_000,
    "feed": 2_000_000,
}


def parse(kind, body, content_type="", address=""):
    """The releases in a source's answer; NotReadable when it is not a document of that
    kind at all."""
    try:
        return PARSERS[kind](body, content_type, address)
    except (KeyError, TypeError, AttributeError, ValueError, OverflowError) as error:
        # A document of the right shape in its outline but not inside (a number where
        # a text is due): the source is unreadable, not the run.
        raise NotReadable(f"unexpected document ({type(error).__name__}: {error})") from error
