"""Editors saving at once through the admin, on real server processes (issue 12).

    .venv/bin/python bench/editors.py                                  # SQLite and PostgreSQL, 30 s
    .venv/bin/python bench/editors.py --databases sqlite --duration 10
    .venv/bin/python bench/editors.py --databases postgres --postgres-url postgres://u@host:port/db

For each database: a fresh database (an SQLite file in a temporary folder; a database in a
throwaway PostgreSQL cluster, or in the server of ``--postgres-url``), migrated, with the
demo articles imported and ``--editors`` editor accounts; gunicorn with ``--workers``
sync worker processes (bench.settings: production settings over plain http on
127.0.0.1, page cache off) against it. Then, for ``--duration`` seconds, at once, each a
separate OS process:

- editors, each logged in with their own session, loop: GET the article's change form,
  POST it back with a new body (each body carries a unique marker). The first
  ``--shared`` editors edit the same article, so their saves conflict; each other editor
  has an article of their own;
- ``manage.py import_articles`` in a loop, re-importing a changed file (a new marker each
  time) of the first editor-owned article (of the shared one when there is none);
- readers GET the home page and article pages, timing each request.

A save answered 302 was accepted; 200 with the conflict message ("after you opened it.
Your changes have NOT been saved") was refused; anything else (a 5xx, the busy page, a
form error, a timeout) is an error. Afterwards it checks, per article, that nothing was
lost: no two accepted saves started from the same version, the version counter moved by
exactly the accepted saves plus the imports, the new revisions hold exactly the accepted
saves' bodies (each at the version it was saved as; plus, if the importer records
revisions, one per import), no two revisions share a version, and the stored body is that
of the last accepted change (admin save or import). Prints one Markdown table; exits 1 on any
error or lost update. ``run()`` returns the same figures as data (for
tests/test_concurrent_editors.py).

Internally the same file is the clients (``--client editor|reader|importer``) and the
database probes (``--setup``, ``--state``), each run as ``python -m bench.editors``.
"""

import argparse
import contextlib
import html.parser
import http.client
import http.cookies
import json
import math
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._server import (  # noqa: E402
    BenchError,
    Gunicorn,
    PostgresCluster,
    django_env,
    exit_cleanly_on_sigterm,
    find_postgres,
    log,
    log_tail,
)

DEMO_CONTENT = ROOT / "textfiles" / "demo_content"
CONFLICT = "after you opened it. Your changes have NOT been saved"
# Every change made here carries one marker: ZQE<editor>X<n> (admin), ZQI<n> (import).
MARKER = re.compile(r"\bZQ(?:E\d+X\d+|I\d+)\b")
REQUEST_TIMEOUT = 60  # seconds; longer than the busy timeout and gunicorn's worker timeout
MAX_CYCLES = 100_000  # per client, whatever the duration
FILLER = (
    "The release notes list the changes one by one, and the maintainers explain in the "
    "announcement why each matters for the people who run it in production. "
)


def busy_timeout():
    """SQLITE_BUSY_TIMEOUT as the servers read it (skillo/settings/base.py)."""
    return float(os.environ.get("SQLITE_BUSY_TIMEOUT", "20"))


# The HTTP client of editors and readers


class Browser:
    """One user agent: its own cookies (session, CSRF, messages); a new connection per
    request (gunicorn's sync workers close each one)."""

    def __init__(self, base_url):
        parts = urllib.parse.urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.cookies = {}

    def request(self, method, path, fields=None):
        """(status, headers, text, seconds) of one request; a form POST with ``fields``."""
        headers = {"Connection": "close"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode([tuple(pair) for pair in fields])
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=REQUEST_TIMEOUT)
        try:
            started = time.perf_counter()
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
            elapsed = time.perf_counter() - started
        finally:
            connection.close()
        for header in response.headers.get_all("Set-Cookie") or []:
            jar = http.cookies.SimpleCookie()
            jar.load(header)
            for name, morsel in jar.items():
                if str(morsel["max-age"]) == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.coded_value
        return response.status, response.headers, content.decode("utf-8", "replace"), elapsed


