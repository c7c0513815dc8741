"""The e-mail of a story: HTML from a template with its CSS inlined (css-inline: mail
clients drop <style> blocks; inlining is one function, where MJML would add a second
template language), a plain-text part, the headers bulk senders must carry (RFC 8058's
one-click unsubscribe, List-Id), a Message-ID made from the issue and the subscriber,
and a DKIM signature over all of them when a key is configured."""

from email.utils import formatdate
from urllib.parse import urlsplit

import css_inline
import dkim
from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from live.models import LiveCoverage
from news.templatetags.news import with_images

from . import plaintext
from .dkim_keys import private_key
from .links import absolute, preferences_url, story_url, unsubscribe_url

SIGNED_HEADERS = [
    b"from", b"to", b"subject", b"date", b"message-id", b"list-id",
    b"list-unsubscribe", b"list-unsubscribe-post", b"mime-version", b"content-type",
]  # fmt: skip


def site_host():
    return urlsplit(settings.SKILLO_SITE_URL).hostname or "localhost"


def list_unsubscribe(subscriber):
    targets = [f"<{unsubscribe_url(subscriber)}>"]
    if settings.NEWSLETTER_UNSUBSCRIBE_MAILTO:
        targets.append(f"<mailto:{settings.NEWSLETTER_UNSUBSCRIBE_MAILTO}?subject=unsubscribe>")
    return ", ".join(targets)


def story_context(article, correction=None):
    """What every subscriber's copy of a story shares (rendered once per batch)."""
    base = settings.SKILLO_SITE_URL.rstrip("/")
    lead = None
    if article.lead_image_id and article.lead_image.renditions_ready:
        from images.templatetags.images import feed_rendition

        lead = feed_rendition(article.lead_image)
    body = with_images(article.body_html, base)
    return {
        "article": article,
        "url": story_url(article.get_absolute_url()),
        "body": body,
        # The plain-text part, from the same HTML: the same pictures, numbered notes.
        "body_text": plaintext.text(body),
        "lead": lead,
        "lead_text": plaintext.picture(article.lead_image.alt, article.lead_image.credit)
        if lead
        else "",
        "base": base,
        "correction": correction,
        "correction_url": story_url(correction.get_absolute_url()) if correction else "",
    }


def live_ended_context(article):
    """A live story's end: "What we know" as the editors keep it, and when it ended."""
    coverage = LiveCoverage.objects.filter(pk=article.pk).first()
    # Coverage turned off since it ended: the story's own summary stands in.
    summary_html = coverage.summary_html if coverage else ""
    summary = with_images(summary_html, settings.SKILLO_SITE_URL.rstrip("/"))
    return {
        "coverage": coverage,
        "summary": summary,
        "summary_text": plaintext.text(summary),
    }


def digest_context(issue, stories):
    base = settings.SKILLO_SITE_URL.rstrip("/")
    return {
        "issue": issue,
        "stories": stories,
        "base": base,
        "url": absolute(issue.get_absolute_url()),
    }


def mail(issue, shared, subscriber):
    """The issue's e-mail to one subscriber (Django's EmailMultiAlternatives): the story,
    the follow-up of its correction, or the end of its live coverage."""
    template = {
        issue.Kind.CORRECTION: "correction",
        issue.Kind.STORY: "story",
        issue.Kind.LIVE_ENDED: "live_ended",
    }.get(issue.kind, "digest")
    context = {
        **shared,
        "archive_url": absolute(issue.get_absolute_url()),
        "subscriber": subscriber,
        "preferences_url": preferences_url(subscriber),
        "unsubscribe_url": unsubscribe_url(subscriber),
    }
    message = EmailMultiAlternatives(
        subject=issue.subject,
        body=render_to_string(f"newsletters/mail/{template}.txt", context),
        from_email=settings.NEWSLETTER_FROM_EMAIL,
        to=[subscriber.email],
        headers={
            "Message-ID": f"<issue-{issue.pk}.subscriber-{subscriber.pk}@{site_host()}>",
            "Date": formatdate(localtime=False, usegmt=True),
            "List-Id": f"Skillo newsletter <newsletter.{site_host()}>",
            "List-Unsubscribe": list_unsubscribe(subscriber),
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    html = inline(render_to_string(f"newsletters/mail/{template}.html", context))
    message.attach_alternative(html, "text/html")
    return message


# Styles on each element, as mail clients that drop <style> need; the dark-scheme rules
# (an @media block, which no element's style can hold) kept in the head.
inline = css_inline.CSSInliner(keep_at_rules=True).inline


def as_bytes(mail):
    message = mail.message()
    # Lines up to SMTP's 998: a List-Unsubscribe URL cannot be folded, and folding it
    # into encoded words would make it unreadable to mail clients.
    data = message.as_bytes(policy=message.policy.clone(linesep="\r\n", max_line_length=998))
    return sign(data)


def sign(data):
    """``data`` with a DKIM-Signature header first, when a key is set (DKIM_PRIVATE_KEY or
    DKIM_PRIVATE_KEY_FILE)."""
    key = private_key()
    if key is None:
        return data
    signature = dkim.sign(
        data,
        selector=settings.DKIM_SELECTOR.encode(),
        domain=settings.DKIM_DOMAIN.encode(),
        privkey=key,
        include_headers=SIGNED_HEADERS,
    )
    return signature.replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n") + data
