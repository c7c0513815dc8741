"""What a linked page's card shows, read from the page once on the server: its oEmbed
(discovered from the page's own <link>, or the known address of a few big providers),
else its Open Graph tags. Every request goes through outbound (public addresses only
unless ALLOW_PRIVATE_ADDRESSES, bodies read up to a limit); redirects are followed a few
times, each hop checked the same way."""

import json
import re
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urljoin, urlsplit

import httpx
import lxml.etree
import lxml.html
from django.conf import settings

from outbound.client import Refused, TooLarge, client, read_limited

PAGE_LIMIT = 1_000_000
OEMBED_LIMIT = 200_000
MAX_REDIRECTS = 4
REDIRECTS = {301, 302, 303, 307, 308}
MAX_TEXT = 500
# Providers whose pages may not point to their oEmbed (a consent wall, an app shell).
KNOWN_OEMBED = {
    "youtube.com": "https://www.youtube.com/oembed",
    "youtu.be": "https://www.youtube.com/oembed",
    "vimeo.com": "https://vimeo.com/api/oembed.json",
    "bsky.app": "https://embed.bsky.app/oembed",
}
# A YouTube player without its tracking cookies: the same videos, from this host.
NO_COOKIE_YOUTUBE = "https://www.youtube-nocookie.com"
# libxml2's HTML parser, which never fetches anything.
HTML = lxml.html.HTMLParser(encoding="utf-8", no_network=True)
_SPACES = re.compile(r"\s+")
_PRIVATE_USE = re.compile("[\ue000-\uf8ff]")
# What a player's address may hold: a host of letters, digits, dots and hyphens (its
# origin goes into the page's CSP, where ";" or a space would start another directive),
# an optional port, then visible ASCII without quotes, spaces or angle brackets.
_PLAYER = re.compile(
    r"(?P<origin>https?://(?P<host>[a-z0-9.-]+)(?::\d{1,5})?)(?:[/?#][!#-;=?-~]*)?"
)
MAX_PLAYER = 500


class FetchFailed(Exception):
    """Why there is no card: the link stays a plain link."""


@dataclass
class Found:
    kind: str = "link"
    provider: str = ""
    title: str = ""
    author: str = ""
    text: str = ""
    thumbnail_url: str = ""
    player_url: str = ""
    player_width: int | None = None
    player_height: int | None = None


def user_agent():
    return f"Skillo link previews (+{settings.SKILLO_SITE_URL})"


def usable(url):
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in {"http", "https"} and bool(parts.hostname) and url.isascii()


def read_start(response, limit, seconds=20):
    """The first ``limit`` bytes of a streamed body (a page's head is at its start; some
    pages weigh megabytes), within ``seconds`` in all."""
    chunks, size = [], 0
    deadline = time.monotonic() + seconds
    for chunk in response.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit or time.monotonic() > deadline:
            break
    return b"".join(chunks)[:limit]


def get(url, limit, accept, cut=False):
    """(final address, content type, body) of a GET, following redirects. A body over
    ``limit`` bytes fails, or with ``cut`` is read up to there."""
    for _ in range(MAX_REDIRECTS + 1):
        if not usable(url):
            raise FetchFailed(f"{url[:200]} is not an http(s) address")
        headers = {"User-Agent": user_agent(), "Accept": accept}
        try:
            with client().stream("GET", url, headers=headers) as response:
                location = response.headers.get("Location")
                if response.status_code in REDIRECTS and location:
                    url = urljoin(url, location)
                    continue
                if response.status_code != 200:
                    raise FetchFailed(f"{url[:200]} answered {response.status_code}")
                body = read_start(response, limit) if cut else read_limited(response, limit)
                return url, response.headers.get("Content-Type", ""), body
        except (httpx.HTTPError, httpx.InvalidURL, Refused, TooLarge, UnicodeError) as error:
            raise FetchFailed(f"{url[:200]}: {error}") from error
    raise FetchFailed(f"more than {MAX_REDIRECTS} redirects")


@dataclass
class Head:
    """The <title>, <meta> and oEmbed <link> of a page's head."""

    meta: dict = field(default_factory=dict)
    oembed: str = ""
    title: str = ""


def html_tree(text):
    """``text`` read as HTML by lxml (libxml2: linear in its size, however hostile);
    None when it holds no element."""
    try:
        return lxml.html.document_fromstring(text.encode(), parser=HTML)
    except lxml.etree.ParserError:  # nothing but spaces or an unclosed comment
        return None


