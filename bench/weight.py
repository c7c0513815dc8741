"""Page weight (issues 14 and 33): what a reader's browser downloads for the home page
and for an article page with a lead image, on a 390 px phone at 3x and a 1280 px desktop
at 1x and 2x, compressed as sent, on a cold load (an empty browser cache).

    .venv/bin/python bench/weight.py

A fresh SQLite database with the demo content, served by gunicorn with the production
settings (bench.settings: Brotli pages, compressed static files), read by Debian's
Chromium through Playwright. Counts each response's body bytes on the wire, by kind.
Only loopback traffic. Progress goes to stderr; the table to stdout.
"""

import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, Gunicorn, demo_site, log

VIEWPORTS = {
    "phone 390 px, 3x": ({"width": 390, "height": 844}, 3),
    "desktop 1280 px, 1x": ({"width": 1280, "height": 1000}, 1),
    "desktop 1280 px, 2x": ({"width": 1280, "height": 1000}, 2),
}


def article_with_lead_image(env):
    code = (
        "from news.models import Article; print(Article.objects.published()"
        ".filter(lead_image__isnull=False).order_by('slug').first().get_absolute_url())"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return result.stdout.strip().splitlines()[-1]


def weigh(browser, url, viewport, scale):
    context = browser.new_context(viewport=viewport, device_scale_factor=scale)
    page = context.new_page()
    responses = []
    page.on("requestfinished", lambda request: responses.append(request))
    page.goto(url, wait_until="networkidle")
    # Scroll to the end so lazy pictures load too, as a reader who reads on would.
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    by_kind, files = defaultdict(int), []
    for request in responses:
        body = request.sizes()["responseBodySize"]
        kind = request.resource_type
        by_kind[kind] += body
        files.append((kind, body, request.url.rsplit("/", 1)[-1]))
    context.close()
    return by_kind, files


def main():
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if not chromium:
        sys.exit("Chromium is not installed (make chromium).")
    with tempfile.TemporaryDirectory(prefix="skillo-weight-") as work:
        work = Path(work)
        env = demo_site(work)
        path = article_with_lead_image(env)
        with Gunicorn(env, work / "gunicorn.log") as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--headless", "--no-sandbox"]
            )
            for title, url in [("Home page /", "/"), (f"Article page {path}", path)]:
                log(f"weighing {url}")
                print(f"{title}, bytes on the wire (compressed bodies):\n")
                print("| reader | HTML | CSS | images | other | total |")
                print("|---|---:|---:|---:|---:|---:|")
                for name, (viewport, scale) in VIEWPORTS.items():
                    by_kind, files = weigh(browser, server.base_url + url, viewport, scale)
                    known = ("document", "stylesheet", "image")
                    other = sum(size for kind, size in by_kind.items() if kind not in known)
                    print(
                        f"| {name} | {by_kind['document']:,} | {by_kind['stylesheet']:,} | "
                        f"{by_kind['image']:,} | {other:,} | {sum(by_kind.values()):,} |"
                    )
                    for kind, size, file in files:
                        log(f"  {name}: {kind:10} {size:>8,}  {file}")
                print()
            browser.close()


if __name__ == "__main__":
    main()
