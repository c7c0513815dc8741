"""Each story goes to its subscribers when it is published, scheduled ones at their time:
news.purge's ``articles_changed`` (after the commit) says when an article becomes public
or is scheduled, and an issue is planned for it, unless the editor published it without
sending (Article.email_subscribers, the workflow bar's "Publish"). Such a story may be
sent later (``email_choice_changed``). One issue per article, ever: a story published
again after it was unpublished is not mailed twice."""

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver
from django.utils import timezone

from news import purge
from news.models import Article, Correction
from news.purge import articles_changed, email_choice_changed, publication_time

from .models import Issue
from .tasks import send_issue

# A story issue not sent yet may be planned again (its time moved, or sent after all);
# one sent, being sent or cancelled never is.
NOT_SENT = (Issue.State.PLANNED, Issue.State.DRAFT)


def plan(article_id, subject, due):
    """Plan the story's issue for ``due``; False if it went out (or was cancelled)
    already."""
    with transaction.atomic():
        issue, created = Issue.objects.select_for_update().get_or_create(
            kind=Issue.Kind.STORY,
            article_id=article_id,
            defaults={"subject": subject, "due_at": due},
        )
        if not created:
            if issue.state not in NOT_SENT:
                return False
            issue.due_at, issue.subject, issue.state = due, subject, Issue.State.PLANNED
            issue.save(update_fields=["due_at", "subject", "state"])
        send_issue.using(run_after=due).enqueue(issue.pk)
    return True


def hold(article_id):
    """Not to be sent after all: a planned issue waits as a draft (its queued task finds
    it no longer planned), to be planned again if the editor sends the story later."""
    Issue.objects.filter(
        kind=Issue.Kind.STORY, article_id=article_id, state=Issue.State.PLANNED
    ).update(state=Issue.State.DRAFT)


@receiver(articles_changed)
def plan_stories(sender, changes, **kwargs):
    due_for = {pk: publication_time(old, new) for pk, (old, new) in changes.items()}
    due_for = {pk: due for pk, due in due_for.items() if due is not None}
    wanted = dict(Article.objects.filter(pk__in=due_for).values_list("pk", "email_subscribers"))
    for pk, due in due_for.items():
        if wanted.get(pk):
            plan(pk, changes[pk][1].title, due)
        else:
            hold(pk)


@receiver(email_choice_changed)
def follow_email_choice(sender, article, **kwargs):
    """Inside the editor's transaction: plan a story to be sent (now if it is public, at
    its time if scheduled) or hold it. True if an e-mail is planned."""
    if not article.email_subscribers:
        hold(article.pk)
        return False
    if article.is_published():
        return plan(article.pk, article.title, timezone.now())
    if article.is_scheduled:
        return plan(article.pk, article.title, article.published_at)
    return False


@receiver(post_save, sender=Correction)
def plan_correction_follow_up(sender, instance, created, **kwargs):
    """A correction (not an update) to a story: a short follow-up to those who were sent
    it and asked to hear of corrections, after the commit."""
    if not created or instance.kind != Correction.Kind.CORRECTION or purge.is_restoring():
        return

    def plan_follow_up():
        article = instance.article
        with transaction.atomic():
            issue, created = Issue.objects.get_or_create(
                kind=Issue.Kind.CORRECTION,
                correction=instance,
                defaults={"article": article, "subject": f"Correction: {article.title}"},
            )
            if created:
                send_issue.enqueue(issue.pk)

    purge.on_commit(plan_follow_up)
