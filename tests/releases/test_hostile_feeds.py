"""Hostile release sources: each parser reads a document at its kind's size limit,
built to make a backtracking regular expression or a naive parser take hours (repeated
and nested tags, entities, unclosed comments, long lines), within a CPU budget of
seconds; and a source serving one through the real path (loopback server, the task)
leaves the worker free and its real releases still become tips."""

import json

import pytest
import time_machine

from background.schedule import queue_due
from releases import parsers
from releases.models import Tip

from .. import hostile
from ..background_tasks import run_queued
from ..cpu_budget import cpu_budget
from . import formats
from .conftest import NOW
from .release_server import Route
from .test_polling import JULY_24, NOTES


def fitted(kind, wrap, names=tuple(hostile.PIECES)):
    """Each hostile document wrapped by ``wrap`` (text -> bytes), as near the kind's
    size limit as it goes."""
    limit = parsers.MAX_BYTES[kind]
    for name in names:
        size = limit
        body = wrap(hostile.document(name, size))
        while len(body) > limit:
            size = int(size * limit / len(body) * 0.99)
            body = wrap(hostile.document(name, size))
        yield name, body


def github(notes):
    return formats.github_atom(
        "pytorch/pytorch", [("v2.4.0", JULY_24, NOTES), ("v2.3.0", JULY_24, notes)]
    )


def blog(text):
    return formats.rss_blog("News", [("Release 2.4.0", "https://example.org/2.4", JULY_24, text)])


def json_feed(html):
    return formats.json_feed(
        "News", [("Release 2.4.0", "https://example.org/2.4", "2024-07-24T16:39:14Z", html)]
    )


def npm(text):
    # A version list of the document's size, and the text as its readme.
    versions = {f"1.0.{n}": {} for n in range(len(text) // 40)}
    times = dict.fromkeys(versions, "2024-07-24T16:39:14Z")
    return json.dumps({"name": "react", "versions": versions, "time": times, "readme": text})


def crates(text):
    rows = [{"num": f"1.0.{n}", "created_at": "2024-07-24T16:39:14Z", "crate": "serde"}
            for n in range(len(text) // 70)]  # fmt: skip
    return json.dumps({"versions": rows, "description": text}).encode()


CASES = {
    "github": github,
    "pypi": lambda text: formats.pypi_rss("torch", [(text, JULY_24)]),
    "feed": blog,
    "npm": npm,
    "crates": crates,
}


def read(kind, body, content_type):
    try:
        return parsers.parse(kind, body, content_type)
    except parsers.NotReadable as error:
        return error


def test_the_first_paragraph_of_120_kb_of_p_tags_is_read_in_the_budget():
    with cpu_budget('"<p>" * 40000'):
        assert parsers.first_paragraph("<p>" * 40000) == ""


@pytest.mark.parametrize("name", hostile.PIECES)
def test_the_first_paragraph_of_hostile_notes_at_the_feed_limit_is_read_in_the_budget(name):
    text = hostile.document(name, parsers.MAX_BYTES["feed"])
    with cpu_budget(name):
        parsers.first_paragraph(text)


@pytest.mark.parametrize("kind", CASES)
def test_each_kind_of_source_reads_hostile_documents_at_its_size_limit_in_the_budget(kind):
    content_type = "application/json" if kind in {"npm", "crates"} else "application/xml"
    # npm's and crates.io's documents are JSON (no HTML is read from them): one size test.
    names = ["repeated <p>"] if kind in {"npm", "crates"} else hostile.PIECES
    for name, body in fitted(kind, CASES[kind], names):
        assert len(body) <= parsers.MAX_BYTES[kind]
        with cpu_budget(f"{kind}, {name} ({len(body):,} bytes)"):
            read(kind, body, content_type)


def test_a_json_feed_with_hostile_html_at_its_limit_is_read_in_the_budget():
    for name, body in fitted("feed", json_feed):
        with cpu_budget(f"JSON Feed, {name}"):
            read("feed", body, "application/feed+json")


def test_json_nested_deeper_than_the_stack_is_unreadable_not_a_crash():
    body = b'{"versions": ' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}"
    with pytest.raises(parsers.NotReadable, match="RecursionError"):
        parsers.parse("npm", body, "application/json")


def test_a_hostile_source_read_by_the_task_stays_in_the_budget_and_its_releases_become_tips(
    remote, watch
):
    # The document (a JSON Feed whose post holds "<p>" * 40000), the same at the
    # feed limit, and a GitHub release whose notes are escaped "<p>"s.
    limit = parsers.MAX_BYTES["feed"]
    posts = [
        ("Release 2.4.0", "https://example.org/2.4", "2024-07-24T16:39:14Z", NOTES),
        ("Release 2.3.0", "https://example.org/2.3", "2024-07-23T16:39:14Z", "<p>" * 40000),
        ("Release 2.2.0", "https://example.org/2.2", "2024-07-22T16:39:14Z", "<p>" * 600_000),
    ]
    watch(
        "feed",
        remote.serve(
            "/feed.json", Route(formats.json_feed("News", posts), "application/feed+json")
        ),
    )
    notes = "<p>" * ((limit - 2000) // 9)
    watch(
        "github",
        remote.serve("/releases.atom", Route(github(notes), "application/atom+xml"), host=1),
    )
    assert all(len(route.body) <= limit for route in remote.routes.values())
    with time_machine.travel(NOW, tick=True), cpu_budget("the task"):
        assert "read-release-sources" in queue_due()
        run_queued()
    assert sorted(Tip.objects.values_list("version", flat=True)) == ["2.2.0", "2.3.0", "2.4.0"]
    assert Tip.objects.get(version="2.4.0").summary == (
        "We are excited to announce the release of PyTorch 2.4."
    )
