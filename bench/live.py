"""Live coverage's benchmark (issue 45), on the production stack as `make serve VARNISH=1`
runs it: many readers keep a live story open through Varnish while an editor posts an
entry every 10 s.

    .venv/bin/python bench/live.py                              # 2,000 readers, 100 entries
    .venv/bin/python bench/live.py --readers 500 --entries 20   # a shorter run

A fresh SQLite site with the demo content (bench.settings: production settings over plain
http, the page cache on, in a folder the processes share), gunicorn with 5
workers (2 x cores + 1, as `make serve` starts it) and a task worker, behind varnishd with
deploy/varnish/skillo.vcl, purges going to it. Each simulated reader is one keep-alive
connection to Varnish asking the story's updates as live/static/live/live.js does: the
version it shows in ``since``, the next question 3 s after each answer, the version
taken from each newer answer. They start spread over one interval.

Phase 1: the story's page (wrk, 16 connections) alone. Phase 2: the same while the
readers ask and an entry is posted every 10 s: the app's requests per second (Varnish's
backend requests, MAIN.backend_req, which the desk's own requests are part of) and the
page's p50/p99. Phase 3: the readers and the entries alone, for ``--entries`` entries:
the app's requests per second, and for every reader and entry the time from the desk's
POST (sent as the desk's form sends it, through Varnish) to the first answer that reader
got holding the entry: an HTTP reader polling as live.js does, not a browser (tests/
browser/test_live.py times the button in Chromium). Prints JSON.
"""

import argparse
import asyncio
import contextlib
import gzip
import http.cookiejar
import json
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    ROOT,
    BenchError,
    Gunicorn,
    Varnish,
    demo_site,
    exit_cleanly_on_sigterm,
    log,
    stop_process_group,
    wrk,
)

