"""The editorial calendar in a real browser: an editor drags a scheduled story to another
day, and moves one with the keyboard alone through its "Move…" form; each keeps its time
of day, and the page says what happened."""

from datetime import datetime, time, timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from news.models import Article

from ..factories import ArticleFactory
from .checks import axe_violations
from .test_editing import log_in, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)


def next_week():
    """Monday of next week, in the newsroom's time zone: every day of it is to come."""
    today = timezone.localdate()
    return today + timedelta(days=7 - today.weekday())


def at(day, hour=9, minute=30):
    return timezone.make_aware(datetime.combine(day, time(hour, minute)))


def test_an_editor_drags_a_story_and_moves_another_with_the_keyboard(
    new_page, site, artifacts, axe_source, docs_screenshots
):
    monday = next_week()
    dragged = ArticleFactory(title="Zig 0.15 ships", published_at=at(monday + timedelta(1)))
    typed = ArticleFactory(title="Rust 1.95 ships", published_at=at(monday + timedelta(2), 7, 0))
    year, week, _ = monday.isocalendar()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "calendar", editor):
        editor.goto(f"{site}/admin/")
        editor.get_by_role("link", name="This week in the calendar").click()
        expect(editor.locator(".calendar__grid caption")).to_be_visible()
        editor.get_by_role("link", name="Next week →").click()
        expect(editor.locator(f'td[data-day="{monday + timedelta(1):%Y-%m-%d}"]')).to_contain_text(
            "Zig 0.15 ships"
        )
        assert axe_violations(editor, axe_source, within=".calendar") == []
        editor.screenshot(path=docs_screenshots / "calendar-1280.png")

        thursday = monday + timedelta(3)
        story = editor.locator(".calendar__story", has_text="Zig 0.15 ships")
        story.drag_to(editor.locator(f'td[data-day="{thursday:%Y-%m-%d}"]'))
        expect(editor.locator(".messagelist")).to_contain_text(
            f"Moved “Zig 0.15 ships” to {thursday:%A %-d %B %Y}, 09:30"
        )
        expect(editor.locator(f'td[data-day="{thursday:%Y-%m-%d}"]')).to_contain_text(
            "Zig 0.15 ships"
        )
        dragged.refresh_from_db()
        assert dragged.published_at == at(thursday)

        friday = monday + timedelta(4)
        editor.locator(".calendar__story", has_text="Rust 1.95 ships").locator("summary").focus()
        editor.keyboard.press("Enter")
        editor.keyboard.press("Tab")
        day_field = editor.get_by_label("New day for “Rust 1.95 ships”")
        expect(day_field).to_be_focused()
        day_field.fill(f"{friday:%Y-%m-%d}")
        editor.keyboard.press("Enter")
        expect(editor.locator(".messagelist")).to_contain_text(
            f"Moved “Rust 1.95 ships” to {friday:%A %-d %B %Y}, 07:00"
        )
        typed.refresh_from_db()
        assert typed.published_at == at(friday, 7, 0)
        assert f"week={year}-W{week:02d}" in editor.url
        assert Article.objects.scheduled().count() >= 2
