"""Members' comments under stories: the rules a comment passes, what editing and
deleting may do, moderation, and the conversation a story shows (members' comments and
fediverse replies together, each marked with where it came from).

The conversation is a small public document of its own (/comments/<story>/), kept by the
page cache and Varnish under the story's COMMENTS key and fediverse's REPLIES key: a
comment shown, hidden or edited purges that key only, never the story's page."""

import re
from datetime import timedelta

import nh3
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import escape

from fediverse.models import Reply
from fediverse.replies import REPLIES
from news import purge
from newsletters import suppression
from newsletters.models import digest
from pagecache import purges
from pagecache.dependencies import Dependency
from ratelimits import counter

from .models import ClosedStory, Comment, CommentReport, CommentSettings, Member, Moderation

COMMENTS = Dependency("comments", doc="A story's conversation shows its members' comments.")
EDIT_MINUTES = 10
HOUR = 3600
MAX_CHARS = Comment._meta.get_field("body").max_length
URL = re.compile(r"https?://[^\s<>\"']+[^\s<>\"'.,;:!?)\]]")

CLOSED = "Comments on this story are closed."
BLOCKED = "You can no longer comment on Skillo."
TOO_NEW = "New members can comment {minutes} minutes after they first sign in."
TOO_MANY = "That is many comments in an hour: please wait a while before the next."
TOO_MANY_REPORTS = (
    "That is many reports from your address in an hour: the moderators have them; "
    "please wait a while before the next."
)
DUPLICATE = "You have posted this comment already."
EMPTY = "Write something first: the comment is empty."
TOO_LONG = "A comment has at most {limit:,} characters (this one has {count:,})."
NOT_A_THREAD = "Replies go under a comment shown on this story."
SUPPRESSED = "Mail to this address bounced or was marked as spam: it cannot comment."
TOO_LATE = "A comment can be edited for 10 minutes after it is posted."
NOT_TEXT = "The {what} holds a NUL character (\\0), which is not text: remove it and send again."
# Characters that show nothing and join nothing: a comment that differs from another only
# by them is the same comment (the duplicate check), so they are taken out. The joiners
# (U+200C, U+200D) stay: scripts and emoji sequences need them.
INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))


def render(text):
    """A member's plain text as HTML: paragraphs at blank lines, line breaks kept, web
    addresses as links marked nofollow ugc; everything else escaped, then sanitised."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n"))]
    html = "".join(
        "<p>{}</p>".format(
            "<br>".join(URL.sub(lambda m: f'<a href="{m[0]}">{m[0]}</a>', escape(line))
            for line in paragraph.split("\n"))
        )
        for paragraph in paragraphs
        if paragraph
    )  # fmt: skip
    return nh3.clean(
        html,
        tags={"p", "br", "a"},
        attributes={"a": {"href"}},
        url_schemes={"http", "https"},
        link_rel="nofollow ugc noopener noreferrer",
    )


def is_open(article, rules=None):
    rules = rules or CommentSettings.current()
    if ClosedStory.objects.filter(article=article).exists():
        return False
    if rules.close_after_days and article.published_at:
        return timezone.now() < article.published_at + timedelta(days=rules.close_after_days)
    return True


def purge_conversation(article_id, hard=False):
    """``hard`` when a comment leaves it (hidden, deleted, its author blocked): no cache
    may serve it again, not even while the conversation is fetched anew."""
    purge.on_commit(lambda: purges.purge({COMMENTS(article_id)}, hard=hard))


def as_text(value, what):
    """``value`` as text a database stores, or a ValidationError naming ``what``."""
    if "\x00" in (value or ""):
        raise ValidationError(NOT_TEXT.format(what=what))
    return value or ""


def clean_body(body):
    body = as_text(body, "comment").translate(INVISIBLE).strip()
    if not body:
        raise ValidationError(EMPTY)
    if len(body) > MAX_CHARS:
        raise ValidationError(TOO_LONG.format(limit=MAX_CHARS, count=len(body)))
    return body


@transaction.atomic
def post(member, article, body, client, parent_id=None):
    """A new comment by ``member`` (its state: shown at once or waiting), or a
    ValidationError saying why not. ``article`` is a published story."""
    member = Member.objects.select_for_update().get(pk=member.pk)
    body = clean_body(body)
    rules = CommentSettings.current()
    if member.blocked_at:
        raise ValidationError(BLOCKED)
    if not is_open(article, rules):
        raise ValidationError(CLOSED)
    if suppression.blocks_sign_up(member.email):
        raise ValidationError(SUPPRESSED)
    first = not member.comments.filter(state=Comment.State.APPROVED).exists()
    if first and comments_from(member):
        raise ValidationError(TOO_NEW.format(minutes=settings.COMMENT_MIN_MEMBER_MINUTES))
    parent = None
    if parent_id is not None:
        parent = Comment.objects.shown().filter(pk=parent_id, article=article, parent=None).first()
        if parent is None:
            raise ValidationError(NOT_A_THREAD)
    day_ago = timezone.now() - timedelta(days=1)
    if member.comments.filter(body=body, created_at__gte=day_ago).exists():
        raise ValidationError(DUPLICATE)
    per_member = f"members:comments:member:{member.pk}"
    per_client = f"members:comments:client:{digest(client)}"
    if counter.over(per_member, settings.COMMENTS_PER_MEMBER, HOUR) or counter.over(
        per_client, settings.COMMENTS_PER_CLIENT, HOUR
    ):
        raise ValidationError(TOO_MANY)
    held = first and rules.first_comment_waits
    comment = Comment.objects.create(
        article=article,
        member=member,
        parent=parent,
        body=body,
        body_html=render(body),
        state=Comment.State.PENDING if held else Comment.State.APPROVED,
    )
    if not held:
        purge_conversation(article.pk)
    return comment


def comments_from(member, now=None):
    """When a new member (none of whose comments is shown yet) may first comment, if that
    is still to come; else None."""
    start = member.created_at + timedelta(minutes=settings.COMMENT_MIN_MEMBER_MINUTES)
    if (now or timezone.now()) >= start:
        return None
    if member.comments.filter(state=Comment.State.APPROVED).exists():
        return None
    return start


def editable(comment, now=None):
    return comment.state in (Comment.State.APPROVED, Comment.State.PENDING) and (
        (now or timezone.now()) < comment.created_at + timedelta(minutes=EDIT_MINUTES)
    )


@transaction.atomic
def edit(comment, body):
    if not editable(comment):
        raise ValidationError(TOO_LATE)
    comment.body = clean_body(body)
    comment.body_html = render(comment.body)
    comment.edited_at = timezone.now()
    comment.save(update_fields=["body", "body_html", "edited_at"])
    if comment.state == Comment.State.APPROVED:
        purge_conversation(comment.article_id)


@transaction.atomic
def delete(comment):
    """The author's own delete: gone, or a marker where replies hang from it."""
    if comment.replies.exists():
        Comment.objects.filter(pk=comment.pk).update(
            state=Comment.State.DELETED, body="", body_html=""
        )
    else:
        comment.delete()
    purge_conversation(comment.article_id, hard=True)


