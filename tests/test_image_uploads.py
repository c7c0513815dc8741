"""The image library's door: what an editor may upload, and the words when it is
refused. Nothing of a refused file is kept."""

import hashlib
import io

import pytest
from django.test import Client
from PIL import Image as PILImage

from images.models import Image
from images.renditions import page_renditions

from .background_tasks import run_queued
from .factories import ImageFactory
from .pictures import picture, png_claiming, upload

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/images/image/add/"


@pytest.fixture
def editor(django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("writer", "w@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    client = Client()
    client.force_login(user)
    return client


def post_image(client, content, name="photo.jpg", **fields):
    data = {
        "upload": upload(content, name),
        "alt_text": "A laptop showing a terminal",
        "caption": "",
        "credit": "Photo: Skillo",
        "licence": "own",
        **fields,
    }
    return client.post(ADD_URL, data)


def errors_of(response):
    assert response.status_code == 200, response.status_code
    form = response.context["adminform"].form
    return [message for messages in form.errors.values() for message in messages]


def test_a_writer_uploads_a_jpeg_and_it_joins_the_library(editor, media_root):
    response = post_image(editor, picture(1600, 900))
    assert response.status_code == 302
    image = Image.objects.get()
    assert (image.format, image.width, image.height) == ("JPEG", 1600, 900)
    assert image.original_name == "photo.jpg"
    assert image.file.name == f"originals/{image.sha256[:2]}/{image.sha256}.jpg"


@pytest.mark.parametrize("format", ["PNG", "WEBP", "AVIF"])
def test_png_webp_and_avif_are_accepted(editor, media_root, format):
    assert post_image(editor, picture(800, 600, format=format), name="x.bin").status_code == 302
    assert Image.objects.get().format == format


def test_an_animated_gif_is_taken_as_its_first_frame(editor, media_root):
    frames = [PILImage.new("RGB", (400, 300), colour) for colour in ("red", "blue")]
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    assert post_image(editor, out.getvalue(), name="anim.gif").status_code == 302
    run_queued()
    [largest] = page_renditions(Image.objects.get(), "jpg")
    red, _, blue = PILImage.open(media_root / largest.name).convert("RGB").getpixel((200, 150))
    assert red > 200 and blue < 60


def test_the_type_comes_from_the_content_not_the_name(editor, media_root):
    response = post_image(editor, picture(800, 600, format="PNG"), name="holiday.jpg")
    assert response.status_code == 302
    image = Image.objects.get()
    assert image.format == "PNG" and image.file.name.endswith(".png")


def test_svg_is_refused_because_it_can_carry_scripts(editor, media_root):
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    assert errors_of(post_image(editor, svg, name="logo.png")) == [
        "SVG files are not accepted: they can carry scripts. Export the image as PNG."
    ]
    assert not Image.objects.exists()


def test_a_file_that_is_no_image_is_refused(editor, media_root):
    assert errors_of(post_image(editor, b"%PDF-1.7 not a picture", name="x.jpg")) == [
        "This file is not an image Skillo takes; upload a JPEG, PNG, WebP, AVIF or GIF file."
    ]


def test_a_decompression_bomb_is_refused_before_it_is_decoded(editor, media_root):
    bomb = png_claiming(10_000, 10_000)
    assert len(bomb) < 2_000
    assert errors_of(post_image(editor, bomb, name="small.png")) == [
        "The image has 100 megapixels (10,000 by 10,000 pixels); Skillo takes at most 50. "
        "Export it smaller."
    ]
    assert not Image.objects.exists()


def test_a_bomb_pillow_will_not_even_open_is_refused_with_its_size(editor, media_root):
    assert errors_of(post_image(editor, png_claiming(100_000, 100_000), name="x.png")) == [
        "The image has 10,000 megapixels; Skillo takes at most 50. Export it smaller."
    ]


def test_a_file_over_the_size_limit_is_refused(editor, media_root, settings):
    settings.IMAGE_MAX_UPLOAD_BYTES = 50_000
    content = picture(1600, 900, quality=95)
    assert len(content) > 50_000
    [message] = errors_of(post_image(editor, content))
    assert message.startswith("The file is ") and "an image can be at most 48.8" in message


def test_a_truncated_file_is_a_form_error_not_a_server_error(editor, media_root):
    content = picture(1600, 900)
    [message] = errors_of(post_image(editor, content[: len(content) // 2]))
    assert message.startswith("The image file is damaged or incomplete (")
    assert not Image.objects.exists()
    assert not media_root.exists() or not list(media_root.rglob("*.*"))


def test_the_same_picture_twice_points_to_the_one_in_the_library(editor, media_root):
    content = picture(1200, 800)
    post_image(editor, content)
    first = Image.objects.get()
    [message] = errors_of(post_image(editor, content, name="copy.jpg"))
    assert message.startswith("This picture is already in the library: <a href=")
    assert f"/admin/images/image/{first.pk}/change/" in message
    assert Image.objects.count() == 1


def test_alt_text_is_required_unless_the_image_is_decorative(editor, media_root):
    assert errors_of(post_image(editor, picture(800, 600), alt_text="")) == [
        "Describe the picture for readers who cannot see it, or tick “decorative” if it "
        "adds nothing to the text."
    ]
    response = post_image(editor, picture(800, 600), alt_text="", decorative="on")
    assert response.status_code == 302
    assert Image.objects.get().alt == ""


def test_a_decorative_image_has_no_alt_text(editor, media_root):
    [message] = errors_of(post_image(editor, picture(800, 600), decorative="on"))
    assert message.startswith("A decorative image has no alt text")


def test_the_library_lists_searches_and_filters_images(editor, media_root):
    ImageFactory(alt_text="A penguin on a keyboard", credit="Photo: Tux")
    ImageFactory(alt_text="Rack of servers", licence="press-kit")
    page = editor.get("/admin/images/image/?q=penguin").content.decode()
    assert "A penguin on a keyboard" in page and "Rack of servers" not in page
    page = editor.get("/admin/images/image/?licence__exact=press-kit").content.decode()
    assert "Rack of servers" in page and "A penguin on a keyboard" not in page
    page = editor.get("/admin/images/image/?used=no").content.decode()
    assert "Rack of servers" in page


# A file left under an original's name by an upload or restore that never committed.


def left_behind(media_root, content, written=None):
    """A file under ``content``'s name, holding ``written`` (the same bytes by default)."""
    sha256 = hashlib.sha256(content).hexdigest()
    path = media_root / "originals" / sha256[:2] / f"{sha256}.jpg"
    path.parent.mkdir(parents=True)
    path.write_bytes(content if written is None else written)
    return path


def test_an_original_already_stored_with_the_same_bytes_is_used_not_copied(media_root):
    content = picture(1600, 900, seed=7)
    path = left_behind(media_root, content)
    image = ImageFactory(content=content)
    assert image.file.path == str(path)
    assert list(path.parent.iterdir()) == [path]


def test_a_cut_short_file_under_an_originals_name_is_replaced(media_root):
    content = picture(1600, 900, seed=7)
    path = left_behind(media_root, content, written=content[: len(content) // 2])
    image = ImageFactory(content=content)
    assert image.file.path == str(path)
    assert (list(path.parent.iterdir()), path.read_bytes()) == ([path], content)
