"""Checking URLs over HTTP: many at once, but politely towards each site.

httpx's async client does the requests: one event loop holds thousands of checks
waiting on slow sites without a thread each, with connect and read timeouts, streamed
bodies (so a huge one is cut after ``max_bytes``) and HTTP/1.1 keep-alive. What httpx
does not do, this module does: a limit on requests at once to one host and a pause
between two starts there, redirects followed by hand (to see loops, and whether every
hop was permanent), HEAD first and GET where HEAD is refused, one retry with back-off,
``Retry-After`` honoured, and a verdict an editor can act on (``State``). Requests go
only to public addresses (outbound.addresses), pinned as they are checked.

Nothing here touches the database: ``check_all`` returns outcomes for the caller to
store (Django's ORM is not for use inside an event loop).
"""

import asyncio
import socket
import ssl
from collections import defaultdict
from contextlib import asynccontextmanager
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

import httpx
import lxml.etree
import lxml.html
from django.utils import timezone

from outbound.addresses import PinnedTransport, Refused

from .models import State

USER_AGENT = (
    "SkilloSourceCheck/1.0 (+https://skillo.example/about/editorial/#sources; "
    "checks that the sources our articles cite still answer)"
)
REDIRECTS = {301, 302, 303, 307, 308}
PERMANENT = {301, 308}
# Servers that do not do HEAD say so with these; then GET.
HEAD_REFUSED = {405, 501}
# A page that answers 200 but says it is not there, in its <title>.
NOT_FOUND_WORDS = ("not found", "404", "no longer available")
# libxml2's HTML parser (linear in the page's size, however hostile); it never fetches.
HTML = lxml.html.HTMLParser(no_network=True)


@dataclass(frozen=True)
class Politeness:
    """How hard to press: per host, overall, and how long to wait for an answer."""

    per_host: int = 2  # requests at once to one host (so at most that many connections)
    delay: float = 1.0  # seconds between the starts of two requests to one host
    timeout: float = 10.0  # to connect, and between two reads
    retries: int = 1  # a failure that may pass (5xx, 429, timeout, network) is tried again
    backoff: float = 5.0  # seconds before that retry, doubled for each further one
    max_retry_after: float = 60.0  # a longer Retry-After is not waited for: failing now
    max_bytes: int = 256 * 1024  # of a page's body read to look for a soft 404
    max_redirects: int = 10
    concurrency: int = 64  # requests at once over all hosts


@dataclass(frozen=True)
class Outcome:
    url: str
    state: str
    status: int | None = None
    final_url: str = ""
    error: str = ""
    # For a failure worth a retry: how long to wait first (None: the back-off).
    retry: bool = False
    retry_after: float | None = None


@dataclass(frozen=True)
class Answer:
    status: int
    location: str | None
    retry_after: str | None
    body: bytes  # the first max_bytes of an HTML page read with GET, else empty


class Host:
    """Turns for one host: at most ``per_host`` requests at once, starts ``delay`` apart."""

    def __init__(self, per_host, delay):
        self.slots = asyncio.Semaphore(per_host)
        self.start_lock = asyncio.Lock()
        self.delay = delay
        self.next_start = 0.0

    @asynccontextmanager
    async def turn(self):
        async with self.slots:
            async with self.start_lock:
                loop = asyncio.get_running_loop()
                wait = self.next_start - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.next_start = loop.time() + self.delay
            yield


def says_not_found(body):
    """Whether the <title> of an HTML page's start says it is not there."""
    try:
        title = lxml.html.document_fromstring(body, parser=HTML).findtext(".//title")
    except lxml.etree.ParserError:  # no element at all (an empty body)
        return False
    return any(words in (title or "").lower() for words in NOT_FOUND_WORDS)


def host_of(url):
    return urlsplit(url).netloc.lower()


def is_home_page(url):
    return urlsplit(url).path in {"", "/"}


def network_error(error):
    """Words for an exception httpx raised while connecting or reading."""
    if isinstance(error, httpx.TimeoutException):
        return "timed out"
    cause = error
    while cause is not None:
        if isinstance(cause, ssl.SSLError | ssl.CertificateError):
            return "TLS error"
        if isinstance(cause, socket.gaierror):
            return "DNS lookup failed"
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    if "CERTIFICATE" in text or "SSL" in text:
        return "TLS error"
    if "Name or service not known" in text or "getaddrinfo" in text:
        return "DNS lookup failed"
    if isinstance(error, httpx.ConnectError):
        return "could not connect"
    return f"network error ({type(error).__name__})"


