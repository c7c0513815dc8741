"""No lost work, in a real browser: text typed and never saved survives a closed tab;
two editors on one article see each other."""

import pytest
from playwright.sync_api import expect

from news.models import Article

from .test_editing import log_in, screenshots_on_failure

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
        again.click("input[name=_save]")
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
