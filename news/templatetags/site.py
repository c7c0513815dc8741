"""The parts of every page that are the same on every page: rendered once, not per request.

base.html's head links, footer and header topics took about 0.9 ms of each page's
1.3 ms of layout (two dozen reversed addresses and static file names, six Tag objects
for the header), a quarter of an uncached list page. The head links and the footer
change only with the code, so each process renders them once per template (a template
edited under runserver is a new Template object, so it is rendered again); the header's
topics change with the topics, so they are kept in the cache until TOPICS is purged.
"""

import functools
import hashlib

from django import template
from django.conf import settings
from django.template import Context
from django.template.loader import get_template, render_to_string
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import mark_safe

from pagecache.remembered import remember

from ..dependencies import TOPICS

register = template.Library()

NAV_TEMPLATE = "includes/site_nav.html"


@functools.lru_cache(maxsize=64)
def _rendered(template, urlconf, prefix, static_url):
    # The other arguments are part of the cache key only: reverse() and {% static %}
    # read them themselves.
    return mark_safe(template.render(Context()))


@register.simple_tag
def site_fragment(name):
    """The template ``name``, which must need no context, rendered once per process."""
    # The engine's own Template, which its cached loader keeps: the wrapper get_template()
    # returns is new at each call.
    template = get_template(name).template
    return _rendered(template, get_urlconf(), get_script_prefix(), settings.STATIC_URL)


@functools.cache
def _nav_version(source):
    return hashlib.blake2b(source.encode(), digest_size=8).hexdigest()


def _nav(topics):
    return render_to_string(NAV_TEMPLATE, {"main_tags": topics})


@register.simple_tag(takes_context=True)
def site_nav(context):
    """The header's links: to the latest articles, the main topics and all topics.

    Kept with the version of its template in its key, since a shared cache outlives a
    deploy. The error pages give ``main_tags`` as an empty list: they read neither the
    cache nor the database."""
    topics = context.get("main_tags", ())
    if not callable(topics):
        return mark_safe(_nav(topics))
    version = _nav_version(get_template(NAV_TEMPLATE).template.source)
    key = f"topics:nav:{version}:{get_script_prefix()}"
    return mark_safe(remember(key, [TOPICS()], lambda: _nav(topics())))
