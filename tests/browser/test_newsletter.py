"""The newsletter in a real browser, on a phone: sign up for chosen topics, confirm from
the e-mail a real SMTP server received, then pause from the preferences page the
welcome e-mail links to."""

import re

import pytest
from playwright.sync_api import expect

from newsletters.models import Subscriber

from ..background_tasks import run_queued
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .checks import axe_violations, overflow
from .test_editing import screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)

LINK = re.compile(r"https?://\S+?(/newsletter/\S+/)")


def check_page(page, axe_source):
    assert overflow(page) <= 0
    assert axe_violations(page, axe_source) == []


def test_a_reader_signs_up_confirms_and_pauses_on_a_phone(
    browser,
    site,
    artifacts,
    axe_source,
    mail_server,  # noqa: F811
):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        with screenshots_on_failure(artifacts, "newsletter", page):
            page.goto(f"{site}/newsletter/")
            check_page(page, axe_source)
            page.fill("input[name=email]", "reader@example.org")
            page.get_by_label("Only the topics and authors I choose").check()
            page.locator(".newsletter-choices summary").click()
            page.get_by_label("Rust", exact=True).check()
            page.get_by_label("A weekly digest").check()
            page.get_by_role("button", name="Subscribe").click()
            expect(page.locator("h1")).to_have_text("Check your inbox")
            reader = Subscriber.objects.get(email="reader@example.org")
            assert reader.state == Subscriber.State.PENDING

            run_queued()  # the worker: the confirmation (and the demo's own tasks)
            (message,) = mail_server.to("reader@example.org")
            body = message.get_payload()[0].get_payload(decode=True).decode()
            (confirm,) = LINK.findall(body)
            page.goto(site + confirm)
            check_page(page, axe_source)
            page.get_by_role("button", name="Yes, subscribe me").click()
            expect(page.locator("h1")).to_have_text("You are subscribed")
            expect(page.locator(".lede")).to_contain_text("a weekly digest")

            run_queued()  # the worker: the welcome, with the way back to these choices
            welcome = mail_server.to("reader@example.org")[-1]
            assert welcome["Subject"] == "Welcome to Skillo's newsletter"
            body = welcome.get_payload()[0].get_payload(decode=True).decode()
            preferences = [path for path in LINK.findall(body) if "/preferences/" in path]
            page.goto(site + preferences[0])
            check_page(page, axe_source)
            page.get_by_label("Pause: send me nothing until I come back here").check()
            page.get_by_role("button", name="Save").click()
            expect(page.locator(".form-saved")).to_contain_text("Saved")
            subscriber = Subscriber.objects.get(email="reader@example.org")
            assert subscriber.state == Subscriber.State.PAUSED
            page.screenshot(path=artifacts / "newsletter-preferences-phone.png", full_page=True)
    finally:
        context.close()


def test_a_reader_changes_their_choices_then_leaves_on_a_wide_dark_screen(
    browser, site, artifacts, axe_source
):
    from news.models import Tag
    from newsletters.links import preferences_url

    reader = Subscriber.objects.create(
        email="wide@example.org", state=Subscriber.State.ACTIVE, everything=False
    )
    reader.topics.set([Tag.objects.get(slug="rust")])
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page = context.new_page()
    try:
        with screenshots_on_failure(artifacts, "newsletter-preferences-wide", page):
            page.goto(site + LINK.search(preferences_url(reader))[1])
            check_page(page, axe_source)  # contrast checked in the dark scheme too
            expect(page.get_by_label("Rust", exact=True)).to_be_checked()
            page.get_by_label("Every story").check()
            page.get_by_label("A daily digest").check()
            page.get_by_label("Tell me about corrections").uncheck()
            page.get_by_role("button", name="Save").click()
            expect(page.locator(".form-saved")).to_contain_text("a daily digest")
            reader.refresh_from_db()
            assert (reader.everything, reader.frequency, reader.corrections) == (
                True,
                Subscriber.Frequency.DAILY,
                False,
            )
            page.screenshot(path=artifacts / "newsletter-preferences-wide-dark.png")

            page.get_by_role("link", name="Leave: send me nothing more").click()
            check_page(page, axe_source)
            reader.refresh_from_db()
            assert reader.state == Subscriber.State.ACTIVE  # a page, not yet a departure
            page.get_by_role("button", name="Unsubscribe").click()
            expect(page.locator("h1")).to_have_text("You will get no more e-mail")
            reader.refresh_from_db()
            assert reader.state == Subscriber.State.UNSUBSCRIBED
    finally:
        context.close()
