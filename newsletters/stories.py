"""Each story goes to its subscribers when it is published, scheduled ones at their time:
news.purge's ``articles_changed`` (after the commit) says when an article becomes public
or is scheduled, and an issue is planned for it. One issue per article, ever: a story
published again after it was unpublished is not mailed twice."""

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from news import purge
from news.models import Correction
from news.purge import articles_changed, publication_time

from .models import Issue
from .tasks import send_issue


@receiver(articles_changed)
def plan_stories(sender, changes, **kwargs):
    for pk, (old, new) in changes.items():
        due = publication_time(old, new)
        if due is None:
            continue
        with transaction.atomic():
            issue, created = Issue.objects.select_for_update().get_or_create(
                kind=Issue.Kind.STORY,
                article_id=pk,
                defaults={"subject": new.title, "due_at": due},
            )
            if not created:
                if issue.state != Issue.State.PLANNED:
                    continue  # sent (or cancelled) once: never again
                issue.due_at, issue.subject = due, new.title
                issue.save(update_fields=["due_at", "subject"])
            send_issue.using(run_after=due).enqueue(issue.pk)


@receiver(post_save, sender=Correction)
def plan_correction_follow_up(sender, instance, created, **kwargs):
    """A correction (not an update) to a story: a short follow-up to those who were sent
    it and asked to hear of corrections, after the commit."""
    if not created or instance.kind != Correction.Kind.CORRECTION:
        return

    def plan():
        article = instance.article
        with transaction.atomic():
            issue, created = Issue.objects.get_or_create(
                kind=Issue.Kind.CORRECTION,
                correction=instance,
                defaults={"article": article, "subject": f"Correction: {article.title}"},
            )
            if created:
                send_issue.enqueue(issue.pk)

    purge.on_commit(plan)
