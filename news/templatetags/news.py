import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from news.search import highlight as highlight_markers

register = template.Library()

# The characters that could end a <script> element or open a comment inside it.
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}


@register.filter
def tag_url(tag):
    """The one place tag URLs are built: taggit's Tag has no get_absolute_url()."""
    return reverse("news:tag", kwargs={"slug": tag.slug})


@register.filter
def json_ld(data):
    """A JSON-LD <script> element that no value can break out of."""
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).translate(_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))


@register.filter
def highlight(headline):
    return highlight_markers(headline)


@register.simple_tag(takes_context=True)
def absolute_url(context, path):
    return context["request"].build_absolute_uri(path)