class FormFields(html.parser.HTMLParser):
    """The (name, value) pairs a browser submits with the form of id ``form_id``."""

    def __init__(self, form_id):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.fields = []
        self.textarea = None
        self.select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
            return
        name = attrs.get("name")
        if not self.inside or "disabled" in attrs:
            return
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"}:
                if "checked" in attrs:
                    self.fields.append([name, attrs.get("value") or "on"])
                return
            self.fields.append([name, attrs.get("value") or ""])
        elif tag == "textarea" and name:
            self.textarea = [name, ""]
            self.fields.append(self.textarea)
        elif tag == "select" and name:
            self.select = {"name": name, "multiple": "multiple" in attrs, "options": []}
        elif tag == "option" and self.select is not None:
            self.select["options"].append((attrs.get("value") or "", "selected" in attrs))

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self.textarea is not None:
            # A browser drops the newline that follows <textarea> (Django writes one).
            self.textarea[1] = self.textarea[1].removeprefix("\r\n").removeprefix("\n")
            self.textarea = None
        elif tag == "select" and self.select is not None:
            options = self.select["options"]
            chosen = [value for value, selected in options if selected]
            if not chosen and options and not self.select["multiple"]:
                chosen = [options[0][0]]
            self.fields += [[self.select["name"], value] for value in chosen]
            self.select = None


def form_fields(page, form_id):
    parser = FormFields(form_id)
    parser.feed(page)
    parser.close()
    return parser.fields


def field(fields, name):
    return next((value for key, value in fields if key == name), None)


def log_in(browser, username, password):
    status, _, page, _ = browser.request("GET", "/admin/login/?next=/admin/")
    if status != 200:
        raise BenchError(f"{username}: GET /admin/login/ answered {status}")
    fields = form_fields(page, "login-form")
    fields += [["username", username], ["password", password]]
    status, headers, _, _ = browser.request("POST", "/admin/login/?next=/admin/", fields)
    if status != 302 or "/login/" in (headers.get("Location") or ""):
        raise BenchError(f"{username}: login answered {status} {headers.get('Location')}")


def percentile(values, fraction):
    """The nearest-rank percentile of ``values`` (seconds), or None."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def article_body(marker, n):
    """A new body of a few kilobytes, its marker in the first paragraph."""
    paragraphs = [f"{marker}: edit number {n} of this article, saved through the admin."]
    paragraphs += [FILLER * 4] * 4
    return "## What happened\n\n" + "\n\n".join(paragraphs)


def describe(status, page):
    """What went wrong with an answer, in a few words."""
    if status == 503:
        return "503 (database busy)" if "busy" in page.lower() else "503"
    errors = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    text = " | ".join(re.sub(r"<[^>]+>", " ", e).split("\n")[0].strip() for e in errors)
    return f"{status} {text[:300]}".strip()


# The clients, each its own OS process: python -m bench.editors --client KIND CONFIG


def wait_for_go():
    """Say we are ready; the driver's answer is the wall-clock time to stop at."""
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line:
        sys.exit(1)  # the driver went away
    return float(line)


def editor_client(config):
    browser = Browser(config["base_url"])
    log_in(browser, config["username"], config["password"])
    change = f"/admin/news/article/{config['pk']}/change/"
    end_at = wait_for_go()
    started = time.time()
    result = {"accepted": [], "refused": [], "errors": [], "get_s": [], "post_s": []}
    for n in range(MAX_CYCLES):
        # An editor none of whose saves has landed yet keeps trying for ``grace`` seconds
        # more, as a person would: the import loop stops at the end, so the save then lands
        # unless something starves it.
        late = time.time() >= end_at
        if late and (result["accepted"] or time.time() >= end_at + config.get("grace", 0)):
            break
        marker = f"ZQE{config['editor']}X{n}"
        try:
            status, _, page, elapsed = browser.request("GET", change)
            result["get_s"].append(elapsed)
            if status != 200:
                result["errors"].append(f"GET change form: {describe(status, page)}")
                time.sleep(0.2)
                continue
            fields = form_fields(page, "article_form")
            loaded = int(field(fields, "loaded_version"))
            for pair in fields:
                if pair[0] == "body":
                    pair[1] = article_body(marker, n)
            fields.append(["_save", "Save"])
            status, headers, page, elapsed = browser.request("POST", change, fields)
            result["post_s"].append(elapsed)
        except (OSError, http.client.HTTPException, TypeError, ValueError) as error:
            result["errors"].append(f"{type(error).__name__}: {error}")
            time.sleep(0.2)
            continue
        save = {"pk": config["pk"], "loaded": loaded, "marker": marker, "at": time.time()}
        location = headers.get("Location") or ""
        if status == 302 and "/login/" not in location:
            result["accepted"].append(save)
        elif status == 200 and CONFLICT in page:
            result["refused"].append(save)
        else:
            result["errors"].append(f"POST change form ({marker}): {describe(status, page)}")
        if config["pause"] and not late:
            time.sleep(max(0, min(config["pause"], end_at - time.time())))
    result["seconds"] = time.time() - started
    return result


