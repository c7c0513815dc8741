from django import template

from fediverse import replies

register = template.Library()


@register.simple_tag(takes_context=True)
def fediverse_replies(context, article):
    """The article's approved replies from the fediverse, with its likes and boosts."""
    if not article.is_published():
        return ""
    return replies.for_page(context["request"], article.pk)
