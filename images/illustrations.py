"""Abstract illustrations drawn here, for the demo content's lead images: a site without
pictures would not show what lead images, renditions and crops do, and no photograph
may be shipped without its owner's licence."""

import io
import random

from PIL import Image as PILImage
from PIL import ImageDraw, ImageFilter

PALETTES = [
    ((8, 63, 120), (255, 179, 122), (141, 194, 255)),
    ((26, 26, 30), (194, 65, 12), (255, 241, 168)),
    ((11, 88, 166), (252, 252, 250), (255, 179, 122)),
    ((20, 21, 24), (141, 194, 255), (194, 65, 12)),
]


def illustration(seed, width=1600, height=900):
    """A JPEG of overlapping circles and bars on a gradient, the same for the same seed."""
    rng = random.Random(seed)
    background, accent, light = PALETTES[rng.randrange(len(PALETTES))]
    image = PILImage.linear_gradient("L").rotate(rng.choice([0, 90, 180, 270]))
    image = image.resize((width, height)).convert("RGB")
    tint = PILImage.new("RGB", (width, height), background)
    image = PILImage.blend(tint, image, 0.18)
    pen = ImageDraw.Draw(image, "RGBA")
    for _ in range(9):
        radius = rng.randint(height // 10, height // 2)
        x, y = rng.randint(0, width), rng.randint(0, height)
        colour = rng.choice([accent, light])
        pen.ellipse((x - radius, y - radius, x + radius, y + radius), fill=(*colour, 70))
    for _ in range(14):
        x = rng.randint(0, width)
        bar = rng.randint(8, 40)
        pen.rectangle((x, 0, x + bar, height), fill=(*light, 28))
    image = image.filter(ImageFilter.GaussianBlur(1.2))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=88)
    return out.getvalue()
