"""Renditions: the files readers download, made once per image, size and format.

Written with Pillow directly rather than through django-imagekit or easy-thumbnails:
what Skillo needs is one function (crop around a focal point, resize, strip metadata,
encode) and names made from the image's content, which those libraries' spec and cache
layers would wrap without making shorter.

- Page renditions keep the picture's own shape, at PAGE_WIDTHS (a 390 px phone at 3x
  takes 1200, a desktop column of 44rem at 2x takes 1600), as AVIF (about half the
  bytes of JPEG at the same look; every current browser) with JPEG for the rest.
- Social renditions are crops around the focal point at the sizes that link previews
  and Google's Article guidance ask for, as JPEG (what every crawler reads).

A rendition's name holds the image's hash (and the focal point, for crops), so a file
never changes once written and can be cached for a year; moving the focal point makes
new crops under new names.
"""

import contextlib
import io
from dataclasses import dataclass

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image as PILImage
from PIL import ImageCms, ImageOps

PAGE_WIDTHS = (480, 800, 1200, 1600)
PAGE_FORMATS = ("avif", "jpg")
MIME_TYPES = {"avif": "image/avif", "jpg": "image/jpeg", "png": "image/png"}
# name: (width, height)
SOCIAL_SIZES = {
    "card": (1200, 630),  # og:image, twitter:card summary_large_image
    "16x9": (1200, 675),  # JSON-LD image, the three shapes Google's guidance lists
    "4x3": (1200, 900),
    "1x1": (1200, 1200),
}
# The page's background, behind transparent pictures in JPEG (which has no alpha).
BACKGROUND = (252, 252, 250)


@dataclass(frozen=True)
class Rendition:
    name: str
    width: int
    height: int
    format: str
    # A crop around the focal point to exactly width x height, or the whole picture.
    cropped: bool = False

    @property
    def url(self):
        return default_storage.url(self.name)

    @property
    def mime_type(self):
        return MIME_TYPES[self.format]


def page_widths(image):
    # The picture itself is the widest, never enlarged.
    widest = min(image.width, PAGE_WIDTHS[-1])
    return [width for width in PAGE_WIDTHS if width < widest] + [widest]


def page_renditions(image, format):
    """The page renditions of ``image`` in one format, narrowest first."""
    return [
        Rendition(
            name=_name(image, f"w{width}", format),
            width=width,
            height=max(1, round(width * image.height / image.width)),
            format=format,
        )
        for width in page_widths(image)
    ]


def focus_code(image):
    """The focal point as crops' names hold it: a moved point is new crops."""
    return f"{round(image.focal_x * 100):02d}{round(image.focal_y * 100):02d}"


def social_rendition(image, size_name):
    width, height = SOCIAL_SIZES[size_name]
    return Rendition(
        name=_name(image, f"{size_name}-f{focus_code(image)}", "jpg"),
        width=width,
        height=height,
        format="jpg",
        cropped=True,
    )


def all_renditions(image):
    return [
        *(r for format in PAGE_FORMATS for r in page_renditions(image, format)),
        *(social_rendition(image, size_name) for size_name in SOCIAL_SIZES),
    ]


def _name(image, spec, extension):
    return f"{rendition_prefix(image.sha256)}-{spec}.{extension}"


def rendition_prefix(sha256):
    """The start of the name of every rendition of the picture with this hash."""
    return f"renditions/{sha256[:2]}/{sha256[:24]}"


def crop_box(width, height, target_ratio, focal_x, focal_y):
    """The largest box of ``target_ratio`` (width / height) inside a picture of
    ``width`` x ``height``, as centred on the focal point as the edges allow."""
    if width / height > target_ratio:
        box_w, box_h = round(height * target_ratio), height
    else:
        box_w, box_h = width, round(width / target_ratio)
    left = min(max(round(focal_x * width - box_w / 2), 0), width - box_w)
    top = min(max(round(focal_y * height - box_h / 2), 0), height - box_h)
    return (left, top, left + box_w, top + box_h)


def ensure_renditions(image, storage=None):
    """Make the renditions of ``image`` that do not exist yet; return how many were
    made. Cheap when they all exist (one existence check per file)."""
    storage = storage or default_storage
    missing = [r for r in all_renditions(image) if not storage.exists(r.name)]
    if not missing:
        return 0
    with image.file.open("rb") as original:
        picture = _displayable(original)
    for rendition in missing:
        data = _render(picture, image, rendition)
        saved = storage.save(rendition.name, ContentFile(data))
        if saved != rendition.name:  # another process wrote it first: same bytes
            storage.delete(saved)
    return len(missing)


def _displayable(file):
    """The first frame, turned as the camera meant, in sRGB, RGB or RGBA."""
    with PILImage.open(file) as opened:
        opened.seek(0)
        picture = ImageOps.exif_transpose(opened)
        icc = opened.info.get("icc_profile")
        has_alpha = picture.mode in ("RGBA", "LA", "PA") or (
            picture.mode == "P" and "transparency" in picture.info
        )
        picture = picture.convert("RGBA" if has_alpha else "RGB")
    # An unreadable profile leaves the pixels as they are.
    with contextlib.suppress(ImageCms.PyCMSError, OSError, ValueError):
        if icc:
            picture = ImageCms.profileToProfile(
                picture,
                ImageCms.ImageCmsProfile(io.BytesIO(icc)),
                ImageCms.createProfile("sRGB"),
                outputMode=picture.mode,
            )
    # Nothing of the original's metadata (EXIF with GPS positions, XMP, the ICC profile
    # now applied) may follow the pixels: Pillow's AVIF and WebP writers copy info.
    picture.info = {}
    return picture


def _render(picture, image, rendition):
    frame = picture
    if rendition.cropped:
        box = crop_box(
            picture.width,
            picture.height,
            rendition.width / rendition.height,
            image.focal_x,
            image.focal_y,
        )
        frame = picture.crop(box)
    frame = frame.resize((rendition.width, rendition.height), PILImage.Resampling.LANCZOS)
    frame.info = {}
    out = io.BytesIO()
    if rendition.format == "avif":
        frame.save(
            out,
            "AVIF",
            quality=settings.IMAGE_AVIF_QUALITY,
            speed=settings.IMAGE_AVIF_SPEED,
            exif=b"",
            xmp=b"",
            icc_profile=b"",
        )
    else:
        if frame.mode == "RGBA":
            flat = PILImage.new("RGB", frame.size, BACKGROUND)
            flat.paste(frame, mask=frame.getchannel("A"))
            frame = flat
        frame.save(
            out, "JPEG", quality=settings.IMAGE_JPEG_QUALITY, optimize=True, progressive=True
        )
    return out.getvalue()
