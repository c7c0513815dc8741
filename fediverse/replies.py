"""Answers from the fediverse: replies to articles (held for moderation), likes and
boosts (counted once per actor, who is kept as a keyed hash only), and how an article
page shows them.

A reply is a ``Create`` of an object whose ``inReplyTo`` is an article (its object id or
its page); its author's ``Update`` and ``Delete`` are followed. Its HTML is sanitised by
the same allow-list as editors' Markdown (news.rendering), links marked nofollow."""

import nh3
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.dateparse import parse_datetime
from django.utils.safestring import mark_safe

from news import purge
from news.models import Article, RetiredSlug
from news.rendering import URL_SCHEMES
from pagecache import purges
from pagecache.dependencies import Dependency, depends_on
from pagecache.remembered import remember

from .actors import absolute
from .models import ArticleState, Reaction, Reply
from .remote import domain_of, first, ident

REPLIES = Dependency("replies", doc="A page shows this article's replies from the fediverse.")
# What a reply may hold: paragraphs, links and emphasis (Mastodon's own HTML), no images.
REPLY_TAGS = {"a", "br", "p", "span", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li"}
MAX_CONTENT = 20_000


def sanitise(html):
    return nh3.clean(
        html[:MAX_CONTENT],
        tags=REPLY_TAGS,
        attributes={"a": {"href", "title"}},
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow ugc",
        strip_comments=True,
    )


def article_at(uri):
    """The pk of the article whose object id or page is ``uri``, or None."""
    if not isinstance(uri, str) or not uri.startswith(absolute("/")):
        return None
    try:
        match = resolve(uri[len(absolute("")) :].split("?")[0].split("#")[0])
    except Resolver404:
        return None
    if match.view_name == "fediverse:article":
        pk = match.kwargs["pk"]
        return pk if pk < 2**63 else None
    if match.view_name == "news:article":
        slug = match.kwargs["slug"]
        pk = Article.objects.filter(slug=slug).values_list("pk", flat=True).first()
        if pk is None:
            pk = RetiredSlug.objects.filter(slug=slug).values_list("article_id", flat=True).first()
        return pk
    return None


def when(value):
    try:
        parsed = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # "2024-13-01T00:00:00Z": the shape of a date, not a date
        parsed = None
    if parsed is None or timezone.is_naive(parsed):
        return timezone.now()
    return parsed


def purge_replies(article_id):
    purge.on_commit(lambda: purges.purge({REPLIES(article_id)}))


def note_fields(note):
    url = ident(note.get("url"))
    content = note.get("content") if isinstance(note.get("content"), str) else ""
    return {
        "content": sanitise(content),
        "url": url if isinstance(url, str) and url.startswith(("https://", "http://")) else "",
    }


def received_create(note, remote):
    """A reply, if ``note`` (a Create's object) answers a public article."""
    if not isinstance(note, dict) or not isinstance(note.get("id"), str):
        return "ignored"
    if domain_of(note["id"]) != remote.domain or ident(note.get("attributedTo")) != remote.uri:
        return "ignored"  # only an actor's own posts, from its own server
    article_id = article_at(ident(note.get("inReplyTo")))
    if article_id is None or not Article.objects.published().filter(pk=article_id).exists():
        return "ignored"
    _, created = Reply.objects.get_or_create(
        uri=note["id"][:500],
        defaults={
            "article_id": article_id,
            "remote": remote,
            "published_at": when(note.get("published")),
            **note_fields(note),
        },
    )
    return "held for moderation" if created else "known"


def received_update(note, remote):
    if not isinstance(note, dict):
        return "ignored"
    reply = Reply.objects.filter(uri=note.get("id"), remote=remote).first()
    if reply is None:
        return "ignored"
    was_shown = reply.state == Reply.State.APPROVED
    for name, value in note_fields(note).items():
        setattr(reply, name, value)
    reply.updated_at = when(note.get("updated"))
    if was_shown:
        # Edited text is read again before it is shown: an approved reply cannot be
        # turned into something else afterwards.
        reply.state = Reply.State.PENDING
    reply.save()
    if was_shown:
        purge_replies(reply.article_id)
    return "reply updated, held for moderation again"


def received_delete(uri, remote):
    reply = Reply.objects.filter(uri=uri, remote=remote).first()
    if reply is None:
        return "ignored"
    reply.delete()
    if reply.state == Reply.State.APPROVED:
        purge_replies(reply.article_id)
    return "reply deleted"


COUNTERS = {Reaction.Kind.LIKE: "likes", Reaction.Kind.ANNOUNCE: "boosts"}


def actor_hash(uri):
    """How a Reaction names its actor: a hash keyed with the SECRET_KEY, so that the
    table says who liked what to no one without the key."""
    return salted_hmac("fediverse.reaction", uri, algorithm="sha256").hexdigest()


def counted(kind, obj, remote, undo=False):
    """A Like or Announce of an article by ``remote``, or (``undo``) its Undo: counted
    once per actor, whatever it sends again or at the same moment (the constraint
    fediverse_one_reaction_per_actor), and an Undo takes off only that actor's own."""
    article_id = article_at(ident(obj))
    if article_id is None or not Article.objects.published().filter(pk=article_id).exists():
        return "ignored"
    field = COUNTERS[kind]
    reaction = {"article_id": article_id, "kind": kind, "actor": actor_hash(remote.uri)}
    with transaction.atomic():
        if undo:
            taken, _ = Reaction.objects.filter(**reaction).delete()
            if not taken:
                return f"ignored: no {kind} of this actor's to undo"
        else:
            try:
                with transaction.atomic():
                    Reaction.objects.create(**reaction)
            except IntegrityError:
                return f"{field} counted before"
        ArticleState.objects.get_or_create(article_id=article_id)
        change = -1 if undo else 1
        ArticleState.objects.filter(article_id=article_id).update(
            **{field: Greatest(F(field) + change, 0)}
        )
    purge_replies(article_id)
    return f"{field} counted"


def received(activity, remote):
    """What the inbox does with an activity about replies, likes and boosts."""
    kind, obj = activity["type"], activity.get("object")
    if kind == "Create":
        return received_create(obj, remote)
    if kind == "Update":
        return received_update(obj, remote)
    if kind == "Delete":
        return received_delete(ident(obj), remote)
    if kind in COUNTERS:
        return counted(kind, obj, remote)
    if kind == "Undo" and isinstance(obj, dict) and obj.get("type") in COUNTERS:
        return counted(obj["type"], first(obj.get("object")), remote, undo=True)
    return "ignored"


def shown(article_id):
    """The approved replies and the counts, as the page shows them (HTML)."""
    replies = list(
        Reply.objects.filter(article_id=article_id, state=Reply.State.APPROVED).select_related(
            "remote"
        )
    )
    state = ArticleState.objects.filter(article_id=article_id).first()
    likes, boosts = (state.likes, state.boosts) if state else (0, 0)
    if not (replies or likes or boosts):
        return ""
    return render_to_string(
        "fediverse/replies.html", {"replies": replies, "likes": likes, "boosts": boosts}
    )


def for_page(request, article_id):
    """An article page's "Replies from the fediverse", kept until they change."""
    depends_on(request, REPLIES(article_id))
    html = remember(
        f"fediverse:replies:{article_id}", [REPLIES(article_id)], lambda: shown(article_id)
    )
    return mark_safe(html)


__all__ = ["for_page", "received", "sanitise"]
