from django import template
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def beacon_script():
    """The script that counts a view (static/js/beacon.js), unless counting is off."""
    if not settings.READERSHIP_COUNTING:
        return ""
    return format_html(
        '<script src="{}" data-beacon="{}" defer></script>',
        static("js/beacon.js"),
        reverse("readership:beacon"),
    )
