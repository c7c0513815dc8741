"""Renditions: made once per size and format, metadata stripped, turned upright, crops
that keep the focal point in frame."""

import pytest
from PIL import Image as PILImage

from images import renditions
from images.renditions import (
    PAGE_WIDTHS,
    SOCIAL_SIZES,
    all_renditions,
    crop_box,
    ensure_renditions,
    page_renditions,
    social_rendition,
)

from .background_tasks import run_queued
from .factories import ImageFactory
from .pictures import SECRET, picture, with_gps

# Renditions are files made from files: the database only holds the image's row, the same
# on both, so these run in the SQLite pass only (tests/conftest.py).
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.sqlite_only(reason="renditions are files: the database cannot change them"),
]


def files(media_root):
    return sorted(path for path in (media_root / "renditions").rglob("*") if path.is_file())


def test_page_renditions_run_from_phone_to_2x_desktop_in_avif_and_jpeg(media_root):
    image = ImageFactory(width=2400, height=1350)
    for format in ("avif", "jpg"):
        made = page_renditions(image, format)
        assert [r.width for r in made] == list(PAGE_WIDTHS)
        for rendition in made:
            with PILImage.open(media_root / rendition.name) as opened:
                assert opened.format == {"avif": "AVIF", "jpg": "JPEG"}[format]
                assert opened.size == (rendition.width, rendition.height)
                assert rendition.height == round(rendition.width * 1350 / 2400)


def test_a_small_picture_is_never_enlarged_for_the_page(media_root):
    image = ImageFactory(width=900, height=600)
    assert [r.width for r in page_renditions(image, "jpg")] == [480, 800, 900]


def test_social_crops_have_the_sizes_previews_and_google_ask_for(media_root):
    image = ImageFactory(width=1600, height=900)
    assert {name: (r.width, r.height) for name in SOCIAL_SIZES
            if (r := social_rendition(image, name))} == {
        "card": (1200, 630), "16x9": (1200, 675), "4x3": (1200, 900), "1x1": (1200, 1200),
    }  # fmt: skip
    for name in SOCIAL_SIZES:
        rendition = social_rendition(image, name)
        with PILImage.open(media_root / rendition.name) as opened:
            assert opened.size == (rendition.width, rendition.height)
            assert opened.format == "JPEG"


def test_renditions_are_made_once(media_root, monkeypatch):
    image = ImageFactory(width=1600, height=900)
    made = files(media_root)
    assert len(made) == len(all_renditions(image)) == 12
    stamps = [path.stat().st_mtime_ns for path in made]
    encoded = []
    monkeypatch.setattr(renditions, "_render", lambda *args: encoded.append(args) or b"")
    image.caption = "New words"
    image.save()
    assert ensure_renditions(image) == 0
    assert encoded == []
    assert [path.stat().st_mtime_ns for path in files(media_root)] == stamps


def test_moving_the_focal_point_makes_only_the_crops_again(media_root):
    image = ImageFactory(width=1600, height=900)
    before = set(files(media_root))
    image.focal_x = 0.9
    image.save()
    run_queued()
    new = set(files(media_root)) - before
    assert sorted(path.name.split("-")[1] for path in new) == sorted(SOCIAL_SIZES)


def test_gps_position_and_other_metadata_are_gone_from_every_rendition(media_root):
    image = ImageFactory(content=with_gps(1600, 900))
    with image.file.open("rb") as original:
        assert SECRET.encode() in original.read()  # the original kept as sent
    for rendition in all_renditions(image):
        data = (media_root / rendition.name).read_bytes()
        assert SECRET.encode() not in data, rendition.name
        with PILImage.open(media_root / rendition.name) as opened:
            exif = opened.getexif()
            assert 0x8825 not in exif and 0x013B not in exif, rendition.name
            assert not opened.info.get("xmp") and not opened.info.get("exif"), rendition.name


def test_the_cameras_orientation_is_applied(media_root):
    # A landscape sensor image that the camera marks "turn 90 degrees": shown portrait.
    image = ImageFactory(content=with_gps(1600, 900, orientation=6))
    assert (image.width, image.height) == (900, 1600)
    largest = page_renditions(image, "jpg")[-1]
    with PILImage.open(media_root / largest.name) as opened:
        assert opened.size == (900, 1600)


def test_crops_keep_the_focal_point_in_frame(media_root):
    # A red dot near the right edge: a square crop around it shows it, one around the
    # left half does not.
    content = picture(1600, 900, dot=(0.9, 0.5))
    image = ImageFactory(content=content, focal_x=0.9, focal_y=0.5)
    square = social_rendition(image, "1x1")
    with PILImage.open(media_root / square.name) as opened:
        # The 900 x 900 box ends at the right edge: the dot (x = 1440) is at 1440 - 700.
        x = round((1440 - 700) / 900 * 1200)
        red, green, _ = opened.convert("RGB").getpixel((x, 600))
        assert red > 200 and green < 60
    image.focal_x = 0.1
    image.save()
    run_queued()
    with PILImage.open(media_root / social_rendition(image, "1x1").name) as opened:
        pixels = opened.convert("RGB").get_flattened_data()
        reds = [pixel for pixel in pixels if pixel[0] > 200 and pixel[1] < 60]
        assert reds == []


@pytest.mark.parametrize(
    ("size", "ratio", "focus", "box"),
    [
        ((1600, 900), 1, (0.5, 0.5), (350, 0, 1250, 900)),
        ((1600, 900), 1, (0.0, 0.5), (0, 0, 900, 900)),  # clamped at the left edge
        ((1600, 900), 1, (1.0, 0.5), (700, 0, 1600, 900)),  # and the right
        ((1000, 2000), 16 / 9, (0.5, 0.1), (0, 0, 1000, 562)),  # tall: cut top and bottom
        ((1000, 2000), 16 / 9, (0.5, 0.9), (0, 1438, 1000, 2000)),
    ],
)
def test_the_crop_box_is_the_largest_around_the_focal_point(size, ratio, focus, box):
    assert crop_box(*size, ratio, *focus) == box


def test_make_renditions_makes_only_the_missing_ones(media_root):
    from io import StringIO

    from django.core.management import call_command

    image = ImageFactory(width=1600, height=900)
    lost = media_root / page_renditions(image, "avif")[0].name
    lost.unlink()
    out = StringIO()
    call_command("make_renditions", stdout=out)
    assert out.getvalue().strip() == "Made 1 rendition(s) for 1 image(s)."
    assert lost.exists()


def test_make_renditions_names_the_images_without_an_original_and_makes_the_rest(media_root):
    from io import StringIO

    from django.core.management import CommandError, call_command

    lost, kept = ImageFactory(made=False), ImageFactory(made=False)
    (media_root / lost.file.name).unlink()  # not copied when media moved to a bucket
    out = StringIO()
    with pytest.raises(CommandError, match=rf"1 image\(s\) have no original .*\(ids {lost.pk}\)"):
        call_command("make_renditions", stdout=out)
    assert (
        out.getvalue().strip() == f"Made {len(all_renditions(kept))} rendition(s) for 1 image(s)."
    )
    assert all((media_root / r.name).exists() for r in all_renditions(kept))
