"""The editorial workflow: draft -> ready for review -> scheduled or published, and back
to draft with a note. Which step a save is, the words the history keeps for it, and who
is told by e-mail (a task queued with the save: a failed save tells no one)."""

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from news.identity import absolute
from news.models import Article

from .roles import PUBLISH_PERMISSION
from .tasks import send_workflow_mail

SUBMITTED = "Submitted for review"
SENT_BACK = "Sent back to the writer"


SENT_LATER = "Sent to subscribers"


@dataclass(frozen=True)
class Step:
    name: str  # what the history says
    tell: str  # "editors", "writer" or ""
    kind: str = ""  # "published" or "scheduled": a publication, e-mailed or not
    when: str = ""  # a scheduled one's time, as the name says it


def emailed(article, scheduled=False):
    """The editor's choice of e-mail, as the history and the conversation keep it."""
    if scheduled:
        return "to be sent to subscribers" if article.email_subscribers else "not to be sent"
    return "and sent to subscribers" if article.email_subscribers else "not sent to subscribers"


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
        when = f"{timezone.localtime(article.published_at):%-d %B %Y, %H:%M %Z}"
        name = f"Scheduled for {when}, {emailed(article, scheduled=True)}"
        return Step(name, "writer", "scheduled", when)
    if article.email_subscribers:
        return Step(f"Published {emailed(article)}", "writer", "published")
    return Step(f"Published, {emailed(article)}", "writer", "published")


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
    # On the site's address: the mail leaves the site, whatever host the save came by.
    link = absolute(reverse("admin:news_article_change", args=[article.pk]))
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


# The workflow bar at the top of the article form: the article's state and the actions
# the user's role allows, each a submit button named _workflow (editorial.forms applies
# it). Those that need a word more (a time, a note, a confirmation) open below their
# button first.
ACTIONS = {
    "save": "Save draft",
    "submit": "Submit for review",
    # Ghost's two: publish only, or publish and e-mail it to the newsletter's subscribers;
    # the site's default (settings.SKILLO_EMAIL_STORIES_ON_PUBLISH) comes first.
    "publish": "Publish",
    "publish_send": "Publish and send",
    "schedule": "Schedule…",
    "send_back": "Send back with a note…",
    "unpublish": "Unpublish…",
    # A story published without e-mail, sent later (once).
    "send": "Send to subscribers…",
}


@dataclass(frozen=True)
class BarState:
    label: str  # "Draft", "Ready for review", "Scheduled for ...", "Published"
    when: object = None  # the publication time, for "Published 2 hours ago"
    live_url: str = ""


def state_of(article):
    if article is None or article.pk is None:
        return BarState("New draft")
    if article.status == Article.Status.REVIEW:
        return BarState("Ready for review")
    if article.status == Article.Status.DRAFT:
        return BarState("Draft")
    if article.is_scheduled:
        when = timezone.localtime(article.published_at)
        return BarState(f"Scheduled for {when:%-d %b %Y, %H:%M %Z}", when)
    return BarState("Published", article.published_at, article.get_absolute_url())


def actions_for(user, article):
    """The names of the actions ``user`` may take on ``article`` (None: a new one)."""
    status = None if article is None or article.pk is None else article.status
    publisher = user.has_perm(PUBLISH_PERMISSION)
    if status == Article.Status.PUBLISHED:
        if not publisher:
            return []
        if article.is_scheduled:
            return ["save", *publish_actions(), "schedule", "unpublish"]
        return ["save", "unpublish"] + ([] if article.email_subscribers else ["send"])
    actions = ["save"]
    if not publisher:
        return [*actions, "submit"] if status != Article.Status.REVIEW else actions
    actions += [*publish_actions(), "schedule"]
    if status == Article.Status.REVIEW:
        actions.append("send_back")
    return actions


def publish_actions():
    """Publish with and without e-mail, the site's default first."""
    if settings.SKILLO_EMAIL_STORIES_ON_PUBLISH:
        return ["publish_send", "publish"]
    return ["publish", "publish_send"]


def save_label(article):
    if article is None or article.pk is None or article.status == Article.Status.DRAFT:
        return "Save draft"
    return "Save changes"


def names(users):
    return ", ".join(sorted(user.get_full_name() or user.get_username() for user in users))


def outcome(request, article, step_):
    """What the editor is told once the save is done: the step and where it went."""
    url = absolute(article.get_absolute_url())
    title = f"“{article.title}”"
    if step_ is None:
        return None
    if step_.kind == "published":
        if article.email_subscribers:
            return f"Published {title}: {url}; it is being e-mailed to subscribers."
        return (
            f"Published {title}: {url}; it was not e-mailed to subscribers (“Send to "
            "subscribers” on the bar sends it, once)."
        )
    if step_.kind == "scheduled":
        mail = (
            "and e-mailed to subscribers then"
            if article.email_subscribers
            else "and not e-mailed to subscribers"
        )
        return f"{title} is scheduled for {step_.when}. It will be at {url}, {mail}."
    if step_.name == SUBMITTED:
        return (
            f"Submitted {title} for review: the editors see it first in their queue on the "
            "dashboard."
        )
    if step_.name == SENT_BACK:
        who = names(writers(article, request.user)) or "the writer"
        return f"Sent {title} back to {who} with your note."
    if step_.name == "Unpublished":
        return (
            f"Unpublished {title}: {url} no longer answers (readers get “not found”), feeds "
            "and the sitemap drop it, and the fediverse is told to delete it. It is a draft "
            "again."
        )
    return None
