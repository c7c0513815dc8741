"""The newsletters' background work: every e-mail is sent by the worker, queued in the
transaction of the change that causes it."""

from datetime import timedelta

from django.db import transaction
from django.tasks import task
from django.utils import timezone

from news.models import Article

from . import digests, issues, mail
from .models import Issue, Subscriber

# Sign-ups never confirmed are forgotten after this long (nothing kept without consent).
FORGET_PENDING_AFTER = timedelta(days=30)


@task(queue_name="urgent")
def send_confirmation(subscriber_id):
    subscriber = Subscriber.objects.get(pk=subscriber_id)
    # Confirmed or gone since it was queued: the link would lead nowhere.
    if subscriber.state != Subscriber.State.PENDING or not subscriber.confirm_nonce:
        return False
    mail.confirmation(subscriber).send()
    return True


@task(queue_name="urgent")
def send_welcome(subscriber_id):
    """After a confirmation: the way back to one's choices before any story comes."""
    subscriber = Subscriber.objects.filter(pk=subscriber_id).first()
    # Left (or erased) since it was queued: nothing to welcome them to.
    if subscriber is None or subscriber.state not in (
        Subscriber.State.ACTIVE,
        Subscriber.State.PAUSED,
    ):
        return False
    mail.welcome(subscriber).send()
    return True


@task(queue_name="urgent")
def send_already_subscribed(subscriber_id):
    subscriber = Subscriber.objects.get(pk=subscriber_id)
    if subscriber.state not in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
        return False
    mail.already_subscribed(subscriber).send()
    return True


@task
def forget_old_sign_ups():
    """Daily: sign-ups never confirmed."""
    pending, _ = Subscriber.objects.filter(
        state=Subscriber.State.PENDING, created_at__lt=timezone.now() - FORGET_PENDING_AFTER
    ).delete()
    return {"pending": pending}


@task
def send_issue(issue_id):
    """Plan an issue's deliveries, one per recipient, then queue their batches. Safe to
    run twice: a delivery exists once per pair, batches are queued once."""
    issue = Issue.objects.get(pk=issue_id)
    if issue.state != Issue.State.PLANNED:
        return "already planned"
    if issue.due_at > timezone.now():
        send_issue.using(run_after=issue.due_at).enqueue(issue.pk)  # its time was moved
        return "rescheduled"
    if issue.lists_stories:
        found = digests.stories(issue)
        if not found:
            issues.cancel(issue)
            return "cancelled: no story in its period"
        issues.plan_deliveries(issue, digests.recipients(issue, found))
    else:
        article = issues.story_article(issue)
        if article is None:
            issues.cancel(issue)
            return "cancelled: the story is not public"
        if not isinstance(article, Article):
            send_issue.using(run_after=article).enqueue(issue.pk)  # rescheduled for later
            return "rescheduled"
        issues.plan_deliveries(issue, issues.recipients(issue, article))
    with transaction.atomic():
        issue = Issue.objects.select_for_update().get(pk=issue.pk)
        if issue.state != Issue.State.PLANNED:
            return "already planned"
        count = 0
        for first, last, when, lane in issues.batches(issue):
            (send_batch.using(run_after=when) if when else send_batch).enqueue(
                issue.pk, first, last, lane
            )
            count += 1
        issue.state = Issue.State.SENDING
        issue.recipients = issue.deliveries.count()
        issue.save(update_fields=["state", "recipients"])
    if not count:
        # Sent to no one is not sent: the archive leaves it out.
        Issue.objects.filter(pk=issue.pk).update(state=Issue.State.CANCELLED)
    return f"{issue.recipients} recipients in {count} batches"


@task
def send_batch(issue_id, first_id, last_id, lane=None):
    """Send the queued deliveries of an issue with ids from first_id to last_id (of
    one provider, or of the rest: issues.batches), over one connection to the mail
    server."""
    return issues.send(issue_id, first_id, last_id, lane)


@task
def plan_digests():
    """Periodic: the latest daily and weekly digests, planned once each (a machine that
    was off plans only the latest of each kind)."""
    now = timezone.now()
    planned = []
    for kind in (Issue.Kind.DAILY, Issue.Kind.WEEKLY):
        end, defaults = digests.planned(kind, now)
        issue, created = Issue.objects.get_or_create(kind=kind, period_end=end, defaults=defaults)
        if created:
            send_issue.using(run_after=end).enqueue(issue.pk)
            planned.append(issue.pk)
    return planned
