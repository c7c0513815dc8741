"""Members' benchmark (issue 47): a story's cached page through Varnish, read by
anonymous readers, alone and while 200 signed-in members load its personal part and its
conversation at once.

    .venv/bin/python bench/members.py                 # 10 seconds a phase
    .venv/bin/python bench/members.py --duration 30

A fresh SQLite site with the demo content (bench.settings: production settings over
plain http, page cache on), gunicorn (3 workers) behind varnishd with
deploy/varnish/skillo.vcl. 200 members are signed in (sessions made directly). Phase 1:
readers (wrk, 32 connections) on the story's page. Phase 2: 200 connections of members
(wrk, each request with one of the 200 members' cookies) asking /account/stories/<id>/
(never cached) and /comments/<id>/ (the public conversation, cached). Phase 3: both at
once. Prints JSON: each phase's requests/s, p50 and p99 (ms),
answers other than 2xx and socket errors.
"""

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import (
    WRK_SCRIPT,
    BenchError,
    Gunicorn,
    Varnish,
    demo_site,
    exit_cleanly_on_sigterm,
    log,
    manage,
    wrk,
)

MEMBERS = 200
SESSIONS = f"""
from datetime import timedelta
from django.utils import timezone
from members.models import Member, MemberSession, token_hash
from news.models import Article
for n in range({MEMBERS}):
    member = Member.objects.create(email=f"bench-{{n}}@example.org")
    MemberSession.objects.create(
        member=member, token=token_hash(f"bench-{{n}}"),
        expires_at=timezone.now() + timedelta(days=1),
    )
story = Article.objects.published().order_by("-published_at", "-pk").first()
print("STORY", story.pk, story.get_absolute_url())
"""
# bench/wrk.lua, each request with one of the members' cookies.
MEMBER_LUA = """
local members = {members}
function request()
  sent = sent + 1
  local cookie = "member=bench-" .. (math.random(members) - 1)
  return wrk.format(nil, paths[math.random(#paths)], {{Cookie = cookie}})
end
"""


def member_wrk(url, duration, paths, folder):
    script = folder / "members.lua"
    base = WRK_SCRIPT.read_text()
    script.write_text(base + MEMBER_LUA.format(members=MEMBERS))
    command = [
        "wrk", "--threads=2", f"--connections={MEMBERS}", f"--duration={duration}s",
        "--timeout=5s", f"--script={script}", url, "--", *paths,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60)
    line = next(x for x in result.stdout.splitlines() if x.startswith("WRK_RESULT "))
    figures = json.loads(line.removeprefix("WRK_RESULT "))
    figures["rps"] = figures["requests"] / (figures["duration_us"] / 1e6)
    figures["socket_errors"] = sum(figures[k] for k in ("connect", "read", "write", "timeout"))
    return figures


def summary(figures):
    return {
        "requests_per_s": round(figures["rps"]),
        "p50_ms": round(figures["p50_us"] / 1000, 2),
        "p99_ms": round(figures["p99_us"] / 1000, 2),
        "not_2xx": figures["not_2xx"],
        "socket_errors": figures["socket_errors"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds a phase")
    args = parser.parse_args()
    exit_cleanly_on_sigterm()
    work = Path(tempfile.mkdtemp(prefix="skillo-bench-members-"))
    try:
        env = demo_site(work)
        shell = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", SESSIONS],
            cwd=Path(__file__).resolve().parent.parent, env=env, check=True,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        _, pk, path = next(x for x in shell.stdout.splitlines() if x.startswith("STORY")).split()
        manage(env, "check", "--deploy", "--fail-level", "CRITICAL", timeout=120)
        with contextlib.ExitStack() as stack:
            app = stack.enter_context(Gunicorn(env, work / "gunicorn.log", workers=3))
            varnish = stack.enter_context(Varnish(work / "varnish", app.port))
            for _ in range(3):  # stored in Varnish before the clock starts
                wrk(varnish.base_url + path, 1, 4, 1)
                wrk(f"{varnish.base_url}/comments/{pk}/", 1, 4, 1)
            log("Phase 1: readers alone")
            alone = wrk(varnish.base_url + path, args.duration, 32, 2)
            member_paths = [f"/account/stories/{pk}/", f"/comments/{pk}/"]
            log(f"Phase 2: {MEMBERS} members alone")
            members_alone = member_wrk(varnish.base_url, args.duration, member_paths, work)
            log(f"Phase 3: readers with {MEMBERS} members at once")
            with ThreadPoolExecutor(2) as pool:
                readers = pool.submit(wrk, varnish.base_url + path, args.duration, 32, 2)
                members = pool.submit(
                    member_wrk, varnish.base_url, args.duration, member_paths, work
                )
                together, members_figures = readers.result(), members.result()
        print(
            json.dumps(
                {
                    "readers_alone": summary(alone),
                    "members_alone": summary(members_alone),
                    "readers_with_members": summary(together),
                    "members_with_readers": summary(members_figures),
                },
                indent=1,
            )
        )
    except BenchError as error:
        log(f"bench/members.py: {error}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