def reader_client(config):
    browser = Browser(config["base_url"])
    paths = config["paths"]
    end_at = wait_for_go()
    started = time.time()
    result = {"latencies_s": [], "errors": []}
    for n in range(MAX_CYCLES):
        if time.time() >= end_at:
            break
        path = paths[(n + config["offset"]) % len(paths)]
        try:
            status, _, page, elapsed = browser.request("GET", path)
        except (OSError, http.client.HTTPException) as error:
            result["errors"].append(f"GET {path}: {type(error).__name__}: {error}")
            time.sleep(0.2)
            continue
        result["latencies_s"].append(elapsed)
        if status != 200:
            result["errors"].append(f"GET {path}: {describe(status, page)}")
    result["seconds"] = time.time() - started
    return result


def importer_client(config):
    """``manage.py import_articles`` again and again, each time with a new marker."""
    template = Path(config["template"]).read_text(encoding="utf-8")
    title, _, rest = template.partition("\n\n")
    target = Path(config["folder"]) / "imported.txt"
    end_at = wait_for_go()
    started = time.time()
    result = {"ok": [], "unchanged": 0, "errors": []}
    for n in range(MAX_CYCLES):
        if time.time() >= end_at:
            break
        marker = f"ZQI{n}"
        text = f"{title}\n\nImported again\n\n{marker}: import number {n} of this article.\n\n"
        target.write_text(text + rest, encoding="utf-8")
        command = [sys.executable, "manage.py", "import_articles", str(target)]
        try:
            done = subprocess.run(
                command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
            )
        except subprocess.TimeoutExpired:
            result["errors"].append(f"import {marker}: no answer within 120 s")
            continue
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            result["errors"].append(f"import {marker}: exit {done.returncode}: {tail}")
        elif "1 updated" in done.stdout:
            result["ok"].append({"pk": config["pk"], "marker": marker, "at": time.time()})
        else:
            result["unchanged"] += 1
            result["errors"].append(f"import {marker} changed nothing: {done.stdout.strip()}")
        time.sleep(max(0, min(config["pause"], end_at - time.time())))
    result["seconds"] = time.time() - started
    return result


CLIENTS = {"editor": editor_client, "reader": reader_client, "importer": importer_client}


def client_main(kind, config_path):
    config = json.loads(Path(config_path).read_text())
    result = CLIENTS[kind](config)
    Path(config["result"]).write_text(json.dumps(result))


# Probes of the database, run in the servers' environment


