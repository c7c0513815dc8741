"""Interoperability with code no one here wrote: Fedify 1.5 (npm @fedify/fedify, the
framework behind Ghost's federation) looks up Skillo's site actor by its handle and an
article by its address on a running server, and verifies the signatures of the
deliveries Skillo sends. make test installs it and sets FEDIFY_MODULE; run alone,
without it, the test says how."""

import base64
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client

from ..background_tasks import run_queued
from ..factories import ArticleFactory, AuthorFactory
from .test_following import follow

SCRIPT = Path(__file__).with_name("fedify_check.mjs")


def fedify(payload):
    module = Path(os.environ.get("FEDIFY_MODULE", ""))
    node = shutil.which("node")
    if not (module.is_file() and node):
        pytest.fail(
            "Fedify is not installed: set FEDIFY_MODULE to @fedify/fedify's esm/mod.js and "
            "install Node (make test does both)."
        )
    result = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FEDIFY_MODULE": str(module)},
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.sqlite_only(reason="the protocol does not depend on the database")
def test_fedify_finds_skillo_and_verifies_what_it_sends(
    transactional_db, live_server, settings, remote
):
    settings.SKILLO_SITE_URL = live_server.url
    host = live_server.url.removeprefix("http://")
    ada = AuthorFactory(name="Ada Lovelace", slug="ada")
    article = ArticleFactory(title="Rust 1.90 ships", authors=[ada])
    run_queued()  # announced to nobody: no one follows yet
    assert follow(Client(), remote, "alice", f"{live_server.url}/ap/site").status_code == 202
    run_queued()
    ArticleFactory(title="Go 1.30 ships", authors=[ada])
    run_queued()
    sent = [
        {
            "url": f"{remote.base}{entry['path']}",
            "headers": entry["headers"],
            "body": base64.b64encode(entry["body"]).decode(),
        }
        for entry in remote.received
    ]
    assert [json.loads(entry["body"])["type"] for entry in remote.received] == ["Accept", "Create"]
    result = fedify(
        {
            "site": live_server.url,
            "lookups": [
                f"@news@{host}",
                f"@ada@{host}",
                live_server.url + article.get_absolute_url(),
            ],
            "requests": sent,
        }
    )
    site = result["lookups"][f"@news@{host}"]
    assert site["type"] == "Service"
    assert site["id"] == f"{live_server.url}/ap/site"
    assert site["preferredUsername"] == "news"
    assert result["lookups"][f"@ada@{host}"]["type"] == "Person"
    found = result["lookups"][live_server.url + article.get_absolute_url()]
    assert found["type"] == "Article"
    assert found["name"] == "Rust 1.90 ships"
    assert found["id"] == f"{live_server.url}/ap/articles/{article.pk}"
    assert (
        result["verified"]
        == [{"keyId": f"{live_server.url}/ap/site#main-key", "owner": f"{live_server.url}/ap/site"}]
        * 2
    )
