"""An embed card in a real browser: the reader's page makes no request to the linked
site until the reader clicks Play; then the player loads in the card, allowed by the
page's CSP for that site alone. The card passes axe."""

import pytest
from playwright.sync_api import expect

from ..background_tasks import run_queued
from ..embed_server import VIDEO_TITLE, EmbedServer
from ..factories import ArticleFactory
from .checks import axe_violations
from .test_editing import screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_video_card_loads_nothing_from_its_site_until_the_reader_clicks(
    new_page, site, artifacts, axe_source, settings, media_root, docs_screenshots
):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    with EmbedServer() as remote:
        article = ArticleFactory(
            title="The build cache, on video",
            body=f"Ada walked through it.\n\n{remote.base}/video/1\n\nWorth ten minutes.",
        )
        run_queued()
        fetched = len(remote.requests)
        reader = new_page()
        asked = []
        reader.on("request", lambda request: asked.append(request.url))
        with screenshots_on_failure(artifacts, "embed", reader):
            reader.goto(f"{site}{article.get_absolute_url()}")
            card = reader.locator("figure.embed")
            expect(card).to_contain_text(VIDEO_TITLE)
            expect(card.locator("img")).to_have_js_property("complete", True)
            assert [url for url in asked if url.startswith(remote.base)] == []
            assert len(remote.requests) == fetched
            assert axe_violations(reader, axe_source, within="figure.embed") == []
            card.screenshot(path=docs_screenshots / "embed-card.png")

            card.get_by_role("button", name=f"Play “{VIDEO_TITLE}” (loads LoopTube)").click()
            player = reader.frame_locator("iframe.embed__player")
            expect(player.locator("p")).to_have_text("Playing")
            assert any(url.startswith(f"{remote.base}/player/1") for url in asked)