def read_head(body, content_type):
    charset = "utf-8"
    if "charset=" in content_type:
        charset = content_type.split("charset=", 1)[1].split(";")[0].strip() or charset
    try:
        text = body.decode(charset, errors="replace")
    except LookupError:
        text = body.decode("utf-8", errors="replace")
    head, root = Head(), html_tree(text)
    found = root.find("head") if root is not None else None
    if found is None:
        return head
    for element in found.iter("meta", "link", "title"):
        attrs = element.attrib
        if element.tag == "meta":
            key = (attrs.get("property") or attrs.get("name") or "").lower()
            if key and "content" in attrs:
                head.meta.setdefault(key, attrs["content"])
        elif element.tag == "link":
            rel = attrs.get("rel", "").lower().split()
            if "alternate" in rel and attrs.get("type", "").lower() == "application/json+oembed":
                head.oembed = head.oembed or attrs.get("href", "")
        elif not head.title:
            head.title = element.text_content()
    return head


def known_endpoint(url):
    host = (urlsplit(url).hostname or "").lower().removeprefix("www.").removeprefix("m.")
    endpoint = KNOWN_OEMBED.get(host)
    return f"{endpoint}?{urlencode({'url': url, 'format': 'json'})}" if endpoint else ""


def clean(value, limit):
    """Words from another site, as one line: spaces folded, the private-use characters
    Skillo's own markers are made of removed (news.rendering), cut at ``limit``."""
    text = _PRIVATE_USE.sub("", _SPACES.sub(" ", str(value or ""))).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def player(oembed, page_url):
    """The iframe address of a video's oEmbed, if it is one a page may frame: https (or
    any, where private addresses are allowed, as in tests), YouTube's without cookies."""
    root = html_tree(str(oembed.get("html") or ""))
    iframe = next(root.iter("iframe"), None) if root is not None else None
    if iframe is None or not iframe.get("src", "").strip():
        return ""
    src = urljoin(page_url, iframe.get("src").strip())
    checked = _PLAYER.fullmatch(src) if len(src) <= MAX_PLAYER else None
    if checked is None or (
        not src.startswith("https://") and not settings.SKILLO_ALLOW_PRIVATE_ADDRESSES
    ):
        return ""
    if checked["host"] in {"www.youtube.com", "youtube.com"}:
        src = NO_COOKIE_YOUTUBE + src[len(checked["origin"]) :]
    return src


def player_origin(src):
    """The scheme, host and port a player is loaded from (for the page's CSP), or "" for
    an address player() would not give."""
    checked = _PLAYER.fullmatch(src or "")
    return checked["origin"] if checked else ""


def number(value):
    try:
        found = int(value)
    except (TypeError, ValueError):
        return None
    return found if 0 < found < 10_000 else None


def fetch(url):
    """What the card of the page at ``url`` shows, or FetchFailed."""
    head, page_url, page_error = None, url, None
    try:
        page_url, content_type, body = get(
            url, PAGE_LIMIT, "text/html,application/xhtml+xml", cut=True
        )
        if "html" in content_type.lower():
            head = read_head(body, content_type)
    except FetchFailed as error:
        page_error = error
    endpoint = ""
    if head is not None and head.oembed:
        endpoint = urljoin(page_url, head.oembed)
    endpoint = endpoint if usable(endpoint) else known_endpoint(url)
    oembed = {}
    if endpoint:
        try:
            _, _, body = get(endpoint, OEMBED_LIMIT, "application/json")
            oembed = json.loads(body)
        except (FetchFailed, ValueError, RecursionError):
            oembed = {}
        if not isinstance(oembed, dict):
            oembed = {}
    meta = head.meta if head is not None else {}
    title = (
        oembed.get("title")
        or meta.get("og:title")
        or meta.get("twitter:title")
        or (head.title if head is not None else "")
    )
    if not clean(title, 300):
        raise page_error or FetchFailed("the page gives no title to show")
    kind = oembed.get("type")
    if not isinstance(kind, str) or kind not in {"video", "rich", "photo", "link"}:
        kind = "link"
    thumbnail = (
        oembed.get("thumbnail_url") or meta.get("og:image") or meta.get("twitter:image") or ""
    )
    if kind == "photo" and not thumbnail:
        thumbnail = oembed.get("url") or ""
    found = Found(
        kind=kind,
        provider=clean(
            oembed.get("provider_name")
            or meta.get("og:site_name")
            or (urlsplit(page_url).hostname or ""),
            100,
        ),
        title=clean(title, 300),
        author=clean(oembed.get("author_name"), 200),
        text=clean(meta.get("og:description") or meta.get("description"), MAX_TEXT),
        thumbnail_url=urljoin(page_url, thumbnail.strip())
        if isinstance(thumbnail, str) and thumbnail
        else "",
    )
    if kind == "video" and (src := player(oembed, page_url)):
        found.player_url = src
        found.player_width = number(oembed.get("width"))
        found.player_height = number(oembed.get("height"))
    return found
