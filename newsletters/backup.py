"""Newsletters in the whole-site backup: newsletters.jsonl (a textfiles.records part)
brings the issues back, but the tasks queued to send the planned ones stayed with the
old site; they are queued again here, in the restore's transaction."""

from django.utils import timezone

from .models import Issue
from .tasks import send_issue


def requeue_planned(sender=None, folder=None, **kwargs):
    now = timezone.now()
    for pk, due in Issue.objects.filter(state=Issue.State.PLANNED).values_list("pk", "due_at"):
        send_issue.using(run_after=due if due > now else None).enqueue(pk)
    return []
