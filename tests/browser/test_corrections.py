"""Corrections and source fixes in a real browser: an editor marks a correction, a reader
sees it on the article, on /corrections/ and in the feed; an editor fixes a dead source
from "Sources to fix" and readers see its archived copy. Saves docs/corrected-article.png
(docs/newsroom.md shows it)."""

import pytest
from playwright.sync_api import expect

from news.models import Article, Correction, Source
from sources.models import SourceURL, State

from .test_editing import log_in, save_article, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)

NOTE = "An earlier version said PyTorch 2.4 dropped Python 3.8; it supports Python 3.8 to 3.12."
ARCHIVE = "https://web.archive.org/web/2024/https://pytorch.org/blog/pytorch2-4/"


def test_editor_corrects_reader_sees_it_editor_fixes_a_dead_source(
    new_page, site, artifacts, axe_source, docs_screenshots
):
    article = Article.objects.published().get(slug__startswith="pytorch-2-4")
    dead = "https://pytorch.org/blog/pytorch2-4/"
    Source.objects.create(article=article, position=1, title="Announcement", publisher="PyTorch",
                          url=dead)  # fmt: skip
    SourceURL.objects.create(url=dead, state=State.GONE, last_status=404, failures=2)

    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "correction-editor", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        editor.select_option("#id_change_kind", "correction")
        editor.fill("#id_change_note", NOTE)
        save_article(editor)
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
    assert Correction.objects.get().revision is not None

    with screenshots_on_failure(artifacts, "sources-editor", editor):
        editor.goto(f"{site}/admin/editorial/sourcetofix/")
        expect(editor.locator("#result_list")).to_contain_text(article.title)
        editor.check("input[name=_selected_action]")
        editor.select_option("select[name=action]", "archive")
        editor.click("button[name=index]")
        editor.fill("#id_url", ARCHIVE)
        editor.click("input[name=apply]")
        expect(editor.locator(".messagelist")).to_contain_text("archived copy")

    reader = new_page()
    with screenshots_on_failure(artifacts, "correction-reader", reader):
        reader.goto(site + article.get_absolute_url())
        notice = reader.locator(".notices--correction")
        expect(notice).to_contain_text(NOTE)
        expect(reader.locator(f'.sources a.archived[href="{ARCHIVE}"]')).to_be_visible()
        reader.evaluate(axe_source)
        result = reader.evaluate(
            "async () => await axe.run(document, {resultTypes: ['violations']})"
        )
        assert result["violations"] == []
        reader.set_viewport_size({"width": 900, "height": 1100})
        reader.screenshot(path=docs_screenshots / "corrected-article.png")

        notice.get_by_role("link", name="All corrections").click()
        expect(reader.locator("main h1")).to_have_text("Corrections")
        expect(reader.locator(".corrections-list")).to_contain_text(NOTE)
        reader.evaluate(axe_source)
        result = reader.evaluate(
            "async () => await axe.run(document, {resultTypes: ['violations']})"
        )
        assert result["violations"] == []

        feed = reader.request.get(f"{site}/corrections/feed/").text()
        assert NOTE in feed and f"Correction: {article.title}" in feed
