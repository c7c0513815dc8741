"""Pictures put into an article's text in a real browser: dropped onto the body, pasted
into it, or found in the library with the keyboard alone. The dialog asks for the alt
text (or "decorative") before anything is uploaded, keeps the words of a refused upload,
and puts the reference where the cursor was, as a paragraph of its own."""

import base64
import re

import pytest
from playwright.sync_api import expect

from images.models import Image

from ..factories import ImageFactory
from ..pictures import picture
from .test_editing import log_in, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)

# A file made in the page from bytes, then given to the body as a drop or a paste would.
GIVE = """([kind, name, data]) => {
  const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, {type: "image/png"}));
  const body = document.getElementById("id_body");
  const event = kind === "drop"
    ? new DragEvent("drop", {dataTransfer: transfer, bubbles: true, cancelable: true})
    : new ClipboardEvent("paste", {clipboardData: transfer, bubbles: true, cancelable: true});
  body.dispatchEvent(event);
  return event.defaultPrevented;
}"""


def give(page, kind, name, seed):
    data = base64.b64encode(picture(640, 360, format="PNG", seed=seed)).decode()
    return page.evaluate(GIVE, [kind, name, data])


def cursor_after(page, text):
    page.locator("#id_body").evaluate(
        "(body, text) => { const at = body.value.indexOf(text) + text.length;"
        " body.focus(); body.setSelectionRange(at, at); }",
        text,
    )


def test_a_dropped_picture_is_described_uploaded_and_placed_at_the_cursor(
    new_page, site, artifacts, media_root, docs_screenshots
):
    writer = log_in(new_page, site, "writer")
    dialog = writer.locator("#body-image-dialog")
    with screenshots_on_failure(artifacts, "body-image-drop", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        before = Image.objects.count()  # the demo content's pictures
        writer.fill("#id_body", "## The cache\n\nHits doubled.\nMore below.")
        cursor_after(writer, "Hits doubled.")
        assert give(writer, "drop", "hit-rate.png", seed=1), "the browser kept the drop"
        expect(dialog).to_be_visible()
        expect(dialog.locator(".body-image__name")).to_have_text("hit-rate.png")
        expect(dialog.locator("#body-image-alt")).to_be_focused()

        # Nothing uploaded without the words; what was typed stays.
        dialog.locator("#body-image-caption").fill("A week of builds")
        dialog.get_by_role("button", name="Upload and insert").click()
        expect(dialog.locator(".body-image__errors")).to_contain_text(
            "Alt text: Describe the picture"
        )
        expect(dialog.locator("#body-image-caption")).to_have_value("A week of builds")
        assert Image.objects.count() == before

        dialog.locator("#body-image-alt").fill("Cache hit rate rising from 40% to 80%")
        dialog.locator("#body-image-credit").fill("Chart: Skillo")
        dialog.locator("#body-image-licence").select_option("own")
        expect(dialog.locator(".body-image__preview")).to_have_attribute(
            "src", re.compile("^data:")
        )
        writer.screenshot(path=docs_screenshots / "desk-image-1280.png")
        dialog.get_by_role("button", name="Upload and insert").click()
        expect(dialog).to_be_hidden()
        image = Image.objects.get(original_name="hit-rate.png")
        expected = f"## The cache\n\nHits doubled.\n\n![](image:{image.key})\n\nMore below."
        expect(writer.locator("#id_body")).to_have_value(expected)
        expect(writer.locator("#id_body")).to_be_focused()
        expect(writer.locator(".body-image-status")).to_have_text(
            "Uploaded and inserted “Cache hit rate rising from 40% to 80%”."
        )
        assert (image.alt_text, image.caption, image.credit) == (
            "Cache hit rate rising from 40% to 80%",
            "A week of builds",
            "Chart: Skillo",
        )


def test_a_pasted_picture_may_be_marked_decorative_and_remembers_the_credit(
    new_page, site, artifacts, media_root
):
    writer = log_in(new_page, site, "writer")
    dialog = writer.locator("#body-image-dialog")
    with screenshots_on_failure(artifacts, "body-image-paste", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        before = Image.objects.count()  # the demo content's pictures
        writer.fill("#id_body", "Intro.")
        cursor_after(writer, "Intro.")
        assert give(writer, "paste", "image.png", seed=2)
        dialog.locator("#body-image-decorative").check()
        expect(dialog.locator("#body-image-alt")).to_be_disabled()
        dialog.locator("#body-image-credit").fill("Photo: Ada")
        dialog.locator("#body-image-licence").select_option("own")
        dialog.get_by_role("button", name="Upload and insert").click()
        expect(dialog).to_be_hidden()
        first = Image.objects.get(original_name="image.png")
        assert first.decorative
        expect(writer.locator("#id_body")).to_have_value(f"Intro.\n\n![](image:{first.key})\n\n")

        # The next picture in this browser starts with the same credit and licence.
        assert give(writer, "paste", "image.png", seed=3)
        expect(dialog.locator("#body-image-credit")).to_have_value("Photo: Ada")
        expect(dialog.locator("#body-image-licence")).to_have_value("own")
        writer.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        assert Image.objects.count() == before + 1


def test_a_library_picture_is_found_and_inserted_with_the_keyboard_alone(
    new_page, site, artifacts, media_root
):
    wanted = ImageFactory(alt_text="Ferris the crab on a conference stage")
    ImageFactory(alt_text="A cat asleep on a keyboard")
    writer = log_in(new_page, site, "writer")
    dialog = writer.locator("#body-image-dialog")
    with screenshots_on_failure(artifacts, "body-image-keyboard", writer):
        writer.goto(f"{site}/admin/news/article/add/")
        writer.fill("#id_body", "Opening line.")
        cursor_after(writer, "Opening line.")
        writer.locator(".writing-toolbar__image").focus()
        writer.keyboard.press("Enter")
        expect(dialog).to_be_visible()
        expect(dialog.locator("#body-image-search")).to_be_focused()
        writer.keyboard.type("ferris")
        # Enter searches at once (and does not save the article around the dialog).
        writer.keyboard.press("Enter")
        results = dialog.locator(".body-image__result")
        expect(results).to_have_count(1)
        expect(results).to_contain_text("Ferris the crab on a conference stage")
        writer.keyboard.press("Tab")
        expect(results.first).to_be_focused()
        writer.keyboard.press("Enter")
        expect(dialog).to_be_hidden()
        expect(writer.locator("#id_body")).to_have_value(
            f"Opening line.\n\n![](image:{wanted.key})\n\n"
        )
        expect(writer.locator("#id_body")).to_be_focused()
        assert "/add/" in writer.url, "the article form was submitted"
