"""The editorial workflow: draft -> ready for review -> scheduled or published, and back
to draft with a note. Which step a save is, the words the history keeps for it, and who
is told by e-mail (a task queued with the save: a failed save tells no one)."""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from news.models import Article

from .roles import PUBLISH_PERMISSION
from .tasks import send_workflow_mail

SUBMITTED = "Submitted for review"
SENT_BACK = "Sent back to the writer"


@dataclass(frozen=True)
class Step:
    name: str  # what the history says
    tell: str  # "editors", "writer" or ""


def step(old_status, article):
    """The workflow step of saving ``article`` (as it will be saved) over
    ``old_status`` (None for a new article), or None for an edit that is no step."""
    status = article.status
    if status == old_status and not (status == Article.Status.PUBLISHED and old_status is None):
        return None
    if status == Article.Status.REVIEW:
        return Step(SUBMITTED, "editors")
    if status == Article.Status.DRAFT:
        if old_status == Article.Status.REVIEW:
            return Step(SENT_BACK, "writer")
        if old_status == Article.Status.PUBLISHED:
            return Step("Unpublished", "writer")
        return None
    if article.published_at > timezone.now():
        when = timezone.localtime(article.published_at)
        return Step(f"Scheduled for {when:%-d %B %Y, %H:%M %Z}", "writer")
    return Step("Published", "writer")


def history_words(step_, note):
    if step_ is None:
        return note
    return f"{step_.name}: {note}" if note else step_.name


def editors(exclude):
    """Active accounts that may publish and have an e-mail address."""
    users = get_user_model().objects.filter(is_active=True).exclude(email="")
    may_publish = Q(is_superuser=True)
    label, codename = PUBLISH_PERMISSION.split(".")
    for path in ("user_permissions", "groups__permissions"):
        may_publish |= Q(
            **{f"{path}__content_type__app_label": label, f"{path}__codename": codename}
        )
    return users.filter(may_publish).exclude(pk=exclude.pk).distinct()


def writers(article, exclude):
    """Who wrote it: the accounts of its authors, and whoever last submitted it."""
    ids = set(article.authorships.exclude(author__user=None).values_list("author__user", flat=True))
    submitted = (
        Version.objects.get_for_object(article)
        .filter(revision__comment__startswith=SUBMITTED)
        .values_list("revision__user", flat=True)
        .first()
    )
    if submitted:
        ids.add(submitted)
    return (
        get_user_model()
        .objects.filter(pk__in=ids, is_active=True)
        .exclude(email="")
        .exclude(pk=exclude.pk)
    )


def tell(request, article, step_, note):
    """E-mail the other side of ``step_``, through a task queued with the save."""
    if step_ is None or not step_.tell:
        return
    people = editors(request.user) if step_.tell == "editors" else writers(article, request.user)
    addresses = sorted(user.email for user in people)
    if not addresses:
        return
    link = request.build_absolute_uri(reverse("admin:news_article_change", args=[article.pk]))
    who = request.user.get_full_name() or request.user.get_username()
    subject = f"[Skillo] {step_.name}: {article.title}"
    lines = [f"{who}: {step_.name.lower()}, “{article.title}”."]
    if note:
        lines += ["", "Their note:", note]
    lines += ["", f"Open it: {link}"]
    body = "\n".join(lines) + "\n"
    # Queued with the save: sent by a background worker once it commits, nothing if it
    # rolls back, and tried again while the mail server is down.
    send_workflow_mail.enqueue(subject, body, addresses)
