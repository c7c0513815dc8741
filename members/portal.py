"""What the portal shows and does with a member's data: their newsletter (the very
Subscriber row and choices of newsletters' preferences page, matched by address), their
saved stories, what Skillo holds about them (the download) and erasing it."""

from django.db import transaction
from django.utils import timezone

from news.models import Article
from news.paths import absolute
from newsletters import suppression
from newsletters.models import Delivery, Subscriber, Suppressed, digest

from .comments import purge_conversation
from .models import BlockedAddress, Comment, SavedStory, SignInLink

RECEIVING = (Subscriber.State.ACTIVE, Subscriber.State.PAUSED)


def subscriber_of(member):
    return Subscriber.objects.with_address(member.email).first()


def saved_stories(member):
    """The member's saved stories that are public now, newest saved first."""
    return (
        SavedStory.objects.filter(member=member, article__in=Article.objects.published())
        .select_related("article")
        .only("saved_at", "article__slug", "article__title", "article__published_at")
    )


def own_comments(member):
    """The member's comments on stories public now, newest first, with their state."""
    return (
        member.comments.filter(article__in=Article.objects.published())
        .exclude(state=Comment.State.DELETED)
        .select_related("article")
        .only("body", "state", "created_at", "article__slug", "article__title")
        .order_by("-created_at", "-pk")
    )


def may_subscribe(member, subscriber):
    """Whether the portal may subscribe the address at once: the member proved it is
    theirs by following the link, and the button is their consent. Never an address
    that bounced or whose owner marked Skillo as spam."""
    if subscriber is not None and (subscriber.suppressed or subscriber.state in RECEIVING):
        return False
    return not suppression.blocks_sign_up(member.email)


@transaction.atomic
def subscribe(member):
    subscriber = Subscriber.objects.select_for_update().with_address(member.email).first()
    if not may_subscribe(member, subscriber):
        return False
    if subscriber is None:
        subscriber = Subscriber(email=member.email)
    subscriber.state = Subscriber.State.ACTIVE
    subscriber.source = "members' portal"
    subscriber.confirm_nonce = ""
    subscriber.confirmed_at = timezone.now()
    subscriber.left_at = None
    subscriber.save()
    return True


def when(value):
    return value.isoformat() if value else None


def export(member):
    """Everything Skillo holds about the member, as JSON-ready data."""
    subscriber = subscriber_of(member)
    data = {
        "member": {
            "email": member.email,
            "joined": when(member.created_at),
            "last_signed_in": when(member.last_signed_in_at),
        },
        "sessions": [
            {"signed_in": when(s.created_at), "ends": when(s.expires_at)}
            for s in member.sessions.order_by("created_at")
        ],
        "saved_stories": [
            {
                "title": saved.article.title,
                "url": absolute(saved.article.get_absolute_url()),
                "saved": when(saved.saved_at),
            }
            for saved in saved_stories(member)
        ],
        "comments": [
            {
                "story": comment.article.title,
                "url": absolute(comment.article.get_absolute_url()),
                "text": comment.body,
                "state": comment.state,
                "posted": when(comment.created_at),
                "edited": when(comment.edited_at),
            }
            for comment in member.comments.select_related("article").order_by("created_at")
        ],
        "newsletter": None,
    }
    if subscriber is not None:
        data["newsletter"] = {
            "state": subscriber.state,
            "frequency": subscriber.frequency,
            "every_story": subscriber.everything,
            "topics": sorted(subscriber.topics.values_list("name", flat=True)),
            "authors": sorted(subscriber.authors.values_list("name", flat=True)),
            "corrections": subscriber.corrections,
            "source": subscriber.source,
            "signed_up": when(subscriber.created_at),
            "confirmed": when(subscriber.confirmed_at),
            "left": when(subscriber.left_at),
            "mails": [
                {"subject": d.issue.subject, "state": d.state, "sent": when(d.sent_at)}
                for d in Delivery.objects.filter(subscriber=subscriber)
                .select_related("issue")
                .order_by("pk")
            ],
        }
    return data


@transaction.atomic
def erase(member):
    """GDPR art. 17: the member, their sessions, saved stories, comments, links and
    newsletter deleted; what stays is the address's keyed hash on the suppression list, so that it
    is not mailed again unasked (it may sign in or sign up again: that is new consent),
    and a blocked member's block, by the same hash."""
    subscriber = subscriber_of(member)
    if subscriber is not None and not subscriber.suppressed:
        suppression.erase(subscriber)
    else:
        if subscriber is not None:
            subscriber.delete()
        # A bounce or a complaint on the list stays what it is: erasing must not let
        # an address that refused Skillo's mail be mailed again.
        Suppressed.objects.get_or_create(
            address=digest(member.email), defaults={"reason": Suppressed.Reason.ERASED}
        )
    if member.blocked_at:
        BlockedAddress.objects.get_or_create(
            address=digest(member.email),
            defaults={"blocked_at": member.blocked_at, "reason": member.blocked_reason},
        )
    SignInLink.objects.filter(email__iexact=member.email).delete()
    conversations = set(member.comments.values_list("article_id", flat=True))
    member.delete()
    for article_id in conversations:
        purge_conversation(article_id, hard=True)
