"""Members in a real browser (issue 47): sign in from the link a real SMTP server
received, save a story from its cached page (the control arrives from /account/ in a
request of its own), find it in the portal, sign out everywhere; a reader who never
signed in makes no such request; axe finds nothing on the sign-in page or the portal."""

import re

import pytest
from playwright.sync_api import expect

from members.models import SavedStory
from news.models import Article

from ..background_tasks import run_queued
from ..conftest import SHARED_SLUG
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .checks import axe_violations, overflow
from .test_editing import screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)

LINK = re.compile(r"https?://\S+?(/account/link/\S+/)")
ARTICLE = f"/articles/{SHARED_SLUG}/"


def check_page(page, axe_source):
    assert overflow(page) <= 0
    assert axe_violations(page, axe_source) == []


def test_a_member_signs_in_from_the_mail_saves_a_story_and_signs_out_everywhere(
    new_page,
    site,
    artifacts,
    axe_source,
    mail_server,  # noqa: F811
):
    page = new_page()
    with screenshots_on_failure(artifacts, "members", page):
        page.goto(f"{site}/account/")
        check_page(page, axe_source)
        page.fill("input[name=email]", "reader@example.org")
        page.get_by_role("button", name="Send me a link").click()
        expect(page.locator("h1")).to_have_text("Check your inbox")

        run_queued()
        message = mail_server.to("reader@example.org")[-1]
        body = message.get_payload()[0].get_payload(decode=True).decode()
        (link,) = LINK.findall(body)
        page.goto(site + link)
        check_page(page, axe_source)
        page.get_by_role("button", name="Sign me in").click()
        expect(page.locator("h1")).to_have_text("Your account")
        check_page(page, axe_source)

        page.goto(site + ARTICLE)
        save = page.get_by_role("button", name="Save for later")
        save.click()
        expect(page.locator(".member-status")).to_have_text("Saved to your account.")
        expect(page.get_by_role("button", name="Saved: remove from my list")).to_be_visible()
        title = Article.objects.get(slug=SHARED_SLUG).title
        assert SavedStory.objects.get().article.slug == SHARED_SLUG

        page.goto(f"{site}/account/")
        expect(page.locator(".saved-stories")).to_contain_text(title)
        check_page(page, axe_source)
        page.get_by_role("button", name="Sign out everywhere").click()
        expect(page.locator("h1")).to_have_text("You are signed out")
        page.goto(site + ARTICLE)
        expect(page.get_by_role("link", name="Sign in to save stories for later")).to_be_visible()


def test_a_reader_who_never_signed_in_asks_nothing_of_the_account(new_page, site):
    page = new_page()
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(site + ARTICLE)
    expect(page.get_by_role("link", name="Sign in to save stories for later")).to_be_visible()
    assert not [url for url in asked if "/account/" in url]
