from functools import cache

from django import template
from django.core.signals import setting_changed
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@cache
def addresses():
    """The script's, the stylesheet's and the portal's addresses: the same for every page
    (worked out once, not on each story page: 0.18 ms of a 3 ms page whose parts are kept),
    until a test changes the settings they come from."""
    return static("js/members.js"), static("members/members.css"), reverse("members:portal")


setting_changed.connect(lambda **kwargs: addresses.cache_clear(), weak=False)


@register.simple_tag
def member_script(article=None, signed_in=None):
    """The members' script (members/static/js/members.js). On a story's page, which is the
    same cached page for every reader, it asks /account/ for the personal part (signed
    in? saved?) only in a browser that has signed in; on the account's pages it notes
    whether this browser is signed in."""
    script, css, portal = addresses()
    if article is not None:
        data = format_html(
            'data-story="{}" data-conversation="{}" data-css="{}"',
            reverse("members:story", args=[article.pk]),
            reverse("members:conversation", args=[article.pk]),
            css,
        )
    else:
        data = format_html('data-signed-in="{}"', "yes" if signed_in else "no")
    return format_html(
        '<script src="{}" {} data-sign-in="{}" defer></script>', script, data, portal
    )
