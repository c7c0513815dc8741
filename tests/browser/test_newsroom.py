"""The newsroom in a real browser: a writer submits, the editors are told, an editor
sends it back with a note, the writer fixes it, the editor schedules it from the form
and it appears at its time; sources ordered by dragging and by buttons. Screenshots of
the dashboard, the change form with its preview and a revision compare go to docs/."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from news.models import Article
from tests.background_tasks import run_queued

from .test_editing import log_in, save_article, screenshots_on_failure, unfold

pytestmark = pytest.mark.django_db(transaction=True)
TITLE = "Zig 0.14 Ships Incremental Builds"


def test_submit_send_back_fix_schedule_appear(
    new_page, site, artifacts, mailoutbox, docs_screenshots
):
    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "newsroom-writer", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        writer.fill("#id_title", TITLE)
        writer.fill("#id_body", "## What happened\n\nZig 0.14 shipped.")
        writer.fill("#id_tags", "zig, release")
        writer.fill("#id_event_date", "2026-11-02")
        writer.fill("#id_sources-0-title", "Release notes")
        writer.fill("#id_sources-0-publisher", "Zig")
        unfold(writer, "Notes between writer and editors")
        writer.fill("#id_workflow_note", "First draft, please check the numbers.")
        writer.get_by_role("button", name="Submit for review").click()
        expect(writer.locator(".messagelist")).to_contain_text(f"Submitted “{TITLE}” for review")
    article = Article.objects.get(title=TITLE)
    run_queued()  # the worker sends the e-mails
    assert any(m.subject == f"[Skillo] Submitted for review: {TITLE}" for m in mailoutbox)

    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "newsroom-editor", editor):
        editor.set_viewport_size({"width": 1280, "height": 1100})
        editor.goto(f"{site}/admin/")
        queue = editor.locator("section[aria-labelledby=queue-review]")
        expect(queue).to_contain_text(TITLE)
        editor.screenshot(path=docs_screenshots / "dashboard.png", full_page=True)
        queue.get_by_role("link", name=TITLE).click()
        expect(editor.locator("#id_title")).to_have_value(TITLE)
        # The writer's note is new to the editor: the notes are open.
        expect(editor.locator("details.conversation")).to_have_attribute("open", "")
        editor.locator(".workflow-bar").get_by_text("Send back with a note…").click()
        editor.fill("#workflow-send-back-note", "Say which platforms got incremental builds.")
        editor.get_by_role("button", name="Send back", exact=True).click()
        expect(editor.locator(".messagelist")).to_contain_text(f"Sent “{TITLE}” back to writer")
    run_queued()  # the worker sends the e-mails
    assert any(
        m.subject == f"[Skillo] Sent back to the writer: {TITLE}" and m.to == ["writer@example.com"]
        for m in mailoutbox
    )

    with screenshots_on_failure(artifacts, "newsroom-writer-fix", writer):
        writer.goto(f"{site}/admin/news/article/{article.pk}/change/")
        writer.fill("#id_body", "## What happened\n\nZig 0.14 shipped incremental builds on Linux.")
        unfold(writer, "Notes between writer and editors")
        writer.fill("#id_workflow_note", "Added the platforms.")
        writer.get_by_role("button", name="Submit for review").click()
        expect(writer.locator(".messagelist")).to_contain_text(f"Submitted “{TITLE}” for review")

    reader = new_page()
    with screenshots_on_failure(artifacts, "newsroom-schedule", editor, reader):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        # The preview beside the body shows the article as readers will see it.
        preview = editor.frame_locator("#markdown-preview iframe")
        expect(preview.locator("h1")).to_have_text(TITLE)
        expect(preview.locator(".article-body")).to_contain_text("incremental builds on Linux")
        editor.screenshot(path=docs_screenshots / "change-form-preview.png")
        # Time for two saves (the first asks about new topics) before it goes out.
        when = timezone.localtime() + timedelta(seconds=20)
        unfold(editor, "Address, dates and status")
        editor.select_option("#id_status", "published")
        editor.fill("#id_published_at_0", when.date().isoformat())
        editor.fill("#id_published_at_1", when.strftime("%H:%M:%S"))
        save_article(editor)
        # The writer's tags are no topics yet: the editor confirms them, nothing is lost.
        expect(editor.locator(".workflow-bar__confirm")).to_contain_text("New topics: “zig”")
        expect(editor.locator("#id_published_at_1")).to_have_value(when.strftime("%H:%M:%S"))
        editor.get_by_role("button", name="Create the topics, then save").click()
        expect(editor.locator(".messagelist")).to_contain_text(f"“{TITLE}” is scheduled for")
        expect(editor.locator(".workflow-bar")).to_contain_text("Scheduled for")
        assert reader.goto(site + article.get_absolute_url()).status == 404
        reader.wait_for_timeout(max(0, (when - timezone.localtime()).total_seconds() * 1000) + 1500)
        assert reader.goto(site + article.get_absolute_url()).status == 200
        expect(reader.locator("main h1")).to_have_text(TITLE)

        # The history in words, and a compare that marks the changed words.
        editor.goto(f"{site}/admin/news/article/{article.pk}/history/")
        expect(editor.locator("#change-history")).to_contain_text("Sent back to the writer")
        editor.locator("input[name=version_id1]").nth(2).check()
        editor.locator("input[name=version_id2]").nth(1).check()
        editor.get_by_role("button", name="compare").click()
        expect(editor.locator(".prose-diff ins").first).to_be_visible()
        editor.screenshot(path=docs_screenshots / "revision-diff.png", full_page=True)


def test_sources_are_ordered_by_buttons_and_by_dragging(new_page, site, artifacts):
    article = Article.objects.published().filter(sources__isnull=False).distinct().first()
    article.sources.all().delete()
    for position, title in enumerate(["First", "Second", "Third"]):
        article.sources.create(position=position, title=title, publisher="P")
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "ordering", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        rows = editor.locator("#sources-group tbody tr.form-row.has_original")
        rows.nth(0).get_by_role("button", name="Move down").click()
        handle = rows.nth(2).locator(".inline-order__handle")
        handle.drag_to(rows.nth(0))
        save_article(editor)
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
    order = list(article.sources.order_by("position").values_list("title", flat=True))
    assert order == ["Third", "Second", "First"], order


def test_the_sources_table_fits_its_panel_at_1280_px(new_page, site):
    article = Article.objects.published().filter(sources__isnull=False).distinct().first()
    editor = log_in(new_page, site, "editor")
    editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
    url = editor.locator("#sources-group td.field-url input").first.bounding_box()
    group = editor.locator("#sources-group").bounding_box()
    assert url["x"] + url["width"] <= group["x"] + group["width"], (url, group)
    assert group["x"] + group["width"] <= 1280
