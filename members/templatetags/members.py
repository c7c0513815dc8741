from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

register = template.Library()


@register.simple_tag
def member_script(article=None, signed_in=None):
    """The members' script (members/static/js/members.js). On a story's page, which is the
    same cached page for every reader, it asks /account/ for the personal part (signed
    in? saved?) only in a browser that has signed in; on the account's pages it notes
    whether this browser is signed in."""
    if article is not None:
        data = format_html(
            'data-story="{}" data-conversation="{}" data-css="{}"',
            reverse("members:story", args=[article.pk]),
            reverse("members:conversation", args=[article.pk]),
            static("members/members.css"),
        )
    else:
        data = format_html('data-signed-in="{}"', "yes" if signed_in else "no")
    return format_html(
        '<script src="{}" {} data-sign-in="{}" defer></script>',
        static("js/members.js"),
        data,
        reverse("members:portal"),
    )
