"""The article form at 1280 px (issue 44, item 16): one set of buttons, the workflow
bar's; the title, the summary, and the body beside its preview fill the first screen,
and what a writer rarely touches (search and social; the address, dates and status) is
folded away below them.

Measured in Chromium at 1280 x 800, before and after: the empty form was 3,826 px tall
and is 2,274 px; the first demo article's form was 7,133 px (its preview as tall as the
article) and is 3,523 px. The body's text box began 1,058 px down the new form and
1,085 px down the article's (below the first screen); now 519 px and 546 px."""

import pytest
from playwright.sync_api import expect

from news.models import Article

from .test_editing import log_in, screenshots_on_failure, unfold

pytestmark = pytest.mark.django_db(transaction=True)

SCREEN = {"width": 1280, "height": 800}
# Of the body and of its preview, at least this much shows on the first screen (254 px
# of the article's body does).
FIRST_SCREEN_SHARE = 240


def box(page, selector):
    return page.locator(selector).bounding_box()


def assert_writing_fills_the_first_screen(page):
    bottom = SCREEN["height"]
    for selector in ("#id_title", "#id_summary"):
        assert box(page, selector)["y"] + box(page, selector)["height"] <= bottom, selector
    for selector in ("#id_body", "#markdown-preview"):
        shown = box(page, selector)
        assert shown["y"] <= bottom - FIRST_SCREEN_SHARE, (selector, shown)
        assert shown["y"] + shown["height"] >= bottom, (selector, shown)  # to the screen's end


def assert_rarely_touched_is_folded(page):
    for selector in ("#id_slug", "#id_status", "#id_published_at_0", "#id_search_title"):
        expect(page.locator(selector)).to_be_hidden()


def test_a_new_articles_form_starts_with_what_a_writer_writes(new_page, site, artifacts):
    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "article-form-new", writer):
        writer.set_viewport_size(SCREEN)
        writer.goto(f"{site}/admin/news/article/add/")
        expect(writer.locator("#markdown-preview iframe")).to_be_visible()
        assert_writing_fills_the_first_screen(writer)
        assert_rarely_touched_is_folded(writer)
        assert writer.evaluate("document.documentElement.scrollHeight") < 2800  # was 3,826


def test_an_articles_form_starts_with_its_words(new_page, site, artifacts):
    article = Article.objects.published().order_by("pk").first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "article-form-change", editor):
        editor.set_viewport_size(SCREEN)
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        preview = editor.frame_locator("#markdown-preview iframe")
        expect(preview.locator("h1")).to_have_text(article.title)
        assert_writing_fills_the_first_screen(editor)
        assert_rarely_touched_is_folded(editor)
        assert editor.evaluate("document.documentElement.scrollHeight") < 4500  # was 7,133


def test_the_form_has_one_set_of_save_buttons_the_bars(new_page, site, artifacts):
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "article-form-buttons", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        expect(editor.locator(".workflow-bar__save")).to_have_count(1)
        django_buttons = "input[name=_save], input[name=_continue], input[name=_addanother]"
        expect(editor.locator(django_buttons)).to_have_count(0)
        # Deleting is still at the bottom, where Django puts it.
        expect(editor.locator(".submit-row .deletelink")).to_be_visible()


def test_a_folded_section_opens_and_what_is_typed_there_is_saved(new_page, site, artifacts):
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "article-form-folded", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        unfold(editor, "Search and social")
        editor.fill("#id_search_title", "A shorter title for search")
        editor.locator("#id_body").press("Control+s")  # the bar's save, from the keyboard
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
    article.refresh_from_db()
    assert article.search_title == "A shorter title for search"


def test_a_refused_field_in_a_folded_section_is_shown_open(new_page, site, artifacts):
    article = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "article-form-folded-error", editor):
        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        unfold(editor, "Address, dates and status")
        editor.fill("#id_slug", "not a slug!")
        editor.locator("#id_title").press("Control+s")
        expect(editor.locator(".error-summary")).to_be_visible()
        expect(editor.locator("#id_slug")).to_be_visible()
        expect(editor.locator("#id_slug")).to_have_value("not a slug!")


def test_typing_a_published_storys_title_names_that_story_under_the_title(
    new_page, site, artifacts
):
    published = Article.objects.published().order_by("pk").first()
    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "article-form-title-taken", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        writer.locator("#id_title").press_sequentially(published.title.upper())
        warning = writer.locator(".title-taken")
        expect(warning).to_contain_text("A story of this title exists")
        link = warning.get_by_role("link", name=published.title)
        expect(link).to_have_attribute("href", f"/admin/news/article/{published.pk}/change/")
        writer.locator("#id_title").fill(f"{published.title}, a week on")
        expect(warning).to_be_hidden()


def test_an_articles_own_title_is_no_duplicate_of_itself(new_page, site, artifacts):
    draft = Article.objects.drafts().first()
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "article-form-own-title", editor):
        editor.goto(f"{site}/admin/news/article/{draft.pk}/change/")
        title = editor.locator("#id_title")
        title.fill(draft.title + "!")
        title.fill(draft.title)
        # The check of the title as it is now answered, and named no story.
        warning = editor.locator(".title-taken")
        expect(warning).to_have_attribute("data-checked", draft.title)
        expect(warning).to_be_hidden()
