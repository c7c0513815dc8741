"""The editorial workflow in a real browser: writer, editor, reader; and two editors at once."""

from contextlib import contextmanager

import pytest
import reversion
from playwright.sync_api import expect
from reversion.models import Version

from news.models import Article
from tests.waiting import until

pytestmark = pytest.mark.django_db(transaction=True)

TITLE = "Browsers Ship a Test Release"
RELATED = "PyTorch 2.1 and Automatic Dynamic Shapes"


def log_in(new_page, site, username):
    page = new_page()
    page.goto(f"{site}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", username)
    page.click("input[type=submit]")
    expect(page.locator("#user-tools")).to_be_visible()
    return page


def unfold(page, name):
    """Open a folded part of the article form (a <details>: the notes, "Search and
    social", "Address, dates and status") by its summary, as an editor would."""
    details = page.locator("details", has=page.locator("summary", has_text=name)).first
    summary = details.locator("summary").first

    def opened():
        # A click while the page is still settling can be lost (a fresh clone's run saw
        # the section stay folded): clicked again until it is open.
        if not details.evaluate("d => d.open"):
            summary.click()
        return details.evaluate("d => d.open")

    until(opened, f"the {name!r} section of the article form open", 30)


def save_article(page):
    """The workflow bar's save button: the article form's only one."""
    page.click(".workflow-bar__save")


@contextmanager
def screenshots_on_failure(artifacts, name, *pages):
    try:
        yield
    except BaseException:
        for index, page in enumerate(pages):
            page.screenshot(path=artifacts / f"failure-{name}-{index}.png", full_page=True)
        raise


def test_writer_drafts_editor_publishes_reader_follows(new_page, site, artifacts):
    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "writer", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        writer.fill("#id_title", TITLE)
        # The slug is filled by the server's own rule as the title is typed.
        expect(writer.locator("#id_slug")).to_have_value("browsers-ship-a-test-release")
        writer.fill("#id_summary", "A release made only for this test.")
        writer.fill("#id_body", "## What happened\n\nThe *test* release shipped.")
        writer.fill("#id_tags", "browsers, testing")
        writer.fill("#id_event_date", "2026-11-02")
        writer.fill("#id_sources-0-title", "Release notes")
        writer.fill("#id_sources-0-publisher", "Browser Project")
        writer.fill("#id_sources-0-url", "https://example.org/notes")
        writer.click("text=Add another Source")
        writer.fill("#id_sources-1-title", "Announcement")
        writer.fill("#id_sources-1-publisher", "Browser Blog")
        writer.fill("#id_related_links-0-title", RELATED)

        # The preview pane renders the body as the public page will.
        # The preview beside the body: the article in the site's own stylesheet.
        preview = writer.frame_locator("#markdown-preview iframe")
        expect(preview.locator("h2#what-happened")).to_have_text("What happened")
        expect(preview.locator("em")).to_have_text("test")

        # A writer is never offered "Published": they hand the article to the editors.
        unfold(writer, "Address, dates and status")
        expect(writer.locator("#id_status option[value=published]")).to_have_count(0)
        writer.select_option("#id_status", "review")
        unfold(writer, "Notes between writer and editors")
        writer.fill("#id_workflow_note", "Ready for a look.")
        save_article(writer)
        expect(writer.locator(".messagelist")).to_contain_text(f"Submitted “{TITLE}” for review")
    article = Article.objects.get(title=TITLE)
    assert article.status == "review" and article.sources.count() == 2

    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "editor", editor):
        editor.goto(f"{site}/admin/news/article/")
        editor.check(f"input[name=_selected_action][value='{article.pk}']")
        editor.select_option("select[name=action]", "publish_selected")
        editor.click("button[name=index]")
        expect(editor.locator(".messagelist")).to_contain_text("Published 1 article")

    reader = new_page()
    with screenshots_on_failure(artifacts, "reader", reader):
        reader.goto(site + "/")
        reader.click(f"main .card-title a:has-text('{TITLE}')")
        expect(reader.locator("main h1")).to_have_text(TITLE)
        reader.screenshot(path=artifacts / "published-article.png", full_page=True)
        expect(reader.locator(".sources li")).to_have_count(2)
        reader.click("main .tags a:has-text('browsers')")
        expect(reader.locator("main h1")).to_contain_text("browsers")
        reader.go_back()
        reader.click(f".related a:has-text('{RELATED}')")
        expect(reader.locator("main h1")).to_have_text(RELATED)


def test_second_editor_gets_the_conflict_and_keeps_their_text(new_page, site, artifacts):
    article = Article.objects.get(title=RELATED)
    url = f"{site}/admin/news/article/{article.pk}/change/"
    first, second = log_in(new_page, site, "editor"), log_in(new_page, site, "admin")
    with screenshots_on_failure(artifacts, "conflict", first, second):
        first.goto(url)
        second.goto(url)
        first.fill("#id_summary", "Saved first.")
        save_article(first)
        expect(first.locator(".messagelist")).to_contain_text("was changed successfully")

        second.fill("#id_summary", "Typed second, must not be lost.")
        save_article(second)
        expect(second.locator(".error-summary")).to_be_visible()
        expect(second.locator("#article_form")).to_contain_text("editor saved this article at")
        expect(second.locator("#id_summary")).to_have_value("Typed second, must not be lost.")
        second.screenshot(path=artifacts / "conflict-admin-form.png", full_page=True)
    article.refresh_from_db()
    assert article.summary == "Saved first."


def test_admin_pages_run_under_the_content_security_policy(new_page, site, artifacts):
    """Every admin page the editors use loads with no CSP violation reported."""
    page = log_in(new_page, site, "admin")
    violations = []
    page.on(
        "console",
        lambda message: (
            violations.append((page.url, message.text))
            if "Content Security Policy" in message.text
            else None
        ),
    )
    article = Article.objects.get(title=RELATED)
    # Two more revisions, so that the history offers comparing them and the compare
    # page has something to show.
    for summary in ("Revised once.", "Revised twice."):
        with reversion.create_revision():
            article.summary = summary
            article.save()
    older, newer = Version.objects.get_for_object(article).order_by("pk")[:2]
    for path in (
        f"/admin/news/article/{article.pk}/history/compare/"
        f"?version_id1={older.pk}&version_id2={newer.pk}",
        f"/admin/news/article/{article.pk}/history/{older.pk}/",
        "/admin/",
        "/admin/news/article/",
        "/admin/news/article/add/",
        f"/admin/news/article/{article.pk}/change/",
        f"/admin/news/article/{article.pk}/history/",
        "/admin/news/article/wanted/",
        "/admin/editorial/factsdue/",
    ):
        # Until the load event: the page's scripts and styles have run by then. Not
        # "networkidle", which Playwright discourages: CI once waited 30 s for it.
        page.goto(site + path, wait_until="load")
        expect(page.locator("#content")).to_be_visible()
    # The preview pane is filled by the admin's own script: scripts do run.
    page.goto(f"{site}/admin/news/article/{article.pk}/change/")
    preview = page.frame_locator("#markdown-preview iframe")
    expect(preview.locator(".article-body h2").first).to_be_visible()
    assert violations == []
