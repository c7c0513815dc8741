"""The writing desk in a real browser: the workflow bar at the top of the article form,
per role, with messages that say what happened and where, unpublishing that asks first,
and an error summary that takes the reader to each problem. A screenshot of the desk at
1280 px goes to docs/."""

import re

import pytest
from playwright.sync_api import expect

from news.models import Article

from .checks import axe_violations
from .test_editing import log_in, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)
TITLE = "Zig 0.15 Ships a New Build Cache"


def bar(page):
    return page.locator(".workflow-bar")


def test_a_story_goes_through_the_bar_from_draft_to_unpublished(
    new_page, site, artifacts, axe_source, docs_screenshots
):
    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "desk-writer", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        expect(bar(writer)).to_contain_text("New draft")
        expect(writer.locator("#id_title")).to_be_focused()
        expect(bar(writer).locator("button")).to_have_text(["Save draft", "Submit for review"])
        writer.fill("#id_title", TITLE)
        writer.fill("#id_body", "## What happened\n\nZig 0.15 shipped.")
        writer.fill("#id_tags", "zig, release")
        writer.fill("#id_event_date", "2026-11-20")
        writer.fill("#id_sources-0-title", "Release notes")
        writer.fill("#id_sources-0-publisher", "Zig")
        bar(writer).get_by_role("button", name="Submit for review").click()
        expect(writer.locator(".messagelist")).to_contain_text(f"Submitted “{TITLE}” for review")
        expect(bar(writer)).to_contain_text("Ready for review")
    article = Article.objects.get(title=TITLE)

    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "desk-editor", editor):
        editor.set_viewport_size({"width": 1280, "height": 900})
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        actions = ".workflow-bar__actions > button, .workflow-bar__actions > details > summary"
        expect(editor.locator(actions)).to_have_text(
            ["Save changes", "Publish and send", "Publish", "Schedule…", "Send back with a note…"]
        )
        # The bar stays in view down the long form.
        editor.locator("#sources-group").scroll_into_view_if_needed()
        assert editor.evaluate("window.scrollY") > 500
        box = bar(editor).bounding_box()
        assert 0 <= box["y"] <= 5
        # The bar (Django's own widgets below have axe findings of their own).
        assert axe_violations(editor, axe_source, within=".workflow-bar") == []
        editor.screenshot(path=docs_screenshots / "desk-1280.png")

        bar(editor).get_by_text("Send back with a note…").click()
        editor.fill("#workflow-send-back-note", "Say which platforms got the cache.")
        bar(editor).get_by_role("button", name="Send back", exact=True).click()
        expect(editor.locator(".messagelist")).to_contain_text(
            f"Sent “{TITLE}” back to writer with your note."
        )
        expect(bar(editor)).to_contain_text("Draft")

        bar(editor).get_by_role("button", name="Publish and send").click()
        # The writer's tags are no topics yet: the editor is asked, nothing is lost.
        expect(bar(editor)).to_contain_text("New topics:")
        expect(editor.locator("#id_tags")).to_have_value(re.compile("zig"))
        bar(editor).get_by_role("button", name="Create the topics, then publish and send").click()
        expect(editor.locator(".messagelist")).to_contain_text(
            f"Published “{TITLE}”: {site}{article.get_absolute_url()}"
        )
        expect(bar(editor)).to_contain_text("Published")
        expect(bar(editor).get_by_role("link", name="View on the site")).to_have_attribute(
            "href", article.get_absolute_url()
        )

        # Unpublishing asks first, saying what follows.
        confirm = bar(editor).get_by_role("button", name="Unpublish it")
        expect(confirm).to_be_hidden()
        bar(editor).get_by_text("Unpublish…").click()
        expect(bar(editor).locator(".workflow-bar__panel")).to_contain_text("stops answering")
        confirm.click()
        expect(editor.locator(".messagelist")).to_contain_text(f"Unpublished “{TITLE}”:")
    article.refresh_from_db()
    assert article.status == Article.Status.DRAFT

    # The writer learns of it all in the admin, with no mail server needed.
    with screenshots_on_failure(artifacts, "desk-writer-notes", writer):
        writer.goto(f"{site}/admin/")
        for_you = writer.locator("section[aria-labelledby=queue-for-you]")
        expect(for_you.locator("h2")).to_have_text("For you (3 new)")
        expect(for_you).to_contain_text("Sent back by editor: “Say which platforms got the cache.”")
        for_you.get_by_role("link", name=TITLE).first.click()
        lines = writer.locator(".conversation__line--new")
        expect(lines).to_have_count(3)
        expect(lines.first).to_contain_text("Say which platforms got the cache.")
        writer.goto(f"{site}/admin/")
        expect(writer.locator("section[aria-labelledby=queue-for-you]")).to_contain_text(
            "Nothing new for you"
        )


