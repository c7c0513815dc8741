from django import template

from ..renditions import page_renditions

register = template.Library()

# The article column: the main column is 46rem wide with 1rem of padding on each side.
COLUMN_SIZES = "(min-width: 46rem) 44rem, calc(100vw - 2rem)"


@register.inclusion_tag("images/picture.html")
def picture(image, alt=None, sizes=COLUMN_SIZES, lead=False):
    """A <picture> of ``image``: AVIF and JPEG renditions for the browser to pick from by
    the width it will draw, with the picture's width and height so the page does not
    jump while it loads. ``lead``: the first thing on the page, fetched at once; any
    other picture loads lazily as the reader scrolls towards it. ``alt``: this
    placement's own alt text, if not the library's."""
    avif = page_renditions(image, "avif")
    jpeg = page_renditions(image, "jpg")
    largest = jpeg[-1]
    # The fallback <img src> for browsers without srcset: a middling size.
    fallback = next((r for r in jpeg if r.width >= 800), largest)
    return {
        "image": image,
        "alt": image.alt if alt is None else alt,
        "avif_srcset": ", ".join(f"{r.url} {r.width}w" for r in avif),
        "jpeg_srcset": ", ".join(f"{r.url} {r.width}w" for r in jpeg),
        "src": fallback.url,
        "width": largest.width,
        "height": largest.height,
        "sizes": sizes,
        "lead": lead,
    }


@register.simple_tag
def feed_rendition(image):
    """The JPEG a feed reader shows: 1,200 pixels wide, or the picture's own width."""
    jpeg = page_renditions(image, "jpg")
    return next((r for r in jpeg if r.width >= 1200), jpeg[-1])
