"""No one can stall the worker (issue 53): the stack flooded with untrusted work while
readers sign in.

    .venv/bin/python bench/flood.py [--activities 5000] [--hosts 50] [--sources 100]
                                    [--sign-ins 30]

On PostgreSQL, gunicorn (3 processes) and `manage.py run_workers` as `make serve` starts
them (TASK_WORKERS, urgent:1,default:1,remote:1 by default), mail to an SMTP sink on loopback:

- ``--activities`` signed Follow activities POSTed to /ap/inbox by 8 clients, their keys
  on ``--hosts`` hosts that accept connections and never answer (every key fetch waits
  for its time-out);
- ``--sources`` watched release sources, each a JSON Feed of 120 KB whose entry is
  ``"<p>" * 40000`` (what held the worker 135 s on 603b722), all read by one poll;
- meanwhile ``--sign-ins`` readers ask for a sign-in link, one a second: the time from
  their request to the mail's arrival at the SMTP server.

Figures on stdout as JSON: the inbox's answers, the sign-in mails' latency (p50, p99,
max), and what the default queue did within the run. Progress on stderr.
"""

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import requests

from bench._server import (
    ROOT,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    free_port,
    log,
    manage,
    stop_process_group,
)

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
ADVERSARIAL = json.dumps(
    {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "hostile",
        "items": [{"id": "1", "title": "v1.0.0", "content_html": "<p>" * 40000}],
    }
).encode()


class SilentHosts:
    """``count`` addresses of 127.3/16, one port, that accept connections and never
    answer: each fetch of a key there waits for its whole time-out."""

    def __init__(self, count):
        self.port = free_port()
        self.held, self.listeners = [], []
        for index in range(count):
            listener = socket.create_server((self.address(index), self.port), backlog=1024)
            self.listeners.append(listener)
            threading.Thread(target=self.hold, args=(listener,), daemon=True).start()

    @staticmethod
    def address(index):
        return f"127.3.{index // 250}.{index % 250 + 1}"

    def hold(self, listener):
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self):
        for sock in self.listeners + self.held:
            sock.close()


