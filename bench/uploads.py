"""An image upload's request time, and how long until readers can be sent its pictures
(issue 28: renditions moved from the editor's request to a task).

    .venv/bin/python bench/uploads.py [--uploads 5] [--load 2]

A fresh SQLite database and media folder, gunicorn (2 sync workers, bench settings) and
one ``manage.py run_worker``; an editor logs in and uploads ``--uploads`` photographs of
each size through the admin's add form. For each: the POST's time (what the editor
waits for), and the time from the POST until its last rendition answers 200 (until then
readers get the article without it). Then the same while ``--load`` processes keep the
CPUs busy (the 2-core machine under load, as the issue's figure was taken). Run it on a
checkout from before the change for the "before" figures: it uses only HTTP and
manage.py. Figures on stdout as JSON, progress on stderr.
"""

import argparse
import hashlib
import io
import json
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    ROOT,
    BenchError,
    Gunicorn,
    django_env,
    exit_cleanly_on_sigterm,
    log,
    manage,
)
from bench.editors import Browser, form_fields, log_in

SIZES = [(2400, 1600), (4000, 3000)]
READY_TIMEOUT = 120


def photograph(width, height, seed):
    """A JPEG with a photograph's detail (noise over gradients): the encoder works as
    hard as on a real one, unlike flat colour."""
    from PIL import Image, ImageChops

    noise = Image.effect_noise((width, height), 40 + seed).convert("RGB")
    gradient = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    picture = ImageChops.add(noise, gradient, scale=1.6)
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=88)
    return out.getvalue()


def multipart(fields, file_field, filename, content):
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'
        )
    body = (
        "".join(parts).encode()
        + (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
            f'filename="{filename}"\r\nContent-Type: image/jpeg\r\n\r\n'
        ).encode()
    )
    body += content + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def upload(browser, base_url, content, name):
    """The seconds the add form's POST took."""
    status, _, page, _ = browser.request("GET", "/admin/images/image/add/")
    if status != 200:
        raise BenchError(f"GET the image form: {status}")
    fields = [
        (key, value)
        for key, value in form_fields(page, "image_form")
        if key not in ("upload", "alt_text", "credit", "licence", "_continue", "_addanother")
    ]
    fields += [("alt_text", "A benchmark photograph"), ("credit", "Photo: bench")]
    fields += [("licence", "own")]
    body, content_type = multipart(fields, "upload", name, content)
    request = urllib.request.Request(
        base_url + "/admin/images/image/add/",
        data=body,
        method="POST",
        headers={
            "Content-Type": content_type,
            "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items()),
            "Referer": base_url + "/admin/images/image/add/",
        },
    )

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    started = time.perf_counter()
    try:
        with opener.open(request, timeout=120) as response:
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    elapsed = time.perf_counter() - started
    if status != 302:
        raise BenchError(f"upload {name}: answered {status}, not 302")
    return elapsed


def last_rendition_url(base_url, content, width, height):
    """The rendition made last (the worker makes them in all_renditions' order): once it
    is served, they all are."""
    from types import SimpleNamespace

    from images.renditions import all_renditions

    image = SimpleNamespace(
        sha256=hashlib.sha256(content).hexdigest(),
        width=width,
        height=height,
        focal_x=0.5,
        focal_y=0.5,
    )
    return f"{base_url}/media/{all_renditions(image)[-1].name}"


def wait_until_served(url, since):
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if response.status == 200:
                    return time.perf_counter() - since
        except urllib.error.HTTPError as error:
            if error.code != 404:
                raise
        except OSError:
            pass
        time.sleep(0.05)
    raise BenchError(f"{url} not served within {READY_TIMEOUT} s")


def burn(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def measure(server, browser, seed, count, label):
    figures = {}
    for width, height in SIZES:
        posts, ready = [], []
        for n in range(count):
            content = photograph(width, height, seed + n)
            url = last_rendition_url(server.base_url, content, width, height)
            started = time.perf_counter()
            posts.append(upload(browser, server.base_url, content, f"{label}-{width}-{n}.jpg"))
            ready.append(wait_until_served(url, started))
        key = f"{width}x{height}"
        figures[key] = {
            "upload_request_median_s": round(statistics.median(posts), 2),
            "upload_request_max_s": round(max(posts), 2),
            "renditions_served_median_s": round(statistics.median(ready), 2),
            "renditions_served_max_s": round(max(ready), 2),
        }
        log(f"{label} {key}: {figures[key]}")
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=5, help="uploads per picture size")
    parser.add_argument("--load", type=int, default=2, help="CPU-busy processes, loaded run")
    options = parser.parse_args()
    exit_cleanly_on_sigterm()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="skillo-bench-uploads-") as folder:
        folder = Path(folder)
        env = django_env(
            f"sqlite:///{folder / 'db.sqlite3'}",
            folder / "static",
            MEDIA_ROOT=str(folder / "media"),
            PAGE_CACHE="0",
        )
        manage(env, "migrate", "--noinput", "--verbosity", "0", timeout=600)
        manage(env, "collectstatic", "--noinput", "--verbosity", "0", timeout=600)
        manage(
            env, "shell", "-c",
            "from django.contrib.auth import get_user_model; "
            "get_user_model().objects.create_superuser('bench', 'b@example.org', 'bench-pw')",
            timeout=120,
        )  # fmt: skip
        worker_log = open(folder / "worker.log", "wb")  # noqa: SIM115
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "run_worker", "--interval", "0.1"],
            cwd=ROOT, env=env, stdout=worker_log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            with Gunicorn(env, folder / "gunicorn.log") as server:
                browser = Browser(server.base_url)
                log_in(browser, "bench", "bench-pw")
                idle = measure(server, browser, 0, options.uploads, "idle")
                stop = multiprocessing.Event()
                burners = [
                    multiprocessing.Process(target=burn, args=(stop,), daemon=True)
                    for _ in range(options.load)
                ]
                for process in burners:
                    process.start()
                try:
                    loaded = measure(server, browser, 100, options.uploads, "loaded")
                finally:
                    stop.set()
                    for process in burners:
                        process.join(timeout=10)
        finally:
            worker.terminate()
            worker.wait(timeout=90)
            worker_log.close()
    print(
        json.dumps(
            {
                "commit": commit,
                "uploads_per_size": options.uploads,
                "idle": idle,
                f"loaded ({options.load} busy processes)": loaded,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