def database_state(create_editors=0, password="", collect_static=True):
    """Every article's version, body and revisions (as JSON-able data). With
    ``create_editors``, first set the fresh database up: migrate, collect the static
    files (unless ``collect_static`` is false: STATIC_ROOT holds them already), import
    the demo articles and create that many editor accounts."""
    import django

    django.setup()
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command
    from reversion.models import Version

    from news.models import Article

    if create_editors:
        with contextlib.redirect_stdout(sys.stderr):
            call_command("migrate", interactive=False, verbosity=0)
            if collect_static:
                call_command("collectstatic", interactive=False, verbosity=0)
            call_command("import_articles", str(DEMO_CONTENT))
    editors = Group.objects.get(name="Editors")
    hashed = make_password(password)  # once: the production hasher takes half a second
    for n in range(create_editors):
        user = User.objects.create(username=f"editor{n}", password=hashed, is_staff=True)
        user.groups.add(editors)
    articles = {}
    for article in Article.objects.order_by("pk"):
        revisions = [
            {
                "version": v.field_dict.get("version"),
                "markers": MARKER.findall(v.field_dict["body"]),
            }
            for v in Version.objects.get_for_object(article).order_by("pk")
        ]
        articles[str(article.pk)] = {
            "slug": article.slug,
            "title": article.title,
            "status": article.status,
            "version": article.version,
            "body": article.body,
            "revisions": revisions,
        }
    return {"articles": articles}


# The driver


class Clients:
    """Client processes: started, told to go together, waited for (each bounded)."""

    def __init__(self, env, folder):
        self.env, self.folder = env, Path(folder)
        self.processes = []

    def start(self, kind, config):
        n = len(self.processes)
        config = {**config, "result": str(self.folder / f"{kind}-{n}.json")}
        config_path = self.folder / f"{kind}-{n}.config.json"
        config_path.write_text(json.dumps(config))
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.editors", "--client", kind, str(config_path)],
            cwd=ROOT, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.processes.append((kind, config["result"], process))

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        for _, _, process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            for pipe in (process.stdin, process.stdout):
                if pipe and not pipe.closed:
                    with contextlib.suppress(OSError):
                        pipe.close()

    def run(self, duration, grace=0):
        """Wait for every client to be ready, then let them run for ``duration`` seconds;
        their results by kind, and the seconds from the start to the last one's end."""
        waiting = time.monotonic()
        for kind, _, process in self.processes:
            # Bounded: a client's login requests time out, and a crash closes the pipe.
            if process.stdout.readline().strip() != "ready":
                raise BenchError(f"a {kind} client failed to start (exit {process.wait(60)})")
            process.stdout.close()
        log(f"clients logged in and ready in {time.monotonic() - waiting:.1f} s")
        began = time.time()
        end_at = began + duration
        for _, _, process in self.processes:
            process.stdin.write(f"{end_at}\n")
            process.stdin.close()
        results = {"editor": [], "reader": [], "importer": []}
        deadline = time.monotonic() + duration + grace + 2 * REQUEST_TIMEOUT + 120
        for kind, result_path, process in self.processes:
            try:
                code = process.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired as error:
                raise BenchError(f"a {kind} client did not finish in time") from error
            if code != 0:
                raise BenchError(f"a {kind} client failed (exit {code})")
            results[kind].append(json.loads(Path(result_path).read_text()))
        return results, time.time() - began