def test_the_error_summary_takes_the_editor_to_each_problem(new_page, site, artifacts):
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "desk-errors", editor):
        editor.set_viewport_size({"width": 1280, "height": 900})
        editor.goto(f"{site}/admin/news/article/add/")
        editor.fill("#id_body", "## What happened\n\nSomething.")
        bar(editor).get_by_role("button", name="Save draft").click()
        summary = editor.locator(".error-summary")
        expect(summary).to_be_focused()
        expect(summary).to_contain_text("Title: This field is required.")
        summary.get_by_role("link", name="Title: This field is required.").click()
        expect(editor.locator("#id_title")).to_be_focused()
        box = editor.locator("#id_title").bounding_box()
        assert 0 < box["y"] < 900


def test_the_sources_to_fix_table_fits_at_1280_px(new_page, site, artifacts):
    from sources.models import SourceURL, State
    from tests.factories import ArticleFactory, SourceFactory

    long = "https://downloads.example.org/releases/2026/" + "very-long-segment/" * 8 + "notes.html"
    SourceFactory(article=ArticleFactory(title="Citing story"), url=long)
    SourceURL.objects.create(
        url=long, state=State.MOVED, last_status=301, failures=2,
        final_url=long.replace("downloads", "archive"),
    )  # fmt: skip
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "sources-to-fix", editor):
        editor.set_viewport_size({"width": 1280, "height": 900})
        editor.goto(f"{site}/admin/editorial/sourcetofix/")
        expect(editor.locator("h1")).to_have_text("Sources to fix")
        cited = editor.locator("#result_list th.column-articles")
        box = cited.bounding_box()
        assert box["x"] + box["width"] <= 1280
        assert editor.evaluate("document.documentElement.scrollWidth") <= 1280
        expect(editor.get_by_role("link", name="Citing story")).to_be_in_viewport()


def test_footnotes_and_the_table_of_contents_take_the_reader_there_and_back(
    new_page, site, artifacts, axe_source
):
    from tests.factories import ArticleFactory

    body = "\n\n".join(
        [f"## Part {n}\n\n" + "A paragraph of text. " * 60 for n in range(1, 5)]
        + ["It shipped on 3 May.[^1]", "[^1]: The release notes give 3 May, the blog 4 May."]
    )
    article = ArticleFactory(title="A long story", body=body)
    reader = new_page()
    with screenshots_on_failure(artifacts, "contents", reader):
        reader.set_viewport_size({"width": 1280, "height": 800})
        reader.goto(site + article.get_absolute_url())
        contents = reader.locator("nav.contents")
        expect(contents.locator("a")).to_have_text(["Part 1", "Part 2", "Part 3", "Part 4"])
        contents.get_by_role("link", name="Part 4").click()
        expect(reader.locator("#part-4")).to_be_in_viewport()
        reader.locator("a.footnote-ref").click()
        expect(reader.locator("#fn-1")).to_be_in_viewport()
        expect(reader.locator("#fn-1")).to_contain_text("the blog 4 May")
        reader.locator("a.footnote-backref").click()
        expect(reader.locator("#fnref-1")).to_be_in_viewport()
        assert axe_violations(reader, axe_source) == []


def test_counts_toolbar_and_shortcuts_while_writing(new_page, site, artifacts):
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "writing-aids", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        editor.fill("#id_title", "A" * 70)
        expect(editor.locator("#id_title-count")).to_have_text(
            "70 / 200 characters (search results show about the first 60)"
        )
        editor.fill("#id_summary", "S" * 510)
        expect(editor.locator("#id_summary-count")).to_have_text(
            "510 characters: 10 over the limit of 500"
        )
        editor.fill("#id_summary", "Short.")
        body = editor.locator("#id_body")
        body.fill("## What happened\n\nZig shipped " + "word " * 456)
        expect(editor.locator("#id_body-count")).to_have_text("461 words · 3 min read")

        body.fill("Zig shipped today.")
        body.evaluate("(el) => el.setSelectionRange(4, 11)")  # "shipped"
        body.press("Control+b")
        assert body.input_value() == "Zig **shipped** today."
        body.evaluate("(el) => el.setSelectionRange(0, 3)")  # "Zig"
        body.press("Control+k")
        editor.keyboard.type("https://ziglang.org")
        assert body.input_value() == "[Zig](https://ziglang.org) **shipped** today."
        editor.get_by_role("toolbar", name="Formatting").get_by_role(
            "button", name="Italic"
        ).click()
        assert "_italic text_" in body.input_value()
        body.fill("## What happened\n\n[Zig](https://ziglang.org) **shipped** today.")
        body.press("Control+s")
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
    article.refresh_from_db()
    assert article.body.endswith("[Zig](https://ziglang.org) **shipped** today.")
    assert article.title == "A" * 70


