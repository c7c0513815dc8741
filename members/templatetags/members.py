from functools import cache

from django import template
from django.core.signals import setting_changed
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from fediverse import replies as fediverse_replies
from fediverse.replies import REPLIES
from pagecache import fragments
from pagecache.dependencies import depends_on

from .. import comments
from ..models import Comment

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


@register.simple_tag(takes_context=True)
def story_conversation(context, article):
    """A story's conversation in its page, as every reader sees it: its members' comments
    with its fediverse replies (comments.conversation()) once it has comments, else the
    fediverse replies alone. In the cached page itself rather than brought by the script
    after the page has shown: arriving late, it pushed what was below it down (the
    footer by 300 px on the demo's newest story). A comment shown purges the page
    (COMMENTS), as it purges the conversation's own address."""
    if not article.is_published():
        return ""
    request = context["request"]
    depends_on(request, comments.COMMENTS(article.pk))
    name = f"members:conversation:{article.pk}"
    deps = [comments.COMMENTS(article.pk), REPLIES(article.pk)]

    def build(_):
        shown = Comment.objects.filter(
            article=article,
            state__in=[Comment.State.APPROVED, Comment.State.DELETED],
            member__blocked_at=None,
        )
        return {name: (comments.conversation(article) if shown.exists() else "", deps)}

    ((html, _),) = fragments.kept([name], build).values()
    if not html:
        # Without the script, a link to the comment form's own page (with comments, the
        # conversation has it): the script brings the form itself.
        write = reverse("members:write", args=[article.pk])
        return format_html(
            '{}<noscript><p class="meta"><a href="{}">Write a comment</a></p></noscript>',
            fediverse_replies.for_page(request, article.pk),
            write,
        )
    depends_on(request, *deps)
    return mark_safe(html)
