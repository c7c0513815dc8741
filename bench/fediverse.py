"""The fediverse (issue 30): one publication to many followers on many instances, and
the inbox under signed Follow requests.

    .venv/bin/python bench/fediverse.py [--database sqlite|postgres|both]
                                        [--followers 10000] [--instances 500]

Deliveries: ``--followers`` followers of the site spread over ``--instances`` instances,
each a loopback server (bench/fediverse_inboxes.py, a process of its own) whose shared
inbox checks every signature. A new article is published and sent by 1, then 4 workers
(``manage.py run_worker``): deliveries per second until every live instance has verified
its copy, requests made against followers (the shared-inbox collapse), and the cached
article page's p99 meanwhile (gunicorn, 2 processes, wrk, 8 connections). Then the same
with 10% of the instances down (connections refused).

Inbox: gunicorn with make serve's processes (2 x cores + 1), 200 senders on 200 instances
(their keys fetched on their first request), signed Follow requests from 8 client
threads for 15 s: requests accepted (202) per second.

Figures on stdout as JSON, progress on stderr. ALLOW_PRIVATE_ADDRESSES is on: every
server here is on this machine.
"""

import argparse
import base64
import hashlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from email.utils import formatdate
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from bench._server import (
    ROOT,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    free_port,
    log,
    manage,
    run_json,
    wrk,
)
from bench.fediverse_inboxes import address
from bench.newsletter import start_worker

WORKLOAD = "bench.fediverse_workload"


class Inboxes:
    def __init__(self, folder, port, instances, down, senders=0):
        self.countfile = folder / f"counts-{time.monotonic_ns()}.json"
        self.senderkeys = folder / "senders.json"
        command = [sys.executable, "-m", "bench.fediverse_inboxes", str(port), str(instances),
                   str(down), str(folder / "site-key.pem"), str(self.countfile)]  # fmt: skip
        if senders:
            command += [str(senders), str(self.senderkeys)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            start_new_session=True,
        )  # fmt: skip
        ready = Path(str(self.countfile) + ".ready")
        deadline = time.monotonic() + 120
        while not ready.exists():
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("the inbox servers did not start")
            time.sleep(0.1)

    def counts(self):
        try:
            return json.loads(self.countfile.read_text())
        except (OSError, ValueError):
            return {}

    def stop(self):
        os.killpg(self.process.pid, signal.SIGTERM)
        self.process.wait(timeout=30)


def publish(env, folder, label, workers, instances, down, followers, port, server, path):
    inboxes = Inboxes(folder, port, instances, down)
    live = instances - down
    try:
        run_json(env, WORKLOAD, "forget", timeout=600)
        article = run_json(env, WORKLOAD, "publish", label, timeout=600)["article"]
        started = time.perf_counter()
        processes = [start_worker(env, f"{label}-{n}") for n in range(workers)]
        busy = {}
        # The page read meanwhile, for the first 10 s of the sending (the clock is read
        # as the last instance gets its copy, whether wrk is done or not).
        reader = threading.Thread(
            target=lambda: busy.update(wrk(server.base_url + path, 10, connections=8, threads=2))
        )
        try:
            reader.start()
            while inboxes.counts().get("instances_reached", 0) < live:
                if time.perf_counter() - started > 1800:
                    raise SystemExit("not delivered within 30 minutes")
                time.sleep(0.1)
            elapsed = time.perf_counter() - started
            reader.join()
        finally:
            for process in processes:
                os.killpg(process.pid, signal.SIGTERM)
            for process in processes:
                process.wait(timeout=120)
        counts = inboxes.counts()
    finally:
        inboxes.stop()
    progress = run_json(env, WORKLOAD, "progress", str(article), timeout=600)
    result = {
        "workers": workers, "followers": followers, "instances": instances,
        "instances_down": down, "seconds": round(elapsed, 1),
        "deliveries_per_second": round(counts.get("verified", 0) / elapsed, 1),
        "requests_received": counts.get("requests", 0),
        "signatures_verified": counts.get("verified", 0),
        "bad_signatures": counts.get("bad_signature", 0),
        "deliveries": progress["deliveries"],
        "article_busy_p99_ms": busy["p99_us"] / 1000, "article_busy_rps": round(busy["rps"]),
    }  # fmt: skip
    log(f"  {label}: {result}")
    return result