def report(comment, client, reason=""):
    """A reader's report (one per client); False once the client reported it. A
    ValidationError once the client has sent COMMENT_REPORTS_PER_CLIENT reports this
    hour: reports reach the moderators, whom one address could otherwise flood."""
    if counter.over(
        f"members:reports:client:{digest(client)}", settings.COMMENT_REPORTS_PER_CLIENT, HOUR
    ):
        raise ValidationError(TOO_MANY_REPORTS)
    reason = as_text(reason, "reason")
    _, made = CommentReport.objects.get_or_create(
        comment=comment, client=digest(client), defaults={"reason": reason[:500]}
    )
    return made


@transaction.atomic
def moderate(comments, action, reason, user):
    """Approve or hide ``comments``, recording who did it and why."""
    state = {
        Moderation.Action.APPROVE: Comment.State.APPROVED,
        Moderation.Action.HIDE: Comment.State.HIDDEN,
    }[action]
    comments = list(comments.exclude(state=Comment.State.DELETED))
    Comment.objects.filter(pk__in=[c.pk for c in comments]).update(state=state)
    Moderation.objects.bulk_create(
        Moderation(action=action, comment=c, member_id=c.member_id, reason=reason, by=user)
        for c in comments
    )
    for article_id in {c.article_id for c in comments}:
        purge_conversation(article_id, hard=state == Comment.State.HIDDEN)
    return len(comments)


@transaction.atomic
def block(members, reason, user):
    """Block ``members``: their comments leave every story's conversation at once."""
    members = list(members.filter(blocked_at=None))
    Member.objects.filter(pk__in=[m.pk for m in members]).update(
        blocked_at=timezone.now(), blocked_reason=reason
    )
    Moderation.objects.bulk_create(
        Moderation(action=Moderation.Action.BLOCK, member=m, reason=reason, by=user)
        for m in members
    )
    articles = Comment.objects.filter(member__in=members).values_list("article_id", flat=True)
    for article_id in set(articles):
        purge_conversation(article_id, hard=True)
    return len(members)


def conversation(article):
    """The story's conversation (HTML): its members' comments, each with its replies,
    and its fediverse replies, in the order they were written. Three queries, however
    many there are."""
    shown = list(
        Comment.objects.filter(article=article)
        .filter(state__in=[Comment.State.APPROVED, Comment.State.DELETED])
        .filter(member__blocked_at=None)
        .select_related("member")
    )
    replies = {}
    for comment in shown:
        if comment.parent_id is not None and comment.state == Comment.State.APPROVED:
            replies.setdefault(comment.parent_id, []).append(comment)
    items = [
        {"kind": "comment", "at": c.created_at, "comment": c, "replies": replies.get(c.pk, [])}
        for c in shown
        if c.parent_id is None and (c.state == Comment.State.APPROVED or replies.get(c.pk))
    ]
    fediverse = Reply.objects.filter(article=article, state=Reply.State.APPROVED).select_related(
        "remote"
    )
    items += [{"kind": "fediverse", "at": r.published_at, "reply": r} for r in fediverse]
    items.sort(key=lambda item: item["at"])
    return render_to_string(
        "members/conversation.html",
        {"items": items, "article": article, "open": is_open(article)},
    )


__all__ = ["COMMENTS", "REPLIES", "conversation", "post"]
