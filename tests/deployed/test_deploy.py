"""A deploy while readers read, as docs/operations.md ("Deploying") says to make one: the
production stack (tests/deployed/stack.py) runs from a copy of this checkout; the copy
then gets a new version (a changed template, and a column added to the articles by a
migration) and `make deploy` puts it in service."""

import subprocess
import threading
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import CI, SHARED_SLUG
from tests.deployed.conftest import missing
from tests.deployed.stack import Deployment, copy_of_checkout
from tests.waiting import poll

ROOT = Path(__file__).resolve().parent.parent.parent
ARTICLE = f"/articles/{SHARED_SLUG}/"
MARK = '<meta name="skillo-deploy-test" content="the second version">'
READERS = 4

pytestmark = pytest.mark.deployed


def write_the_next_version(deployment):
    """What a git pull would bring: a template changed, and a migration adding a column
    the running version knows nothing of (added first, as the docs say)."""
    base = deployment.root / "templates" / "base.html"
    base.write_text(base.read_text().replace("<head>", f"<head>\n{MARK}", 1))
    with open(deployment.root / "news" / "models.py", "a") as models:
        models.write(
            '\nArticle.add_to_class("deploy_note", models.TextField(blank=True, null=True))\n'
        )
    deployment.manage("makemigrations", "news", "--name", "deploy_note")


@pytest.fixture
def site(tmp_path, production_static):
    if absent := missing():
        message = f"a deploy needs {', '.join(absent)}"
        if CI:
            pytest.fail(message + " (.ci/run installs them)")
        pytest.skip(message)
    checkout = tmp_path / "checkout"
    copy_of_checkout(checkout)
    (tmp_path / "run").mkdir()
    deployment = Deployment(tmp_path / "run", production_static, root=checkout)
    try:
        yield deployment.start()
    finally:
        deployment.stop()


class Readers:
    """Readers reading through Varnish until stopped: the article (a hit), the front
    page, and a search of their own each time (a miss, so the app servers answer)."""

    def __init__(self, deployment):
        self.deployment, self.answers, self.failures = deployment, Counter(), []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.read, args=(n,)) for n in range(READERS)]

    def read(self, n):
        reader = self.deployment.reader(client=f"203.0.113.{n + 10}")
        turn = 0
        while not self.stopping.is_set():
            turn += 1
            for path in (ARTICLE, "/", f"/search/?q=python+{n}x{turn}"):
                try:
                    page = reader.get(path)
                except OSError as error:
                    self.failures.append(f"{path}: {error!r}")
                    continue
                self.answers[page.status] += 1
                if page.status != 200:
                    self.failures.append(f"{path}: {page.status} {page.text[:200]}")

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(60)

    def total(self):
        return sum(self.answers.values())


def test_readers_see_no_error_while_a_version_with_a_migration_is_deployed(site, capsys):
    write_the_next_version(site)
    with Readers(site) as readers:
        assert poll(lambda: readers.total() >= 20, 60, 0.1), "the readers never read"
        before = readers.total()
        deployed = subprocess.run(
            ["make", "--no-print-directory", "deploy", f"SERVE_BIND=127.0.0.1:{site.port}"],
            cwd=site.root, env=site.env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert deployed.returncode == 0, deployed.stdout + deployed.stderr
        shown = poll(lambda: MARK in site.reader().get("/").text, 120, 0.2)
        # Some more reading on the new version alone.
        settled = readers.total()
        poll(lambda: readers.total() >= settled + 20, 60, 0.1)
    with capsys.disabled():
        print(
            f"\ndeploy: {readers.total() - before} reader requests from make deploy on, "
            f"{len(readers.failures)} errors"
        )
    assert shown, f"the new version never reached readers: {site.log()[-3000:]}"
    assert readers.failures == []
    assert readers.total() - before >= 40  # Read all along the deploy.
    migrations = site.manage("showmigrations", "news").split("\n")
    assert any(line.strip().startswith("[X]") for line in migrations if "deploy_note" in line)
    assert "run_workers: hangup, replacing the workers" in site.log()