def test_the_dashboard_uses_the_width_of_the_screen(new_page, site, artifacts):
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "dashboard-columns", editor):
        editor.set_viewport_size({"width": 1280, "height": 900})
        editor.goto(f"{site}/admin/")
        queues = editor.locator(".dashboard > section")
        first, second, third = (queues.nth(n).bounding_box() for n in range(3))
        # For you, Ready for review, Scheduled next: side by side, most urgent first.
        assert first["y"] == second["y"] == third["y"]
        assert first["x"] < second["x"] < third["x"]
        assert third["x"] + third["width"] > 1000
        expect(queues.nth(0).locator("h2")).to_contain_text("For you")
        expect(queues.nth(1).locator("h2")).to_contain_text("Ready for review")
        expect(queues.nth(2).locator("h2")).to_contain_text("Scheduled next")
        assert editor.evaluate("document.documentElement.scrollWidth") <= 1280


def test_the_preview_lists_the_checks_before_publishing(new_page, site, artifacts):
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "checklist", editor):
        editor.set_viewport_size({"width": 1280, "height": 900})
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        preview = editor.frame_locator("#markdown-preview iframe")
        checklist = preview.locator("section.checklist")
        expect(checklist).to_contain_text("Before publishing")
        editor.fill("#id_summary", "A summary far too long for a search result. " * 5)
        editor.locator(".markdown-preview__refresh").click()
        summary = checklist.locator(".checklist__item", has_text="Summary")
        expect(summary).to_have_class("checklist__item checklist__item--warn")
        expect(summary).to_contain_text("search results show about the first 160")
        editor.fill("#id_summary", "Short and clear.")
        editor.locator(".markdown-preview__refresh").click()
        expect(summary).to_have_class("checklist__item checklist__item--ok")


def test_a_preview_link_opens_the_draft_outside_then_is_revoked(
    new_page, site, artifacts, settings
):
    settings.SKILLO_SITE_URL = site  # the link to copy is on the site's public address
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    outsider = new_page()
    with screenshots_on_failure(artifacts, "preview-link", editor, outsider):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        links = editor.locator("section.preview-links")
        links.locator("#preview-hours").select_option("72")
        links.get_by_role("button", name="Make a preview link").click()
        url = editor.locator(".messagelist a.preview-link").get_attribute("href")
        assert url.startswith(f"{site}/preview/")
        assert outsider.goto(url).status == 200
        expect(outsider.locator(".preview-banner")).to_contain_text("A preview, not published")
        expect(outsider.locator("main h1")).to_have_text(article.title)
        editor.locator("section.preview-links").get_by_role("button", name="Revoke").click()
        expect(editor.locator(".messagelist")).to_contain_text("revoked")
        assert outsider.goto(url).status == 410
        expect(outsider.locator("main h1")).to_have_text("This preview link has been withdrawn")


def test_an_invitation_is_accepted(new_page, site, artifacts, mailoutbox, settings):
    import re

    from tests.background_tasks import run_queued

    settings.SKILLO_SITE_URL = site  # the link in the mail is on the site's public address

    admin = log_in(new_page, site, "admin")
    guest = new_page()
    with screenshots_on_failure(artifacts, "invitation", admin, guest):
        admin.goto(f"{site}/admin/editorial/invitation/add/")
        admin.fill("#id_email", "linus@example.org")
        admin.fill("#id_name", "Linus")
        admin.select_option("#id_role", "Writers")
        admin.click("input[name=_save]")
        expect(admin.locator(".messagelist")).to_contain_text(
            "Invitation sent to linus@example.org as writer"
        )
        run_queued()
        (message,) = [m for m in mailoutbox if m.to == ["linus@example.org"]]
        link = re.search(r"(https?://\S+/join/\S+/)", message.body).group(1)
        guest.goto(link)
        expect(guest.locator("#id_username")).to_have_value("linus")
        guest.fill("#id_password1", "a-long-passphrase-2026")
        guest.fill("#id_password2", "a-long-passphrase-2026")
        guest.get_by_role("button", name="Join the newsroom").click()
        expect(guest.locator(".messagelist")).to_contain_text("you are in as writer")
        expect(guest.locator("#user-tools")).to_contain_text("Linus")


def test_one_lead_story_at_a_time(new_page, site, artifacts):
    from news.models import FrontPin

    from .test_images import choose

    current = FrontPin.objects.get(lead=True).article  # the demo's lead story
    newcomer = Article.objects.published().filter(front_pins__isnull=True).first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "one-lead", editor):
        editor.goto(f"{site}/admin/news/frontpin/add/")
        choose(editor, "id_article", newcomer.title[:30])
        editor.check("#id_lead")
        editor.click("input[name=_save]")
        # Asked first: nothing changes until the editor says so.
        expect(editor.locator(".errorlist")).to_contain_text(
            f"“{current.title}” is the lead story now"
        )
        assert FrontPin.objects.filter(lead=True).get().article == current
        editor.check("#id_replace_lead")
        editor.click("input[name=_save]")
        expect(editor.locator(".messagelist")).to_contain_text("was added successfully")
        rows = editor.locator("#result_list tbody tr")
        expect(rows.filter(has_text=newcomer.title[:30])).to_contain_text("The lead story")
        expect(rows.filter(has_text=current.title[:30])).to_contain_text("A feature")
    assert FrontPin.objects.filter(lead=True).get().article == newcomer