def follow_load(base, folder, instances, seconds=15, threads=8, senders=200):
    keys = {
        name: serialization.load_pem_private_key(pem.encode(), None)
        for name, pem in json.loads((folder / "senders.json").read_text()).items()
    }
    import http.client
    from urllib.parse import urlsplit

    target = urlsplit(base)
    counter = itertools.count()
    statuses = {}
    lock = threading.Lock()

    def one(n, connection):
        index = n % senders
        host = address(index % instances)
        actor = f"http://{host}:{PORT}/users/s{index}"
        body = json.dumps({"id": f"{actor}#follow-{n}", "type": "Follow", "actor": actor,
                           "object": f"{base}/ap/site"}).encode()  # fmt: skip
        date = formatdate(usegmt=True)
        digest = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        text = (
            f"(request-target): post /ap/inbox\nhost: {target.netloc}\n"
            f"date: {date}\ndigest: {digest}"
        )
        signature = keys[f"s{index}"].sign(text.encode(), padding.PKCS1v15(), hashes.SHA256())
        headers = {
            "Host": target.netloc, "Date": date, "Digest": digest,
            "Content-Type": "application/activity+json",
            "Signature": f'keyId="{actor}#main-key",algorithm="rsa-sha256",'
            f'headers="(request-target) host date digest",'
            f'signature="{base64.b64encode(signature).decode()}"',
        }  # fmt: skip
        connection.request("POST", "/ap/inbox", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status

    def worker(until, first=None):
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        while time.perf_counter() < until:
            n = next(counter) if first is None else first.pop() if first else None
            if n is None:
                break
            status = one(n, connection)
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    # Each sender's first request makes Skillo fetch its key: done before the clock runs.
    first = list(range(senders))
    warm = [threading.Thread(target=worker, args=(time.perf_counter() + 120, first))
            for _ in range(threads)]  # fmt: skip
    for thread in warm:
        thread.start()
    for thread in warm:
        thread.join()
    log(f"  warm-up: {statuses}")
    statuses.clear()
    next(itertools.islice(counter, senders, senders), None)
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    running = [threading.Thread(target=worker, args=(until,)) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    elapsed = time.perf_counter() - started
    return {
        "seconds": round(elapsed, 1),
        "statuses": {str(k): v for k, v in statuses.items()},
        "accepted_per_second": round(statuses.get(202, 0) / elapsed, 1),
        "client_threads": threads,
        "senders": senders,
    }


PORT = 0


def bench(url, folder, followers, instances):
    global PORT
    PORT = free_port()
    env = django_env(
        url, folder / "static", CACHE_URL="locmem://", ALLOW_PRIVATE_ADDRESSES="true",
        TASK_LEASE="5", FEDIVERSE_RATE_PER_MINUTE="100000",
    )  # fmt: skip
    server = Gunicorn({**env, "PAGE_CACHE": "1"}, folder / "gunicorn.log", workers=2)
    env["SITE_URL"] = server.env["SITE_URL"] = server.base_url
    manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
    manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
    path = run_json(env, WORKLOAD, "publish", "page", timeout=600)["path"]
    seeded = run_json(env, WORKLOAD, "seed", str(followers), str(instances), str(PORT),
                      timeout=1800)  # fmt: skip
    (folder / "site-key.pem").write_text(seeded["public_key"])
    results = {}
    with server:
        server.get(path)
        idle = wrk(server.base_url + path, 10, connections=8, threads=2)
        results["article_idle_p99_ms"] = idle["p99_us"] / 1000
        for down in (0, instances // 10):
            for workers in (1, 4):
                label = f"w{workers}-down{down}"
                results[label] = publish(
                    env, folder, label, workers, instances, down, followers, PORT, server, path
                )
    cores = os.cpu_count() or 1
    inbox_server = Gunicorn(env, folder / "gunicorn-inbox.log", workers=2 * cores + 1)
    env["SITE_URL"] = inbox_server.env["SITE_URL"] = inbox_server.base_url
    inboxes = Inboxes(folder, PORT, instances, 0, senders=200)
    try:
        with inbox_server:
            results["inbox"] = follow_load(inbox_server.base_url, folder, instances)
            results["inbox"]["gunicorn_workers"] = 2 * cores + 1
    finally:
        inboxes.stop()
    log(f"  inbox: {results['inbox']}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="sqlite")
    parser.add_argument("--followers", type=int, default=10_000)
    parser.add_argument("--instances", type=int, default=500)
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    results = {}
    with tempfile.TemporaryDirectory(prefix="skillo-bench-fediverse-") as folder:
        folder = Path(folder)
        if options.database in ("sqlite", "both"):
            log("SQLite")
            results["sqlite"] = bench(
                f"sqlite:///{folder / 'fediverse.sqlite3'}", folder, options.followers,
                options.instances,
            )  # fmt: skip
        if options.database in ("postgres", "both"):
            log("PostgreSQL")
            with PostgresCluster() as cluster:
                url = cluster.create_database("skillo_fediverse")
                results["postgres"] = bench(url, folder, options.followers, options.instances)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
