from functools import cache

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

from readership import most_read as ranking

register = template.Library()


@register.simple_tag
@cache
def beacon_script():
    """The script that counts a view (static/js/beacon.js), unless counting is off. The
    same on every page: worked out once (not on each page: 0.06 ms of a 3 ms article page
    whose parts are kept), until a test changes the settings it comes from."""
    if not settings.READERSHIP_COUNTING:
        return ""
    return format_html(
        '<script src="{}" data-beacon="{}" defer></script>',
        static("js/beacon.js"),
        reverse("readership:beacon"),
    )


setting_changed.connect(lambda **kwargs: beacon_script.cache_clear(), weak=False)


@register.simple_tag(takes_context=True)
def most_read(context, leave_out=None, limit=None):
    """'Most read' as this page shows it (readership.most_read.Ranked), or None; the
    page then depends on the list and its articles."""
    return ranking.for_page(context["request"], leave_out=leave_out, limit=limit)