def retry_delay(value, limit):
    """Seconds from a Retry-After header (seconds or an HTTP date), or None when absent,
    unreadable or longer than ``limit``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            seconds = (parsedate_to_datetime(value) - timezone.now()).total_seconds()
        except (TypeError, ValueError):
            return None
    return max(0.0, seconds) if seconds <= limit else None


class Checker:
    def __init__(self, client, politeness):
        self.client = client
        self.politeness = politeness
        self.hosts = defaultdict(lambda: Host(politeness.per_host, politeness.delay))
        self.overall = asyncio.Semaphore(politeness.concurrency)

    async def check(self, url):
        """The verdict on ``url``, after one retry (with back-off) of a passing failure."""
        attempt = 0
        while True:
            outcome = await self.check_once(url)
            if not outcome.retry or attempt >= self.politeness.retries:
                return outcome
            wait = outcome.retry_after
            if wait is None:
                wait = self.politeness.backoff * 2**attempt
            attempt += 1
            await asyncio.sleep(wait)

    async def check_once(self, url):
        current, seen, permanent = url, {url}, True
        for _ in range(self.politeness.max_redirects + 1):
            try:
                answer = await self.fetch(current)
            except httpx.HTTPError as error:
                return Outcome(url, State.FAILING, final_url=current, error=network_error(error),
                               retry=True)  # fmt: skip
            except Refused as error:
                # Not worth a retry: the same address would be refused again.
                return Outcome(url, State.FAILING, final_url=current, error=f"refused: {error}")
            if answer.status in REDIRECTS and answer.location:
                permanent = permanent and answer.status in PERMANENT
                following = urljoin(current, answer.location)
                if following in seen:
                    return Outcome(url, State.FAILING, answer.status, current, "redirect loop")
                seen.add(following)
                current = following
                continue
            return self.verdict(url, current, answer, redirected=len(seen) > 1,
                                permanent=permanent)  # fmt: skip
        return Outcome(url, State.FAILING, None, current, "too many redirects")

    def verdict(self, url, final, answer, *, redirected, permanent):
        status = answer.status
        if 200 <= status < 300:
            # A simple heuristic: sent to the site's home page from a deeper address, or
            # a page whose title says it is not there.
            if (is_home_page(final) and not is_home_page(url)) or says_not_found(answer.body):
                return Outcome(url, State.SOFT_404, status, final)
            state = State.MOVED if redirected and permanent else State.FINE
            return Outcome(url, state, status, final)
        if status in {404, 410}:
            return Outcome(url, State.GONE, status, final)
        if status == 429:
            wait = retry_delay(answer.retry_after, self.politeness.max_retry_after)
            return Outcome(url, State.FAILING, status, final, "rate limited (429)",
                           retry=wait is not None, retry_after=wait)  # fmt: skip
        if status >= 500:
            return Outcome(url, State.FAILING, status, final, f"server error ({status})",
                           retry=True)  # fmt: skip
        return Outcome(url, State.FAILING, status, final, f"refused ({status})")

    async def fetch(self, url):
        answer = await self.request("HEAD", url)
        if answer.status in HEAD_REFUSED:
            answer = await self.request("GET", url)
        return answer

    async def request(self, method, url):
        host = self.hosts[host_of(url)]
        async with host.turn(), self.overall, self.client.stream(method, url) as response:
            body = b""
            html = "html" in response.headers.get("content-type", "")
            if method == "GET" and html and response.status_code < 300:
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) >= self.politeness.max_bytes:
                        break  # the rest is never read: the connection is closed
            return Answer(
                response.status_code,
                response.headers.get("location"),
                response.headers.get("retry-after"),
                body[: self.politeness.max_bytes],
            )


def client(politeness):
    limits = httpx.Limits(
        max_connections=politeness.concurrency, max_keepalive_connections=politeness.concurrency
    )
    return httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT, "Accept": "text/html,*/*;q=0.8"},
        timeout=httpx.Timeout(politeness.timeout),
        # Only to public addresses (outbound.addresses), each hop of a redirect too.
        transport=PinnedTransport(limits),
        follow_redirects=False,
        # Checks go straight to the sites: no proxy from the environment.
        trust_env=False,
    )


async def check_urls(urls, politeness, progress=None):
    async with client(politeness) as http:
        checker = Checker(http, politeness)

        async def one(url):
            outcome = await checker.check(url)
            if progress is not None:
                progress(outcome)
            return outcome

        return await asyncio.gather(*(one(url) for url in urls))


def check_all(urls, politeness=Politeness(), progress=None):
    """Check every URL of ``urls``; returns their outcomes in the same order.
    ``progress(outcome)`` is called as each one is known."""
    return asyncio.run(check_urls(list(urls), politeness, progress))
