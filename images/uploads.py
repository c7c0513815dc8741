"""What an uploaded file must be before it joins the library, and the words that say why
it was refused. Files are identified by their content (Pillow reads the bytes), never by
their name or the browser's content type."""

import hashlib
import re
import warnings
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from PIL import ExifTags, UnidentifiedImageError
from PIL import Image as PILImage

# Pillow's names for the formats the library takes, and the file extension each is stored
# under.
ACCEPTED_FORMATS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "AVIF": "avif", "GIF": "gif"}
ACCEPTED_NAMES = "JPEG, PNG, WebP, AVIF or GIF"
# EXIF orientations that turn the picture a quarter (width and height swap when shown).
ROTATED_A_QUARTER = {5, 6, 7, 8}


@dataclass(frozen=True)
class Upload:
    """What the library keeps about a file that passed every check."""

    sha256: str
    format: str
    width: int  # as displayed: after the camera's orientation is applied
    height: int
    size: int

    @property
    def extension(self):
        return ACCEPTED_FORMATS[self.format]


def same_content(storage, name, sha256):
    """Whether the file ``name`` in ``storage`` holds the bytes whose SHA-256 is
    ``sha256``."""
    digest = hashlib.sha256()
    with storage.open(name, "rb") as stored:
        for chunk in stored.chunks():
            digest.update(chunk)
    return digest.hexdigest() == sha256


def max_upload_bytes():
    return settings.IMAGE_MAX_UPLOAD_BYTES


def max_pixels():
    return settings.IMAGE_MAX_PIXELS


def _looks_like_svg(head):
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return text.startswith((b"<svg", b"<?xml", b"<!doctype svg")) or b"<svg" in text[:1024]


def _refuse(message, code):
    raise ValidationError(message, code=code)


def check_upload(file):
    """Read ``file`` (a Django File) and return its Upload, or raise ValidationError with a
    message an editor can act on. Never decodes more pixels than IMAGE_MAX_PIXELS."""
    size = file.size
    if size > max_upload_bytes():
        _refuse(
            f"The file is {filesizeformat(size)}; an image can be at most "
            f"{filesizeformat(max_upload_bytes())}. Export it smaller (2,400 pixels wide "
            "is plenty).",
            "too_large",
        )
    if size == 0:
        _refuse("The file is empty.", "empty")
    file.seek(0)
    head = file.read(2048)
    file.seek(0)
    if _looks_like_svg(head):
        _refuse(
            "SVG files are not accepted: they can carry scripts. Export the image as PNG.",
            "svg",
        )
    digest = hashlib.sha256()
    for chunk in file.chunks():
        digest.update(chunk)
    file.seek(0)
    try:
        with warnings.catch_warnings():
            # The size check below refuses bombs with a message; Pillow's own warning (and
            # its error at twice its limit) must not pre-empt it.
            warnings.simplefilter("ignore", PILImage.DecompressionBombWarning)
            image = PILImage.open(file, formats=list(ACCEPTED_FORMATS))
    except UnidentifiedImageError:
        _refuse(
            f"This file is not an image Skillo takes; upload a {ACCEPTED_NAMES} file.",
            "format",
        )
    except PILImage.DecompressionBombError as error:
        # Pillow refuses to even open it; its message holds the pixel count.
        found = re.search(r"\((\d+) pixels\)", str(error))
        _refuse(_too_many_pixels_message(int(found[1]) if found else None), "too_many_pixels")
    except (OSError, SyntaxError, ValueError) as error:
        _refuse(_damaged_message(error), "damaged")
    with image:
        width, height = image.size
        if width * height > max_pixels():
            _refuse(_too_many_pixels_message(width * height, (width, height)), "too_many_pixels")
        try:
            # Decode every pixel now: a truncated or corrupt file fails here, in the form,
            # and not later while renditions are made.
            image.load()
            orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
        except (OSError, SyntaxError, ValueError, EOFError) as error:
            _refuse(_damaged_message(error), "damaged")
        if orientation in ROTATED_A_QUARTER:
            width, height = height, width
        return Upload(
            sha256=digest.hexdigest(), format=image.format, width=width, height=height, size=size
        )


def _too_many_pixels_message(pixels, dimensions=None):
    limit = f"{max_pixels() / 1_000_000:g}"
    if pixels is None:
        return (
            f"The image has far more than {limit} megapixels, the most Skillo takes. "
            "Export it smaller."
        )
    size = f" ({dimensions[0]:,} by {dimensions[1]:,} pixels)" if dimensions else ""
    return (
        f"The image has {pixels / 1_000_000:,.0f} megapixels{size}; Skillo takes at most "
        f"{limit}. Export it smaller."
    )


def _damaged_message(error):
    return (
        f"The image file is damaged or incomplete ({error}); open it in an image editor "
        "and export it again."
    )