class HostileFeeds(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/feed+json")
        self.send_header("Content-Length", str(len(ADVERSARIAL)))
        self.end_headers()
        self.wfile.write(ADVERSARIAL)

    def log_message(self, *args):
        pass


def flood_inbox(base, hosts, silent, activities, threads=8):
    """POST the Follow activities; their answers by status."""
    statuses, lock, counter = {}, threading.Lock(), iter(range(activities))

    def send():
        session = requests.Session()
        for n in iter(lambda: next(counter, None), None):
            host = silent.address(n % hosts)
            actor = f"http://{host}:{silent.port}/users/u{n}"
            body = json.dumps({
                "@context": "https://www.w3.org/ns/activitystreams",
                "id": f"{actor}#follow-{n}", "type": "Follow", "actor": actor,
                "object": f"{base}/ap/site",
            })  # fmt: skip
            # Well formed, dated, with the body's digest: what the inbox checks before it
            # must fetch the key (the signature itself cannot be checked without it).
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            headers = {
                "Content-Type": "application/activity+json",
                "Date": formatdate(usegmt=True),
                "Digest": f"SHA-256={digest}",
                "Signature": f'keyId="{actor}#main-key",algorithm="rsa-sha256",'
                'headers="(request-target) host date digest",signature="c2lnbmVk"',
            }
            try:
                status = session.post(f"{base}/ap/inbox", data=body, headers=headers, timeout=60)
                status = status.status_code
            except requests.RequestException as error:
                status = type(error).__name__
            with lock:
                statuses[status] = statuses.get(status, 0) + 1

    running = [threading.Thread(target=send) for _ in range(threads)]
    for thread in running:
        thread.start()
    return running, statuses


def sign_in(base, email):
    session = requests.Session()
    page = session.get(f"{base}/account/", timeout=60)
    token = CSRF.search(page.text)[1]
    asked = time.monotonic()
    answer = session.post(
        f"{base}/account/", data={"email": email, "csrfmiddlewaretoken": token},
        headers={"Referer": f"{base}/account/"}, timeout=60,
    )  # fmt: skip
    answer.raise_for_status()
    return asked, time.monotonic() - asked


def arrived(sink_log, email):
    return Path(sink_log).exists() and email in Path(sink_log).read_text(errors="replace")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--activities", type=int, default=5000)
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--sources", type=int, default=100)
    parser.add_argument("--sign-ins", type=int, default=30)
    parser.add_argument("--drain", type=int, default=1800, help="seconds at most")
    parser.add_argument(
        "--workers", default=os.environ.get("TASK_WORKERS", "urgent:1,default:1,remote:1")
    )
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    folder = Path(tempfile.mkdtemp(prefix="skillo-bench-flood-"))
    silent = SilentHosts(options.hosts)
    feeds = ThreadingHTTPServer(("127.0.0.1", 0), HostileFeeds)
    threading.Thread(target=feeds.serve_forever, daemon=True).start()
    sink_log, sink_port = folder / "sink.log", free_port()
    sink = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{sink_port}",
         "-c", "bench.smtp_sink.Counter", str(sink_log)],
        cwd=ROOT, start_new_session=True,
    )  # fmt: skip
    workers = None
    with PostgresCluster() as cluster:
        env = django_env(
            cluster.create_database("flood"), folder / "static",
            EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(sink_port),
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            ALLOW_PRIVATE_ADDRESSES="true", MEMBER_LINKS_PER_CLIENT="100000",
            PAGE_CACHE="0", MEDIA_ROOT=str(folder / "media"),
        )  # fmt: skip
        env.pop("CACHE_URL", None)
        manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
        manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
        manage(env, "shell", "-c", (
            "from releases.models import WatchedProject, ReleaseSource\n"
            f"for n in range({options.sources}):\n"
            "    project = WatchedProject.objects.create(\n"
            "        name=f'Hostile {n}', slug=f'hostile-{n}')\n"
            "    ReleaseSource.objects.create(project=project, kind='feed',"
            f" identifier='http://127.0.0.1:{feeds.server_address[1]}/feed/' + str(n))\n"
        ), timeout=300)  # fmt: skip
        try:
            with Gunicorn(env, folder / "gunicorn.log", workers=3) as server:
                base = server.base_url
                workers = subprocess.Popen(
                    [sys.executable, "manage.py", "run_workers", "--workers", options.workers],
                    cwd=ROOT, env=env, stdout=open(folder / "workers.log", "wb"),  # noqa: SIM115
                    stderr=subprocess.STDOUT, start_new_session=True,
                )  # fmt: skip
                manage(env, "shell", "-c", (
                    "from releases.tasks import read_release_sources\n"
                    "read_release_sources.enqueue()"
                ), timeout=120)  # fmt: skip
                started = time.monotonic()
                log(f"flooding: {options.activities} activities, {options.sources} hostile feeds")
                senders, statuses = flood_inbox(base, options.hosts, silent, options.activities)
                latencies, answers = [], []
                for n in range(options.sign_ins):
                    email = f"reader{n}@bench.example"
                    asked, answered_in = sign_in(base, email)
                    answers.append(answered_in)
                    deadline = asked + 300
                    while not arrived(sink_log, email) and time.monotonic() < deadline:
                        time.sleep(0.05)
                    latencies.append(time.monotonic() - asked if arrived(sink_log, email) else None)
                    log(f"  sign-in {n + 1}: {latencies[-1]}")
                    time.sleep(max(0.0, started + n + 1 - time.monotonic()))
                for thread in senders:
                    thread.join(600)
                # The site's own bulk work queued in the thick of it: how long it waited.
                site_work = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", (
                    "import time\n"
                    "from background.tasks import prune_results\n"
                    "from django_tasks_db.models import DBTaskResult\n"
                    "result = prune_results.enqueue()\n"
                    "deadline = time.monotonic() + 600\n"
                    "while time.monotonic() < deadline:\n"
                    "    row = DBTaskResult.objects.get(id=result.id)\n"
                    "    if row.finished_at: break\n"
                    "    time.sleep(0.1)\n"
                    "print((row.finished_at - row.enqueued_at).total_seconds() "
                    "if row.finished_at else 'not run in 600 s')\n"
                    "from django.utils import timezone\n"
                    "for row in DBTaskResult.objects.running():\n"
                    "    print(row.queue_name, row.task_path, "
                    "round((timezone.now() - row.started_at).total_seconds()), 's')"
                )], cwd=ROOT, env=env, capture_output=True, text=True, timeout=700,
                ).stdout.strip().splitlines()  # fmt: skip
                elapsed = time.monotonic() - started
                # Until the remote queue has nothing due and nothing running: the flood's
                # own work done, failed or put off within its hosts' budgets.
                drained = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", (
                    "import time\n"
                    "from django_tasks_db.models import DBTaskResult\n"
                    "remote = DBTaskResult.objects.filter(queue_name='remote')\n"
                    f"deadline = time.monotonic() + {options.drain}\n"
                    "while time.monotonic() < deadline and (\n"
                    "    remote.ready().exists() or remote.running().exists()):\n"
                    "    time.sleep(1)\n"
                    "print(remote.ready().count(), remote.running().count(), "
                    "remote.filter(status='READY').count() - remote.ready().count(), "
                    "remote.successful().count(), "
                    "remote.failed().count())"
                )], cwd=ROOT, env=env, capture_output=True, text=True,
                    timeout=options.drain + 120,
                ).stdout.split()[-5:]  # fmt: skip
                drain_seconds = time.monotonic() - started - elapsed
                done = subprocess.run(
                    [sys.executable, "manage.py", "tasks_status", "--json"], cwd=ROOT, env=env,
                    capture_output=True, text=True, timeout=120,
                ).stdout  # fmt: skip
        finally:
            stop_process_group(workers)
            stop_process_group(sink)
            feeds.shutdown()
            silent.close()
            shutil.rmtree(folder, ignore_errors=True)
    measured = sorted(latency for latency in latencies if latency is not None)
    result = {
        "activities": options.activities, "silent_hosts": options.hosts,
        "hostile_sources": options.sources, "task_workers": options.workers,
        "inbox_answers": {str(k): v for k, v in sorted(statuses.items(), key=str)},
        "sign_ins": options.sign_ins, "sign_in_mails_lost": latencies.count(None),
        "sign_in_mail_seconds": {
            "p50": round(statistics.median(measured), 2),
            "p99": round(measured[min(len(measured) - 1, int(len(measured) * 0.99))], 2),
            "max": round(measured[-1], 2),
        } if measured else None,
        # Of the above, the form's own answer (gunicorn busy with the flood).
        "sign_in_answer_seconds": {
            "p50": round(statistics.median(answers), 2), "max": round(max(answers), 2),
        },
        "run_seconds": round(elapsed, 1),
        # A default-queue task queued once the flood was in: from its queueing to its end.
        "site_task_seconds": site_work[0] if site_work else None,
        "running_at_the_end": site_work[1:],
        # After the run: how long until the remote queue had nothing due or running, and
        # then its tasks due, running, put off (due later), succeeded, failed.
        "remote_drained_seconds": round(drain_seconds, 1),
        "remote_after_draining": dict(
            zip(("due", "running", "put_off", "succeeded", "failed"), drained, strict=False)
        ),
        "tasks_at_the_end": json.loads(done) if done.strip() else None,
    }  # fmt: skip
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
