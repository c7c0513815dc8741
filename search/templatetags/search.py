from django import template

from search.query import highlight as highlight_markers

register = template.Library()


@register.filter
def highlight(headline):
    """A search result's passage, escaped, with the matched words in <mark>."""
    return highlight_markers(headline)
