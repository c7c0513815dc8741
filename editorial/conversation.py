"""The conversation on each article between its writers and the editors: every
workflow step and every note is a line of it (editorial.models.Note), shown at the top of
the article's form, and on the dashboard of whoever it is for until they open the form.
E-mail (editorial.workflow.tell) still goes out beside it."""

from django.db.models import Exists, F, OuterRef, Q, Subquery
from django.utils import timezone

from .models import Note, NotesSeen
from .roles import can_publish


def record(user, article, step_, text):
    """The save's line of the conversation, if it was a step or carried a note."""
    text = (text or "").strip()
    if step_ is None and not text:
        return None
    # A step goes to whom it tells; a remark to the other side.
    for_editors = step_.tell == "editors" if step_ is not None else not can_publish(user)
    return Note.objects.create(
        article=article,
        author=user,
        step=step_.name if step_ is not None else "",
        text=text,
        for_editors=for_editors,
    )


def seen_at(user, article):
    return (
        NotesSeen.objects.filter(user=user, article=article)
        .values_list("seen_at", flat=True)
        .first()
    )


def thread(user, article):
    """The article's conversation, each line with whether it is new to ``user``."""
    seen = seen_at(user, article)
    return [
        (note, note.author_id != user.pk and (seen is None or note.created_at > seen))
        for note in Note.objects.filter(article=article).select_related("author")
    ]


def mark_seen(user, article):
    NotesSeen.objects.update_or_create(
        user=user, article=article, defaults={"seen_at": timezone.now()}
    )


def unread_for(user):
    """Lines for ``user`` they have not seen: for an editor, those for the editors; for
    anyone, those for the writers of an article they sign or submitted. Newest first."""
    wrote = Q(article__authorships__author__user=user) | Exists(
        Note.objects.filter(article=OuterRef("article"), author=user, for_editors=True)
    )
    addressed = Q(for_editors=False) & wrote
    if can_publish(user):
        addressed |= Q(for_editors=True)
    seen = NotesSeen.objects.filter(user=user, article=OuterRef("article")).values("seen_at")
    return (
        Note.objects.filter(addressed)
        .exclude(author=user)
        .annotate(seen=Subquery(seen[:1]))
        .filter(Q(seen__isnull=True) | Q(created_at__gt=F("seen")))
        .select_related("author", "article")
        .order_by("-created_at")
        .distinct()
    )


def who(note):
    if note.author is None:
        return "someone"
    return note.author.get_full_name() or note.author.get_username()


def headline(note):
    """ "Sent back by Grace", "Submitted by Ada", "Note from Grace"."""
    if not note.step:
        return f"Note from {who(note)}"
    words = {
        "Sent back to the writer": "Sent back",
        "Submitted for review": "Submitted for review",
    }.get(note.step, note.step)
    return f"{words} by {who(note)}"


def from_release_desk(sender, tip, article, user, **kwargs):
    """A draft started from a release desk's tip (releases.desk.written_up) opens its
    conversation with the tip: the release and where it was reported."""
    links = ", ".join(link.url for link in tip.links.all()) or tip.release_url
    Note.objects.create(
        article=article,
        author=user,
        step="Started from the release desk",
        text=f"{tip.project.name} {tip.version}, released {tip.released_at:%Y-%m-%d %H:%M} UTC: "
        f"{links}",
    )
