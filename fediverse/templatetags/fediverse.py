from django import template

from fediverse import replies
from fediverse.actors import handle_of

register = template.Library()


@register.simple_tag(takes_context=True)
def fediverse_replies(context, article):
    """The article's approved replies from the fediverse, with its likes and boosts."""
    if not article.is_published():
        return ""
    return replies.for_page(context["request"], article.pk)


@register.simple_tag
def fediverse_handle(thing=None):
    """The fediverse handle of the site, an author or a topic (``@name@host``)."""
    return handle_of(thing)
