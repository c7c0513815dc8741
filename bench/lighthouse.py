"""Lighthouse scores (issue 33): performance, accessibility, best practices and SEO of
the home page, an article, a topic and an author page, with Lighthouse's mobile
settings (a mid-range phone, throttled as Lighthouse simulates it).

    make lighthouse && .venv/bin/python bench/lighthouse.py

A fresh SQLite database with the demo content, served by gunicorn with the production
settings (bench.settings), audited by Lighthouse (from the npm registry, `make
lighthouse`) driving Debian's Chromium. Only loopback traffic. Progress goes to stderr;
the table to stdout, and each page's failed audits under it.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, Gunicorn, demo_site, log

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
NPM_BIN = ROOT / ".venv" / "lighthouse" / "node_modules" / ".bin"
LIGHTHOUSE = Path(os.environ.get("LIGHTHOUSE", NPM_BIN / "lighthouse"))


def pages(env):
    """The paths to audit: the home page, and the first article with a lead image,
    topic and author in the demo content."""
    code = (
        "from news.models import Article, Tag; from people.models import Author; "
        "a = Article.objects.published().filter(lead_image__isnull=False)"
        ".order_by('slug').first(); "
        "t = a.tags.order_by('slug').first(); "
        "w = Author.objects.filter(authorships__article=a).first() or Author.objects.first(); "
        "print(a.get_absolute_url(), f'/tags/{t.slug}/', f'/authors/{w.slug}/')"
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT, env=env, check=True, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    article, topic, author = result.stdout.strip().splitlines()[-1].split()
    return {"home": "/", "article": article, "topic": topic, "author": author}


def details(audit):
    """What a failed audit names (the link texts, the files), briefly."""
    items = (audit.get("details") or {}).get("items") or []
    named = [item.get("text") or item.get("url") for item in items if isinstance(item, dict)]
    named = [str(name)[:50] for name in named if name]
    return f": {'; '.join(named[:3])}" if named else ""


def audit(url, chromium, folder):
    report = folder / "report.json"
    command = [
        str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
        f"--only-categories={','.join(CATEGORIES)}",
        "--chrome-flags=--headless=new --no-sandbox",
    ]  # fmt: skip
    # Lighthouse sometimes fails to record the trace ("NO_NAVSTART"): up to three tries.
    for attempt in range(3):
        done = subprocess.run(command, env={**os.environ, "CHROME_PATH": chromium}, timeout=300)
        if done.returncode == 0:
            break
        log(f"Lighthouse failed (try {attempt + 1} of 3)")
    else:
        raise SystemExit(f"Lighthouse failed three times on {url}")
    data = json.loads(report.read_text())
    scores = {name: round(data["categories"][name]["score"] * 100) for name in CATEGORIES}
    failed = sorted(
        f"{audit['id']} ({audit['score']}{details(audit)})"
        for audit in data["audits"].values()
        if audit.get("score") is not None
        and audit["score"] < 0.9
        and audit.get("scoreDisplayMode") in ("binary", "numeric", "metricSavings")
    )
    metrics = data["audits"]
    figures = {
        "LCP ms": round(metrics["largest-contentful-paint"]["numericValue"]),
        "CLS": round(metrics["cumulative-layout-shift"]["numericValue"], 3),
        "TBT ms": round(metrics["total-blocking-time"]["numericValue"]),
    }
    lcp = metrics.get("largest-contentful-paint-element", {}).get("details", {})
    items = [item for group in lcp.get("items", []) for item in group.get("items", [group])]
    node = next((item["node"] for item in items if "node" in item), {})
    figures["LCP element"] = f"`{node.get('snippet', '?')[:60]}`"
    return scores, figures, failed


def main():
    chromium = shutil.which("chromium")
    if not chromium:
        sys.exit("Chromium is not installed (make chromium).")
    if not LIGHTHOUSE.exists():
        sys.exit(f"Lighthouse not found at {LIGHTHOUSE}: make lighthouse (or set LIGHTHOUSE).")
    with tempfile.TemporaryDirectory(prefix="skillo-lighthouse-") as work:
        work = Path(work)
        env = demo_site(work)
        paths = pages(env)
        print("| page | " + " | ".join(CATEGORIES) + " | LCP ms | CLS | TBT ms | LCP element |")
        print("|---|" + "---:|" * (len(CATEGORIES) + 3) + "---|")
        notes = []
        with Gunicorn(env, work / "gunicorn.log") as server:
            for name, path in paths.items():
                log(f"auditing {path}")
                server.get(path)  # warm: the page cache holds it, as for most readers
                scores, figures, failed = audit(server.base_url + path, chromium, work)
                print(
                    f"| {name} `{path}` | "
                    + " | ".join(str(scores[c]) for c in CATEGORIES)
                    + " | "
                    + " | ".join(str(v) for v in figures.values())
                    + " |"
                )
                if failed:
                    notes.append(f"{name}: {', '.join(failed)}")
        print()
        for note in notes or ["every audit scored at least 0.9"]:
            print(f"- {note}")


if __name__ == "__main__":
    main()