def python_json(env, *args, timeout=300):
    """Run ``python -m bench.editors ARGS`` in the servers' environment; its JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.editors", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise BenchError(f"bench.editors {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def demo_file(title):
    """The demo article file whose first line is ``title``."""
    for path in sorted(DEMO_CONTENT.glob("*.txt")):
        if path.read_text(encoding="utf-8").partition("\n")[0].strip() == title:
            return path
    raise BenchError(f"no demo file for {title!r}")


def plan(initial, editors, shared):
    """Which article each editor edits, which one the import rewrites, what readers read."""
    published = [pk for pk, a in initial["articles"].items() if a["status"] == "published"]
    needed = 1 + max(0, editors - shared) if shared else editors
    if len(published) < needed:
        raise BenchError(f"{editors} editors need {needed} articles; there are {len(published)}")
    if shared:
        article_of = [
            published[0] if n < shared else published[n - shared + 1] for n in range(editors)
        ]
    else:
        article_of = published[:editors]
    imported = article_of[shared] if editors > shared else article_of[0]
    edited = list(dict.fromkeys(article_of))
    others = [pk for pk in published if pk not in edited][:3]
    slugs = [initial["articles"][pk]["slug"] for pk in edited + others]
    paths = ["/", *(f"/articles/{slug}/" for slug in slugs)]
    return {"article_of": article_of, "imported": imported, "reader_paths": paths}


@contextlib.contextmanager
def fresh_database(database, workdir, postgres_url):
    """A DATABASE_URL for a new, empty database, removed afterwards."""
    if database == "sqlite":
        yield f"sqlite:///{workdir / 'editors.sqlite3'}"
        return
    if database != "postgres":
        raise BenchError(f"unknown database {database!r} (sqlite or postgres)")
    if postgres_url is None:
        with PostgresCluster() as cluster:
            yield cluster.create_database("skillo_editors")
        return
    import psycopg

    name = f"skillo_editors_{os.getpid()}"
    server = urllib.parse.urlsplit(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True, connect_timeout=10) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urllib.parse.urlunsplit(server._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(postgres_url, autocommit=True, connect_timeout=10) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def run(
    database, duration=30, editors=5, shared=3, readers=2, workers=4, postgres_url=None,
    import_pause=1.0, editor_pause=0.0, static_root=None, grace=0,
):  # fmt: skip
    """One benchmark run on ``database`` ("sqlite" or "postgres"); its figures and the
    problems found, as a dict (see ``summarise``). ``static_root``: a STATIC_ROOT already
    collected with the production settings, served as it is (collecting one with its
    compressed copies takes a minute of CPU), instead of one collected for the run."""
    workdir = Path(tempfile.mkdtemp(prefix="skillo-editors-"))
    try:
        with fresh_database(database, workdir, postgres_url) as url:
            static = static_root or workdir / "static"
            env = django_env(url, static, PAGE_CACHE="false", CACHE_URL="dummy://")
            log(f"{database}: migrating, importing the demo articles, creating {editors} editors")
            password = secrets.token_urlsafe(16)
            # One argument, "=" joined: a password may start with "-" (token_urlsafe).
            setup = ["--setup", str(editors), f"--password={password}"]
            if static_root:
                setup.append("--static-collected")
            initial = python_json(env, *setup)
            layout = plan(initial, editors, shared)
            (workdir / "import").mkdir()
            server_log = workdir / "gunicorn.log"
            try:
                with Gunicorn(env, server_log, workers=workers) as server:
                    log(f"{database}: gunicorn with {workers} workers on {server.base_url}")
                    with Clients(env, workdir) as clients:
                        for n, pk in enumerate(layout["article_of"]):
                            clients.start("editor", {
                                "base_url": server.base_url, "username": f"editor{n}",
                                "password": password, "pk": int(pk), "editor": n,
                                "pause": editor_pause, "grace": grace,
                            })  # fmt: skip
                        for n in range(readers):
                            clients.start("reader", {
                                "base_url": server.base_url, "paths": layout["reader_paths"],
                                "offset": n,
                            })  # fmt: skip
                        clients.start("importer", {
                            "pk": int(layout["imported"]), "folder": str(workdir / "import"),
                            "pause": import_pause, "template": str(demo_file(
                                initial["articles"][layout["imported"]]["title"])),
                        })  # fmt: skip
                        log(f"{database}: {editors} editors, {readers} readers and an import "
                            f"loop for {duration:g} s")  # fmt: skip
                        results, seconds = clients.run(duration, grace)
            except BaseException:
                log_tail(server_log)
                raise
            server_errors = server_problems(server_log.read_text(errors="replace"))
            final = python_json(env, "--state")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return summarise(database, initial, final, layout, results, seconds, server_errors)


def server_problems(text):
    """Each traceback (as its exception line) and each critical line of the server log;
    the first traceback in full goes to stderr."""
    lines, problems, first = text.splitlines(), [], None
    for n, line in enumerate(lines):
        if "[CRITICAL]" in line or "WORKER TIMEOUT" in line:
            problems.append(line)
        elif line.startswith("Traceback"):
            end = next(
                (k for k in range(n + 1, len(lines)) if lines[k] and not lines[k][0].isspace()),
                len(lines) - 1,
            )
            problems.append(f"traceback: {lines[end]}")
            first = first or "\n".join(lines[max(0, n - 2) : end + 1])
    if first:
        log(f"First traceback in the server log:\n{first}")
    return problems


def verify(initial, final, saves, imports):
    """Lost updates, as sentences: each accepted change must be where it belongs."""
    problems = []
    touched = {s["pk"] for s in saves} | {i["pk"] for i in imports}
    per_article = {}
    for pk in sorted(touched):
        before, after = initial["articles"][str(pk)], final["articles"][str(pk)]
        mine = sorted((s for s in saves if s["pk"] == pk), key=lambda s: s["loaded"])
        imported = sorted((i for i in imports if i["pk"] == pk), key=lambda i: i["at"])
        name = f"article {pk} ({before['slug']})"
        loaded = [s["loaded"] for s in mine]
        for version in sorted({v for v in loaded if loaded.count(v) > 1}):
            markers = [s["marker"] for s in mine if s["loaded"] == version]
            problems.append(f"{name}: saves {markers} were all accepted from version {version}")
        expected_version = before["version"] + len(mine) + len(imported)
        if after["version"] != expected_version:
            problems.append(
                f"{name}: version {after['version']}, expected {before['version']} + "
                f"{len(mine)} saves + {len(imported)} imports = {expected_version}"
            )
        if after["revisions"][: len(before["revisions"])] != before["revisions"]:
            problems.append(f"{name}: revisions from before the run changed")
        new_revisions = after["revisions"][len(before["revisions"]) :]
        # One revision per accepted admin save, at the version it saved, with its body;
        # the importer may record revisions too (one per import that changed the article).
        by_admin, by_import, unknown = [], [], []
        for revision in new_revisions:
            markers = revision["markers"]
            if len(markers) == 1 and markers[0].startswith("ZQE"):
                by_admin.append((revision["version"], markers[0]))
            elif len(markers) == 1 and markers[0].startswith("ZQI"):
                by_import.append(markers[0])
            else:
                unknown.append(revision)
        accepted = {(s["loaded"] + 1, s["marker"]) for s in mine}
        if len(by_admin) != len(mine):
            problems.append(f"{name}: {len(by_admin)} revisions for {len(mine)} accepted saves")
        for version, marker in sorted(accepted - set(by_admin)):
            problems.append(f"{name}: no revision holds {marker} at version {version}")
        for version, marker in sorted(set(by_admin) - accepted):
            problems.append(f"{name}: a revision at version {version} holds {marker}")
        for revision in unknown:
            problems.append(f"{name}: a revision holds {revision['markers']}")
        if by_import and sorted(by_import) != sorted(i["marker"] for i in imported):
            markers = [i["marker"] for i in imported]
            problems.append(f"{name}: import revisions {by_import} for imports {markers}")
        versions = [r["version"] for r in new_revisions]
        for version in sorted({v for v in versions if versions.count(v) > 1}):
            problems.append(f"{name}: two revisions at version {version}")
        last_save = [s["marker"] for s in mine if s["loaded"] + 1 == after["version"]]
        if last_save:
            expected = [last_save[0]]
        elif imported:
            expected = [imported[-1]["marker"]]
        else:
            expected = MARKER.findall(before["body"])
        found = MARKER.findall(after["body"])
        if found != expected:
            problems.append(f"{name}: the stored body holds {found}, expected {expected}")
        per_article[str(pk)] = {
            "slug": before["slug"],
            "accepted_saves": len(mine),
            "imports": len(imported),
            "admin_revisions_added": len(by_admin),
            "import_revisions_added": len(by_import),
            "version_before": before["version"],
            "version_after": after["version"],
        }
    for pk, after in final["articles"].items():
        if int(pk) not in touched and after != initial["articles"].get(pk):
            problems.append(f"article {pk} ({after['slug']}) changed, though nobody saved it")
    return problems, per_article


def summarise(database, initial, final, layout, results, seconds, server_errors):
    editors, readers = results["editor"], results["reader"]
    (importer,) = results["importer"]
    saves = [s for e in editors for s in e["accepted"]]
    refused = [s for e in editors for s in e["refused"]]
    latencies = [t for r in readers for t in r["latencies_s"]]
    errors = [
        *(f"editor: {e}" for r in editors for e in r["errors"]),
        *(f"reader: {e}" for r in readers for e in r["errors"]),
        *(f"import: {e}" for e in importer["errors"]),
        *(f"server log: {line}" for line in server_errors),
    ]
    lost, per_article = verify(initial, final, saves, importer["ok"])
    editor_seconds = max(e["seconds"] for e in editors)
    post = [t for e in editors for t in e["post_s"]]
    return {
        "database": database,
        "seconds": seconds,
        "editors": len(editors),
        "readers": len(readers),
        "accepted_saves": len(saves),
        "refused_saves": len(refused),
        "saves_per_second": len(saves) / editor_seconds,
        "save_p99_ms": 1000 * percentile(post, 0.99) if post else None,
        "imports": len(importer["ok"]),
        "import_failures": len([e for e in importer["errors"] if "changed nothing" not in e]),
        "reader_requests": len(latencies),
        "reader_p50_ms": 1000 * percentile(latencies, 0.50) if latencies else None,
        "reader_p99_ms": 1000 * percentile(latencies, 0.99) if latencies else None,
        "reader_max_ms": 1000 * max(latencies) if latencies else None,
        "errors": errors,
        "lost_updates": lost,
        "articles": per_article,
        "imported_article": layout["imported"],
        "busy_timeout_s": busy_timeout(),
    }


def print_table(rows):
    print(
        "| database | seconds | accepted saves | refused | saves/s | imports | reader requests "
        "| reader p50 / p99 / max ms | errors | lost-update findings |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        latency = " / ".join(
            f"{row[k]:.0f}" if row[k] is not None else "-"
            for k in ("reader_p50_ms", "reader_p99_ms", "reader_max_ms")
        )
        print(
            f"| {row['database']} | {row['seconds']:.0f} | {row['accepted_saves']} | "
            f"{row['refused_saves']} | {row['saves_per_second']:.1f} | {row['imports']} | "
            f"{row['reader_requests']} | {latency} | {len(row['errors'])} | "
            f"{len(row['lost_updates'])} |",
            flush=True,
        )


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", default="sqlite,postgres", help="comma-separated")
    parser.add_argument("--duration", type=float, default=30, help="seconds of saves")
    parser.add_argument("--editors", type=int, default=5)
    parser.add_argument("--shared", type=int, default=3, help="editors sharing one article")
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--import-pause", type=float, default=1.0, help="seconds between imports")
    parser.add_argument("--postgres-url", help="an existing server (else a throwaway cluster)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure to PATH")
    # Internal: the clients and the database probes.
    parser.add_argument("--client", choices=sorted(CLIENTS), help=argparse.SUPPRESS)
    parser.add_argument("--setup", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--password", default="", help=argparse.SUPPRESS)
    parser.add_argument("--state", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--static-collected", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("config", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 0 < args.duration <= 3600 or not 1 <= args.editors <= 50:
        parser.error("--duration between 0 and 3600 s, --editors between 1 and 50")
    if not 0 <= args.shared <= args.editors or not 0 <= args.readers <= 50:
        parser.error("--shared between 0 and --editors, --readers between 0 and 50")
    return args


def main():
    args = parse_args()
    if args.client:
        client_main(args.client, args.config)
        return 0
    if args.setup is not None or args.state:
        state = database_state(args.setup or 0, args.password, not args.static_collected)
        print(json.dumps(state))
        return 0
    exit_cleanly_on_sigterm()
    databases = args.databases.split(",")
    if "postgres" in databases and args.postgres_url is None and find_postgres() is None:
        log("PostgreSQL server not found (initdb, pg_ctl).")
        return 1
    rows = []
    try:
        for database in databases:
            options = {k: getattr(args, k) for k in ("editors", "shared", "readers", "workers")}
            options.update(postgres_url=args.postgres_url, import_pause=args.import_pause)
            rows.append(run(database, args.duration, **options))
    except BenchError as error:
        log(f"Benchmark failed: {error}")
        return 1
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    failed = False
    for row in rows:
        for kind in ("errors", "lost_updates"):
            for problem in row[kind][:20]:
                log(f"{row['database']}: {kind.replace('_', ' ')}: {problem}")
            failed = failed or bool(row[kind])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
