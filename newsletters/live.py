"""Live coverage by e-mail: the story when coverage starts, if the editor chooses (live.
desk stores the choice as "Send to subscribers" does, so the story's own issue, once per
article, carries it), and when coverage ends a short "Coverage ended" with "What we know",
to the subscribers who get the story. Never an entry: a live story's e-mails are these
two at most.

The ending is planned inside the transaction that ends coverage, once per story: ended,
resumed and ended again, subscribers have had the summary and get nothing more (the
issue's constraint, one_ending_per_live_story)."""

from django.dispatch import receiver
from django.utils import timezone

from live.desk import coverage_ends

from .models import Issue
from .tasks import send_issue


@receiver(coverage_ends)
def plan_ending(sender, coverage, **kwargs):
    article = coverage.article
    if not article.is_published():
        return False  # readers never saw it: nothing to sum up to them
    issue, created = Issue.objects.get_or_create(
        kind=Issue.Kind.LIVE_ENDED,
        article_id=coverage.pk,
        defaults={
            "subject": f"Coverage ended: {article.title}",
            "due_at": timezone.now(),
        },
    )
    if created:
        send_issue.enqueue(issue.pk)
    return created
