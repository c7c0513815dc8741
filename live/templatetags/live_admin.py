from django import template
from django.urls import reverse
from django.utils.html import format_html

from live import desk
from live.stories import live_story_ids

register = template.Library()


@register.simple_tag(takes_context=True)
def live_desk_link(context, article):
    """On the article form: the way to its live desk, or to turn live coverage on."""
    user = context["request"].user
    if article.pk in live_story_ids():
        if not desk.can_post(user):
            return ""
        return format_html(
            '<p class="live-desk-link">This is a live story. <a class="button" href="{}">'
            "Open the live desk</a> to post entries without saving the article.</p>",
            reverse("admin:live_livecoverage_desk", args=[article.pk]),
        )
    if not desk.can_run(user):
        return ""
    return format_html(
        '<p class="live-desk-link"><a href="{}?article={}">Cover this story live</a>: '
        "short timestamped entries, posted from a desk of their own.</p>",
        reverse("admin:live_livecoverage_add"),
        article.pk,
    )
