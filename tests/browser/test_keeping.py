"""No lost work, in a real browser: text typed and never saved survives a closed tab;
two editors on one article see each other."""

from datetime import datetime, timedelta

import pytest
import time_machine
from playwright.sync_api import expect

from editorial.models import Presence
from news.models import Article

from .test_editing import log_in, save_article, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)


def test_text_typed_before_the_tab_closed_is_offered_back(new_page, site, artifacts):
    article = Article.objects.drafts().get()
    editor = log_in(new_page, site, "editor")
    url = f"{site}/admin/news/article/{article.pk}/change/"
    with screenshots_on_failure(artifacts, "autosave", editor):
        editor.goto(url)
        editor.fill("#id_body", article.body + "\n\nA paragraph typed and never saved.")
        expect(editor.locator(".keeping__status")).to_contain_text("was kept at", timeout=10000)
        editor.context.close()  # the tab (and the browser) goes away without saving

    again = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "autosave-back", again):
        again.goto(url)
        expect(again.locator(".keeping__restore")).to_contain_text("text you did not save")
        assert "never saved" not in again.locator("#id_body").input_value()
        again.click(".keeping__use")
        assert (
            again.locator("#id_body").input_value().endswith("A paragraph typed and never saved.")
        )
        save_article(again)
        expect(again.locator(".messagelist")).to_contain_text("was changed successfully")
    assert Article.objects.get(pk=article.pk).body.endswith("A paragraph typed and never saved.")


def test_two_editors_see_each_other(new_page, site, artifacts):
    article = Article.objects.drafts().get()
    url = f"{site}/admin/news/article/{article.pk}/change/"
    editor = log_in(new_page, site, "editor")
    admin = log_in(new_page, site, "admin")
    with screenshots_on_failure(artifacts, "presence", editor, admin):
        editor.goto(url)
        expect(editor.locator(".keeping__others")).to_be_hidden()
        admin.goto(url)
        expect(admin.locator(".keeping__others")).to_contain_text(
            "editor has had this article open since"
        )
        # The first editor's page learns of the second at its next heartbeat.
        expect(editor.locator(".keeping__others")).to_contain_text(
            "admin has had this article open since", timeout=25000
        )
        # The second closes their tab: it says so as it closes, and the first's banner
        # goes at its next heartbeat (10 s); a tab that could not say so is forgotten
        # after 25 s (tests/test_keeping.py), so within 30 s whatever happens.
        admin.close(run_before_unload=True)
        expect(editor.locator(".keeping__others")).to_be_hidden(timeout=15000)


def both_on_the_draft(new_page, site, paused=False):
    """The writer, then the editor, on the demo's draft; the editor's page sees the
    writer. ``paused``: both pages run on clocks the test moves (Playwright's), so the
    writer's page sends no heartbeat but its first: one on its real clock could be on
    its way as the test takes the writer offline, and land after the test read the
    writer's last one (the writer then stayed on the editor's form past 30 s)."""
    article = Article.objects.drafts().get()
    url = f"{site}/admin/news/article/{article.pk}/change/"
    writer = log_in(new_page, site, "writer")
    editor = log_in(new_page, site, "editor")
    if paused:
        for page in (writer, editor):
            page.clock.install()
            page.clock.pause_at(datetime.now() + timedelta(seconds=1))
    with writer.expect_response("**/presence/"):
        writer.goto(url)
    editor.goto(url)
    expect(editor.locator(".keeping__others")).to_contain_text(
        "writer has had this article open since"
    )
    return writer, editor


def test_a_closed_browser_leaves_the_other_editors_form(new_page, site, artifacts):
    writer, editor = both_on_the_draft(new_page, site)
    with screenshots_on_failure(artifacts, "presence-closed", editor):
        writer.context.close()  # the writer's browser goes, all its tabs with it
        # It says so as it closes (a beacon): the editor's page learns it at its next
        # heartbeat, within 10 s (the writer's 25 s had not run out).
        expect(editor.locator(".keeping__others")).to_be_hidden(timeout=15000)


def test_a_silent_writer_leaves_the_form_30_s_after_their_last_heartbeat(new_page, site, artifacts):
    writer, editor = both_on_the_draft(new_page, site, paused=True)
    with screenshots_on_failure(artifacts, "presence-expiry", editor):
        # The writer's laptop goes to sleep: no heartbeat, no beacon.
        writer.context.set_offline(True)
        last = Presence.objects.get(user__username="writer").seen_at
        # The server's clock and the editor's page's move together, from 1 s after the
        # writer's last heartbeat; the editor's page asks every 10 s.
        with time_machine.travel(last + timedelta(seconds=1), tick=False) as clock:
            with editor.expect_response("**/presence/"):
                editor.reload()
            expect(editor.locator(".keeping__others")).to_contain_text("writer has had")
            for _ in range(2):
                clock.shift(10)
                with editor.expect_response("**/presence/"):
                    editor.clock.run_for(10_000)
                # 11 s and 21 s after: the server still counts the writer in.
                expect(editor.locator(".keeping__others")).to_contain_text("writer has had")
            clock.shift(9)
            editor.clock.run_for(9_000)  # 30 s after, between two heartbeats
            expect(editor.locator(".keeping__others")).to_be_hidden(timeout=1000)


def test_the_form_drops_a_silent_writer_even_when_its_own_heartbeats_fail(
    new_page, site, artifacts
):
    writer, editor = both_on_the_draft(new_page, site, paused=True)
    with screenshots_on_failure(artifacts, "presence-unreachable", editor):
        writer.context.set_offline(True)
        # The editor's page cannot reach the server any more (a restart, a lost
        # connection): it cannot hear that the writer left, and must not say they stay.
        editor.route("**/presence/", lambda route: route.fulfill(status=503))
        editor.clock.run_for(30_000)
        expect(editor.locator(".keeping__others")).to_be_hidden(timeout=1000)
