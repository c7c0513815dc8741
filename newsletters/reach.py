"""The newsletter's part of a story's reach (news.reach), counted from the deliveries
marked sent: the story's own e-mails, the digests of its day or week, one-offs that
chose it, and the follow-ups of its corrections."""

from django.db.models import Count, Q

from news.reach import Figure, channel

from .models import Delivery, Issue


@channel
def newsletter(article):
    issue = Issue.objects.filter(kind=Issue.Kind.STORY, article=article).first()
    if issue is None:  # never published while the newsletter ran
        return []
    own = Q(issue=issue)
    # A digest lists the stories whose own issue fell in its period (newsletters.digests).
    digests = Q(
        issue__kind__in=[Issue.Kind.DAILY, Issue.Kind.WEEKLY],
        issue__period_start__lte=issue.due_at,
        issue__period_end__gt=issue.due_at,
    )
    one_offs = Q(issue__kind=Issue.Kind.ONE_OFF, issue__articles=article)
    corrections = Q(issue__kind=Issue.Kind.CORRECTION, issue__correction__article=article)
    sent = Delivery.objects.filter(state=Delivery.State.SENT).aggregate(
        own=Count("pk", filter=own | one_offs, distinct=True),
        digests=Count("pk", filter=digests, distinct=True),
        corrections=Count("pk", filter=corrections, distinct=True),
    )
    return [
        Figure("Newsletter e-mails of the story", sent["own"], "as published, and one-offs"),
        Figure(
            "Digest e-mails of its day or week",
            sent["digests"],
            "to subscribers of at least one of the period's stories",
        ),
        Figure("Correction notices sent", sent["corrections"], "to those who got the story"),
    ]
