"""Members in a real browser (issue 47): sign in from the link a real SMTP server
received, save a story from its cached page (the control arrives from /account/ in a
request of its own), find it in the portal, sign out everywhere; a reader who never
signed in makes no such request; axe finds nothing on the sign-in page or the portal."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from members import comments
from members.models import Comment, Member, SavedStory
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
        page.fill("input[name=email]", "visitor@example.org")
        page.get_by_role("button", name="Send me a link").click()
        expect(page.locator("h1")).to_have_text("Check your inbox")

        run_queued()
        message = mail_server.to("visitor@example.org")[-1]
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
        assert (
            SavedStory.objects.get(member__email="visitor@example.org").article.slug == SHARED_SLUG
        )

        page.goto(f"{site}/account/")
        expect(page.locator(".saved-stories")).to_contain_text(title)
        check_page(page, axe_source)
        page.get_by_role("button", name="Sign out everywhere").click()
        expect(page.locator("h1")).to_have_text("You are signed out")
        page.goto(site + ARTICLE)
        expect(
            page.get_by_role("link", name="Sign in to save stories for later and to comment")
        ).to_be_visible()


def test_a_reader_who_never_signed_in_asks_nothing_of_the_account(new_page, site):
    page = new_page()
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(site + ARTICLE)
    expect(
        page.get_by_role("link", name="Sign in to save stories for later and to comment")
    ).to_be_visible()
    assert not [url for url in asked if "/account/" in url]


def follow_the_mailed_link(page, site, mail_server, email):  # noqa: F811
    """From the sign-in form on ``page``: ask for a link, open it, sign in."""
    page.fill("input[name=email]", email)
    page.get_by_role("button", name="Send me a link").click()
    expect(page.locator("h1")).to_have_text("Check your inbox")
    run_queued()
    message = mail_server.to(email)[-1]
    body = message.get_payload()[0].get_payload(decode=True).decode()
    (link,) = LINK.findall(body)
    page.goto(site + link)
    page.get_by_role("button", name="Sign me in").click()


def sign_in(page, site, mail_server, email):  # noqa: F811
    page.goto(f"{site}/account/")
    follow_the_mailed_link(page, site, mail_server, email)
    expect(page.locator("h1")).to_have_text("Your account")


def test_a_comment_is_posted_held_approved_shown_and_gone_when_its_author_is_blocked(
    new_page,
    site,
    artifacts,
    axe_source,
    settings,
    mail_server,  # noqa: F811
):
    settings.COMMENT_MIN_MEMBER_MINUTES = 0
    page = new_page()
    with screenshots_on_failure(artifacts, "comments", page):
        sign_in(page, site, mail_server, "visitor@example.org")
        page.goto(site + ARTICLE)
        page.get_by_label("Your comment").fill("A first thought.\n\nSee https://example.org/")
        page.get_by_role("button", name="Post comment").click()
        expect(page.locator(".comment-status")).to_have_text(
            "Thank you: your comment waits for a moderator."
        )
        assert axe_violations(page, axe_source, ".conversation") == []

        comments.moderate(
            Comment.objects.filter(member__email="visitor@example.org"), "approve", "", None
        )
        page.reload()
        shown = page.locator(".conversation .comment")
        expect(shown).to_contain_text("A first thought.")
        link = shown.get_by_role("link", name="https://example.org/")
        assert link.get_attribute("rel") == "nofollow ugc noopener noreferrer"
        page.get_by_role("button", name="Reply").click()
        page.get_by_label("Your reply").fill("And a reply.")
        page.get_by_role("button", name="Post reply").click()
        expect(page.locator(".conversation .replies")).to_contain_text("And a reply.")
        assert axe_violations(page, axe_source, ".conversation") == []

        comments.block(Member.objects.filter(email="visitor@example.org"), "test", None)
        reader = new_page()
        reader.goto(site + ARTICLE)
        # The story's page, with its conversation in it (none left: the story goes back
        # to its fediverse replies alone), without the blocked member's words.
        expect(reader.locator("article.article h1")).to_be_visible()
        expect(reader.locator(".conversation .comment")).to_have_count(0)
        expect(reader.locator("main")).not_to_contain_text("A first thought.")


def test_a_reader_signs_in_from_a_story_returns_to_it_and_learns_of_the_wait_before_writing(
    new_page,
    site,
    artifacts,
    axe_source,
    mail_server,  # noqa: F811
):
    page = new_page()
    with screenshots_on_failure(artifacts, "comments-new-member", page):
        page.goto(site + ARTICLE)
        page.get_by_role("link", name="Sign in to save stories for later and to comment").click()
        follow_the_mailed_link(page, site, mail_server, "newcomer@example.org")
        # Back on the story, signed in.
        expect(page).to_have_url(site + ARTICLE)
        expect(page.get_by_role("button", name="Save for later")).to_be_visible()
        # The wait is said above the box, before anything is written.
        member = Member.objects.get(email="newcomer@example.org")
        start = member.created_at + timedelta(minutes=10)
        wait = page.locator(".comment-form .comment-wait")
        expect(wait).to_have_text(
            "New members can comment 10 minutes after they first sign in: you can from "
            f"{timezone.localtime(start):%H:%M}."
        )
        assert wait.evaluate(
            "(note) => note.compareDocumentPosition(document.getElementById('comment-body'))"
            " & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        assert axe_violations(page, axe_source, ".conversation") == []
