"""Pictures made for the tests, as the bytes a camera or an editor's tool would send."""

import functools
import io
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image as PILImage
from PIL import ImageDraw

# A photographer's position, as cameras write it into EXIF (GPS IFD).
GPS_LATITUDE = (52.0, 31.0, 12.34)
SECRET = "Secret-Location-Marker"


@functools.cache  # bytes, the same for the same arguments: drawn once per test run
def picture(width=1600, height=900, format="JPEG", seed=0, dot=None, **save_options):
    """A picture with some detail (so encoders have work to do) and, optionally, a red
    ``dot`` at (x, y) as fractions of the width and height."""
    image = PILImage.linear_gradient("L").resize((width, height)).convert("RGB")
    pen = ImageDraw.Draw(image)
    # The seed makes every picture's bytes (and so its identity) different.
    pen.rectangle((seed % width, 0, seed % width + 10, 10), fill=(seed % 256, 90, 160))
    if dot:
        x, y = round(dot[0] * width), round(dot[1] * height)
        pen.ellipse((x - 20, y - 20, x + 20, y + 20), fill=(255, 0, 0))
    out = io.BytesIO()
    if format == "JPEG":
        save_options.setdefault("quality", 85)
    image.save(out, format, **save_options)
    return out.getvalue()


def with_gps(width=1600, height=900, orientation=1, seed=0):
    """A JPEG whose EXIF holds a GPS position, the camera owner's name and an
    orientation."""
    exif = PILImage.Exif()
    exif[0x0112] = orientation
    exif[0x013B] = SECRET  # Artist
    gps = exif.get_ifd(0x8825)
    gps[1] = "N"
    gps[2] = GPS_LATITUDE
    return picture(width, height, seed=seed, exif=exif.tobytes())


def png_claiming(width, height):
    """A tiny PNG whose header claims ``width`` x ``height`` pixels: what a
    decompression bomb looks like before it is decoded."""

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    body = zlib.compress(b"\0" * 1024)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")
    )


def upload(content, name="photo.jpg"):
    return SimpleUploadedFile(name, content)