POLL_SECONDS = 3.0  # live.js's EVERY
APP_WORKERS = 5  # make serve: 2 x nproc + 1 on this 2-core machine
PAGE_CONNECTIONS = 16
PASSWORD = "bench-live-editor"
SETUP = f"""
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone
from live.models import LiveCoverage
from news.models import Article
user = get_user_model().objects.create_user(
    "bench-editor", password="{PASSWORD}", is_staff=True
)
user.groups.add(Group.objects.get(name="Editors"))
article = (
    Article.objects.published().filter(live_coverage__isnull=True)
    .order_by("-published_at", "-pk").first()
)
coverage = LiveCoverage.objects.create(
    article=article, state="live", starts_at=timezone.now(),
    summary="- The benchmark is running.",
)
print("STORY", coverage.pk, article.get_absolute_url())
"""
ENTRY = re.compile(r"Bench entry (\d+)\.")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Desk:
    """The editor's browser on the live desk: logged in, a session cookie, each post the
    desk's form (its CSRF token and one-time mark) sent through Varnish."""

    def __init__(self, base, pk):
        self.base, self.pk = base, pk
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect
        )

    def open(self, path, data=None):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(self.base + path, data=body, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as answer:
            if answer.code in (301, 302, 303):
                return answer.code, ""
            raise BenchError(f"{path}: {answer.code}") from answer

    @staticmethod
    def field(page, name):
        found = re.search(rf'name="{name}" value="([^"]+)"', page)
        if found is None:
            raise BenchError(f"no {name} on the page")
        return found[1]

    def log_in(self):
        _, page = self.open("/admin/login/")
        status, _ = self.open(
            "/admin/login/?next=/admin/",
            {
                "csrfmiddlewaretoken": self.field(page, "csrfmiddlewaretoken"),
                "username": "bench-editor",
                "password": PASSWORD,
            },
        )
        if status != 302:
            raise BenchError("the editor could not log in")
        return self

    def post(self, n, posted):
        """Post entry ``n``; ``posted[n]`` is when its POST was sent (time.monotonic()).
        The POST's own seconds."""
        _, page = self.open(f"/admin/live/livecoverage/{self.pk}/desk/")
        form = {
            "csrfmiddlewaretoken": self.field(page, "csrfmiddlewaretoken"),
            "once": self.field(page, "once"),
            "headline": "",
            "body": f"Bench entry {n}. A short update from the benchmark.",
        }
        posted[n] = started = time.monotonic()
        status, _ = self.open(f"/admin/live/livecoverage/{self.pk}/post/", form)
        if status != 302:
            raise BenchError(f"the post of entry {n} was refused ({status})")
        return time.monotonic() - started


class Readers:
    """``count`` readers polling the story's updates through Varnish, each on one
    keep-alive connection, as live.js asks."""

    def __init__(self, host, port, pk, count, version):
        self.host, self.port, self.pk, self.count = host, port, pk, count
        self.start_version = version
        self.stopping = asyncio.Event()
        self.answers = 0
        self.errors = 0
        self.reconnects = 0
        self.latencies = []  # seconds, each answer
        self.posted = {}  # entry number -> when its POST was sent
        self.seen = {}  # entry number -> [seconds from its POST to each reader's answer]

    async def run(self):
        await asyncio.gather(*(self.reader(i) for i in range(self.count)))

    async def reader(self, i):
        # Spread over one interval, as readers who opened the page at different moments.
        await asyncio.sleep(random.uniform(0, POLL_SECONDS))
        version, known = self.start_version, set()
        connection = None
        while not self.stopping.is_set():
            try:
                started = time.monotonic()
                try:
                    if connection is None:
                        connection = await asyncio.open_connection(self.host, self.port)
                    status, body = await self.ask(connection, version)
                except (OSError, asyncio.IncompleteReadError):
                    # A keep-alive connection the server closed meanwhile: a browser
                    # opens another and asks again, as here (once).
                    if connection is not None:
                        connection[1].close()
                    self.reconnects += 1
                    connection = await asyncio.open_connection(self.host, self.port)
                    status, body = await self.ask(connection, version)
                arrived = time.monotonic()
                self.latencies.append(arrived - started)
                self.answers += 1
                if status != 200:
                    self.errors += 1
                else:
                    version = self.read_answer(body, version, known, arrived)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                self.errors += 1
                if connection is not None:
                    connection[1].close()
                connection = None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), POLL_SECONDS)
        if connection is not None:
            connection[1].close()

    async def ask(self, connection, version):
        reader, writer = connection
        writer.write(
            (
                f"GET /live/{self.pk}/updates/?since={version} HTTP/1.1\r\n"
                f"Host: {self.host}\r\nAccept: application/json\r\n"
                # What fetch(..., {cache: "no-cache"}) sends; Varnish answers from its copy.
                "Cache-Control: no-cache\r\nPragma: no-cache\r\n"
                "Accept-Encoding: gzip\r\nUser-Agent: bench/live.py\r\n\r\n"
            ).encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if not size:
                    break
                body += chunk[:-2]
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        if headers.get("connection", "").lower() == "close":
            raise ValueError("closed by the server")
        return status, body

    def read_answer(self, body, version, known, arrived):
        answer = json.loads(body)
        if answer.get("version", 0) <= version:
            return version  # nothing new, or a stale copy (live.js ignores it too)
        for entry in answer.get("entries", []):
            if entry["id"] in known:
                continue
            known.add(entry["id"])
            found = ENTRY.search(entry["html"])
            if found and int(found[1]) in self.posted:
                n = int(found[1])
                self.seen.setdefault(n, []).append(arrived - self.posted[n])
        return answer["version"]


def varnish_counters(varnish):
    out = subprocess.run(
        ["varnishstat", "-n", str(varnish.folder / "work"), "-1", "-j"],
        capture_output=True, text=True, check=True, timeout=30,
    ).stdout  # fmt: skip
    data = json.loads(out)
    counters = data.get("counters", data)
    names = ("MAIN.backend_req", "MAIN.client_req", "MAIN.cache_hit", "MAIN.cache_miss",
             "MAIN.cache_hit_grace", "MAIN.s_pass")  # fmt: skip
    return {name: counters[name]["value"] for name in names}


VARNISH_SHOWN = ("cache_hit", "cache_hit_grace", "cache_miss", "s_pass")


def difference(after, before, seconds):
    delta = {name.removeprefix("MAIN."): after[name] - before[name] for name in after}
    return {
        "seconds": round(seconds, 1),
        "app_requests": delta["backend_req"],
        "app_requests_per_s": round(delta["backend_req"] / seconds, 2),
        "varnish_requests_per_s": round(delta["client_req"] / seconds, 1),
        "varnish": {name: delta[name] for name in VARNISH_SHOWN},
    }


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def page_figures(figures):
    return {
        "requests_per_s": round(figures["rps"]),
        "p50_ms": round(figures["p50_us"] / 1000, 2),
        "p99_ms": round(figures["p99_us"] / 1000, 2),
        "max_ms": round(figures["max_us"] / 1000, 1),
        "not_2xx": figures["not_2xx"],
        "socket_errors": figures["socket_errors"],
    }


async def held(args, desk, varnish, page_url, pk, version):
    readers = Readers("127.0.0.1", varnish.port, pk, args.readers, version)
    running = asyncio.create_task(readers.run())
    post_seconds, phase3_entries = [], []
    state = {"n": 0, "phase3": False}

    async def post_one():
        state["n"] += 1
        n = state["n"]
        seconds = await asyncio.to_thread(desk.post, n, readers.posted)
        if state["phase3"]:
            post_seconds.append(seconds)
            phase3_entries.append(n)

    async def poster(stop):
        while not stop.is_set():
            await post_one()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), args.interval)

    await asyncio.sleep(2 * POLL_SECONDS)  # every reader has asked
    log(f"Phase 2: {args.readers} readers, an entry every {args.interval:g} s, and the page")
    stop_posting = asyncio.Event()
    posting = asyncio.create_task(poster(stop_posting))
    before, started, answered = varnish_counters(varnish), time.monotonic(), readers.answers
    page = await asyncio.to_thread(wrk, page_url, args.duration, PAGE_CONNECTIONS, 1)
    phase2 = difference(varnish_counters(varnish), before, time.monotonic() - started)
    phase2["reader_answers_per_s"] = round((readers.answers - answered) / phase2["seconds"], 1)
    phase2["page"] = page_figures(page)
    stop_posting.set()
    await posting

    log(f"Phase 3: {args.readers} readers, {args.entries} entries, one every "
        f"{args.interval:g} s")  # fmt: skip
    state["phase3"] = True
    before, started, answered = varnish_counters(varnish), time.monotonic(), readers.answers
    errors = readers.errors
    for _ in range(args.entries):
        began = time.monotonic()
        await post_one()
        await asyncio.sleep(max(0, args.interval - (time.monotonic() - began)))
    # The last entry's readers: every one has asked at least twice since.
    await asyncio.sleep(2 * POLL_SECONDS)
    phase3 = difference(varnish_counters(varnish), before, time.monotonic() - started)
    phase3["reader_answers_per_s"] = round((readers.answers - answered) / phase3["seconds"], 1)
    phase3["reader_errors"] = readers.errors - errors
    phase3["reader_reconnects"] = readers.reconnects
    readers.stopping.set()
    await running

    delays = [d for n in phase3_entries for d in readers.seen.get(n, [])]
    first = [min(readers.seen[n]) for n in phase3_entries if readers.seen.get(n)]
    expected = len(phase3_entries) * args.readers
    phase3["post_to_visible"] = {
        "entries": len(phase3_entries),
        "reader_entry_pairs": len(delays),
        "pairs_never_seen": expected - len(delays),
        "median_s": round(statistics.median(delays), 2) if delays else None,
        "p99_s": round(percentile(delays, 0.99), 2) if delays else None,
        "max_s": round(max(delays), 2) if delays else None,
        "first_reader_median_ms": round(statistics.median(first) * 1000) if first else None,
        "first_reader_max_ms": round(max(first) * 1000) if first else None,
    }
    phase3["post_request_ms"] = {
        "median": round(statistics.median(post_seconds) * 1000, 1),
        "max": round(max(post_seconds) * 1000, 1),
    }
    phase3["reader_answer_ms"] = {
        "p50": round(percentile(readers.latencies, 0.5) * 1000, 2),
        "p99": round(percentile(readers.latencies, 0.99) * 1000, 2),
    }
    return phase2, phase3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readers", type=int, default=2000, help="simulated open pages")
    parser.add_argument("--entries", type=int, default=100, help="entries timed in phase 3")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between posts")
    parser.add_argument("--duration", type=int, default=30, help="seconds of phases 1 and 2")
    args = parser.parse_args()
    exit_cleanly_on_sigterm()
    # A descriptor per reader here, and as many in varnishd (which inherits the limit).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.readers + 200 > hard:
        raise SystemExit(f"{args.readers} readers need more open files than {hard}")
    work = Path(tempfile.mkdtemp(prefix="skillo-bench-live-"))
    worker = None
    try:
        env = demo_site(work)
        shell = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SETUP],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        _, pk, path = next(x for x in shell.stdout.splitlines() if x.startswith("STORY")).split()
        pk = int(pk)
        with contextlib.ExitStack() as stack:
            app = Gunicorn(env, work / "gunicorn.log", workers=APP_WORKERS)
            varnish = Varnish(work / "varnish", app.port)
            env.update(
                VARNISH_PURGE_URLS=varnish.base_url,
                TRUSTED_PROXY_COUNT="1",
                CACHE_URL=f"file://{work / 'cache'}",
            )
            stack.enter_context(varnish)
            stack.enter_context(app)
            with open(work / "worker.log", "ab") as worker_log:
                worker = subprocess.Popen(
                    [sys.executable, "manage.py", "run_workers"],
                    cwd=ROOT, env=env, stdout=worker_log, stderr=worker_log,
                    start_new_session=True,
                )  # fmt: skip
            page_url = varnish.base_url + path
            for _ in range(3):  # stored in Varnish before the clock starts
                wrk(page_url, 1, 4, 1)
            with urllib.request.urlopen(f"{varnish.base_url}/live/{pk}/updates/") as answer:
                version = json.loads(answer.read())["version"]
            desk = Desk(varnish.base_url, pk).log_in()
            log("Phase 1: the story's page alone")
            alone = page_figures(wrk(page_url, args.duration, PAGE_CONNECTIONS, 1))
            phase2, phase3 = asyncio.run(held(args, desk, varnish, page_url, pk, version))
        print(
            json.dumps(
                {
                    "readers": args.readers,
                    "poll_seconds": POLL_SECONDS,
                    "post_interval_seconds": args.interval,
                    "app_workers": APP_WORKERS,
                    "page_alone": alone,
                    "page_with_readers_and_posts": phase2,
                    "readers_and_posts": phase3,
                },
                indent=1,
            )
        )
    except BenchError as error:
        log(f"bench/live.py: {error}")
        return 1
    finally:
        stop_process_group(worker)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
