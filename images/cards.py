"""Generated share cards: an article without a lead image still gets a picture in link
previews, its title and topic on Skillo's colours, drawn once and stored by content.

The fonts are DejaVu Sans (images/fonts, its licence beside it): bundled so that a card
looks the same on every machine, and wide enough in scripts for any title.
"""

import hashlib
import io
from pathlib import Path

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image as PILImage
from PIL import ImageDraw, ImageFont

from .renditions import SOCIAL_SIZES, Rendition

FONTS = Path(__file__).resolve().parent / "fonts"
# Drawn again under new names when the design changes.
DESIGN = "v1"
WIDTH, HEIGHT = SOCIAL_SIZES["card"]
MARGIN = 80
INK = (252, 252, 250)
BACKGROUND = (8, 63, 120)  # --accent-strong
TOPIC_INK = (181, 215, 255)  # --accent-strong in dark mode
RULE = (255, 179, 122)  # --focus in dark mode


def card_key(title, topic):
    """A name for the card made from what it shows: a new title or topic, or a new
    design, is a new card, and a card never changes under its name."""
    return hashlib.sha256(f"{DESIGN}\n{title}\n{topic or ''}".encode()).hexdigest()[:24]


def title_card(title, topic):
    key = card_key(title, topic)
    return Rendition(name=f"cards/{key[:2]}/{key}.png", width=WIDTH, height=HEIGHT, format="png")


def ensure_title_card(title, topic, storage=None):
    """Draw and store the card unless it exists; return its Rendition."""
    storage = storage or default_storage
    card = title_card(title, topic)
    if not storage.exists(card.name):
        saved = storage.save(card.name, ContentFile(draw(title, topic)))
        if saved != card.name:  # another process drew it first
            storage.delete(saved)
    return card


def _font(size, bold=True):
    return ImageFont.truetype(
        str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size
    )


def _wrap(draw, text, font, width, max_lines):
    lines, line = [], ""
    for word in text.split():
        candidate = f"{line} {word}".strip()
        if draw.textlength(candidate, font=font) <= width or not line:
            line = candidate
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and draw.textlength(last + "…", font=font) > width:
            last = last[:-1]
        lines[-1] = last.rstrip() + "…"
    # A single word longer than the card: cut it.
    return [_cut(draw, line, font, width) for line in lines]


def _cut(draw, line, font, width):
    if draw.textlength(line, font=font) <= width:
        return line
    while line and draw.textlength(line + "…", font=font) > width:
        line = line[:-1]
    return line + "…"


def draw(title, topic):
    image = PILImage.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    pen = ImageDraw.Draw(image)
    text_width = WIDTH - 2 * MARGIN
    pen.text((MARGIN, 56), "Skillo", font=_font(40), fill=INK)
    tagline = _font(24, bold=False)
    pen.text((MARGIN + 150, 70), "Tech releases, with sources", font=tagline, fill=TOPIC_INK)
    pen.rectangle((MARGIN, 128, MARGIN + 120, 134), fill=RULE)
    y = 170
    if topic:
        pen.text(
            (MARGIN, y),
            _cut(pen, topic.upper(), _font(28), text_width),
            font=_font(28),
            fill=TOPIC_INK,
        )
        y += 56
    room = HEIGHT - 56 - y
    # The largest size at which the whole title fits; the smallest, cut, if none does.
    for size in (72, 64, 56, 50, 44):
        font = _font(size)
        line_height = round(size * 1.2)
        lines = _wrap(pen, title, font, text_width, max(1, room // line_height))
        if not lines[-1].endswith("…"):
            break
    for line in lines:
        pen.text((MARGIN, y), line, font=font, fill=INK)
        y += line_height
    out = io.BytesIO()
    # Flat colours and anti-aliased text: 64 colours look the same at a third of the bytes.
    image.quantize(colors=64).save(out, "PNG", optimize=True)
    return out.getvalue()
