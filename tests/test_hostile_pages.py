"""Hostile pages read by the link cards (embeds) and the source checks (sources): each
document at the size those read, built to make a backtracking regular expression or a
naive parser take minutes, is read within a CPU budget of seconds."""

import pytest

from embeds import fetch
from sources.checker import Politeness, says_not_found

from . import hostile
from .cpu_budget import cpu_budget


@pytest.mark.parametrize("name", hostile.PIECES)
def test_a_hostile_page_head_is_read_for_its_card_in_the_budget(name):
    body = hostile.document(name, fetch.PAGE_LIMIT).encode()
    with cpu_budget(name):
        fetch.read_head(body, "text/html; charset=utf-8")


@pytest.mark.parametrize("name", hostile.PIECES)
def test_a_hostile_oembed_player_is_read_in_the_budget(name, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    html = hostile.document(name, fetch.OEMBED_LIMIT)
    with cpu_budget(name):
        assert fetch.player({"html": html}, "https://video.example/") == ""


@pytest.mark.parametrize("name", hostile.PIECES)
def test_a_hostile_page_is_checked_for_a_soft_404_in_the_budget(name):
    body = hostile.document(name, Politeness().max_bytes).encode()
    with cpu_budget(name):
        says_not_found(body)


def test_a_page_with_a_stray_marked_section_still_gives_its_title_and_description():
    page = (
        b"<html><head><title>A post</title><![ stray ]>"
        b'<meta property="og:description" content="Words"></head><body></body></html>'
    )
    head = fetch.read_head(page, "text/html")
    assert (head.title, head.meta.get("og:description")) == ("A post", "Words")


def test_a_page_whose_title_says_not_found_is_a_soft_404():
    assert says_not_found(b"<html><head><title>Page Not Found | Site</title></head></html>")
    assert not says_not_found(b"<html><head><title>Found it</title></head></html>")
