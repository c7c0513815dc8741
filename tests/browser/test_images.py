"""Pictures in a real browser: an editor uploads one, describes it, sets its focal point
and makes it an article's lead image with an author; readers on a phone and a desktop
get the right rendition, with no layout shift, and a byline to the author's page."""

import re

import pytest
from playwright.sync_api import expect

from images.models import Image
from news.models import Article

from ..background_tasks import run_queued
from ..pictures import picture
from .test_editing import log_in, save_article, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)

ALT = "A red marker on a grey gradient"
LAYOUT_SHIFT = """() => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) if (!entry.hadRecentInput) total += entry.value;
  }).observe({type: "layout-shift", buffered: true});
  setTimeout(() => resolve(total), 800);
})"""


def choose(page, select_id, text):
    """Pick ``text`` in one of the admin's autocomplete (select2) fields."""
    page.locator(f"#{select_id} + .select2 .select2-selection").click()
    page.locator(".select2-search__field").fill(text)
    page.locator(".select2-results__option", has_text=text).first.click()


def test_editor_adds_a_lead_image_and_readers_see_it_on_phone_and_desktop(
    new_page,
    browser,
    site,
    artifacts,
    axe_source,
):
    article = (
        Article.objects.published()
        .filter(lead_image__isnull=True, authorships__isnull=True)
        .exclude(slug__startswith="pytorch-2-4")
        .order_by("slug")
        .first()
    )
    assert article is not None, "the demo content has no article without picture and byline"
    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "image-editor", editor):
        editor.goto(f"{site}/admin/images/image/add/")
        editor.set_input_files(
            "#id_upload",
            files=[{"name": "marker.jpg", "mimeType": "image/jpeg",
                    "buffer": picture(1600, 900, dot=(0.8, 0.3))}],
        )  # fmt: skip
        editor.fill("#id_alt_text", ALT)
        editor.fill("#id_credit", "Photo: Skillo test desk")
        editor.select_option("#id_licence", "own")
        editor.click("input[name=_continue]")
        expect(editor.locator(".messagelist")).to_contain_text("was added successfully")
        # The upload answered before its renditions were made: the picture shown is the
        # original, with the state beside it; the worker then makes them.
        expect(editor.locator(".messagelist")).to_contain_text("renditions are being made")
        expect(editor.locator(".focal-picker img")).to_have_attribute(
            "src", re.compile("/original/$")
        )
        assert run_queued() >= 1
        editor.reload()
        expect(editor.locator(".focal-picker img")).to_have_attribute(
            "src", re.compile("-w800.jpg$")
        )

        # The focal point: a click on the picture where the marker is.
        picture_box = editor.locator(".focal-picker img")
        box = picture_box.bounding_box()
        picture_box.click(position={"x": box["width"] * 0.8, "y": box["height"] * 0.3})
        expect(editor.locator("#id_focal_x")).to_have_value("0.80")
        expect(editor.locator("#id_focal_y")).to_have_value("0.30")
        editor.click("input[name=_save]")
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
        image = Image.objects.get(alt_text=ALT)
        assert (round(image.focal_x, 2), round(image.focal_y, 2)) == (0.8, 0.3)

        editor.goto(f"{site}/admin/news/article/{article.pk}/change/")
        choose(editor, "id_lead_image", ALT)
        choose(editor, "id_authorships-0-author", "Skillo demo editor")
        save_article(editor)
        expect(editor.locator(".messagelist")).to_contain_text("was changed successfully")
    article.refresh_from_db()
    assert article.lead_image == image and article.byline[0].name == "Skillo demo editor"

    for name, viewport, scale, rendition in [
        ("phone", {"width": 390, "height": 844}, 3, "-w1200.avif"),
        ("desktop", {"width": 1280, "height": 1000}, 1, "-w800.avif"),
    ]:
        context = browser.new_context(viewport=viewport, device_scale_factor=scale)
        reader = context.new_page()
        try:
            with screenshots_on_failure(artifacts, f"image-{name}", reader):
                reader.goto(site + article.get_absolute_url())
                lead = reader.locator(".figure--lead img")
                expect(lead).to_have_attribute("alt", ALT)
                reader.wait_for_function("document.querySelector('.figure--lead img').complete")
                assert (
                    reader.evaluate("document.querySelector('.figure--lead img').naturalWidth") > 0
                )
                assert rendition in lead.evaluate("img => img.currentSrc"), name
                # Drawn across the column, in its own shape, and nothing moved while it
                # loaded.
                box = lead.bounding_box()
                assert abs(box["width"] / box["height"] - 1600 / 900) < 0.02, box
                assert reader.evaluate(LAYOUT_SHIFT) == 0, name
                reader.screenshot(path=artifacts / f"lead-image-{name}.png")

                reader.evaluate(axe_source)
                result = reader.evaluate(
                    "async () => await axe.run(document, {resultTypes: ['violations']})"
                )
                assert [v["id"] for v in result["violations"]] == [], name

                reader.click(".byline a:has-text('Skillo demo editor')")
                expect(reader.locator("main h1")).to_contain_text("Skillo demo editor")
                expect(reader.locator("main")).to_contain_text(article.title)
        finally:
            context.close()
