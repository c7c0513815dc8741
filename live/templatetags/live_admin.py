from django import template
from django.urls import reverse
from django.utils.html import format_html

from live import desk
from live.stories import live_story_ids

register = template.Library()


@register.simple_tag(takes_context=True)
def live_desk_link(context, article):
    """On the article form, beside History among the object tools (a line of its own above
    the form pushed the body below the first screen): the way to its live desk, or to turn
    live coverage on."""
    user = context["request"].user
    if article.pk in live_story_ids():
        if not desk.can_post(user):
            return ""
        return format_html(
            '<li><a href="{}" title="Post entries without saving the article">Live desk</a></li>',
            reverse("admin:live_livecoverage_desk", args=[article.pk]),
        )
    if not desk.can_run(user):
        return ""
    return format_html(
        '<li><a href="{}?article={}" title="Short timestamped entries, posted from a desk of '
        'their own">Cover live</a></li>',
        reverse("admin:live_livecoverage_add"),
        article.pk,
    )
