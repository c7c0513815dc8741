"""The newsletter's part of a story's reach (news.reach), counted from the deliveries
marked sent: the story's own e-mails, the digests of its day or week, one-offs that
chose it, the follow-ups of its corrections, and a live story's "Coverage ended"."""

from collections import Counter

from django.db.models import Count, Q

from news.reach import Figure, channel

from .models import Delivery, Issue


@channel
def newsletter(article):
    story = Issue.objects.filter(kind=Issue.Kind.STORY, article=article).first()
    if story is None:  # never published while the newsletter ran
        return []
    # The issues that carried it first, so that the deliveries are counted through their
    # index by issue rather than every delivery sent read.
    issues = dict(
        Issue.objects.filter(
            Q(pk=story.pk)
            # A digest lists the stories whose own issue fell in its period
            # (newsletters.digests).
            | Q(
                kind__in=[Issue.Kind.DAILY, Issue.Kind.WEEKLY],
                period_start__lte=story.due_at,
                period_end__gt=story.due_at,
            )
            | Q(kind=Issue.Kind.ONE_OFF, articles=article)
            | Q(kind=Issue.Kind.CORRECTION, correction__article=article)
            | Q(kind=Issue.Kind.LIVE_ENDED, article=article)
        )
        .distinct()
        .values_list("pk", "kind")
    )
    sent = Counter()
    for row in (
        Delivery.objects.filter(issue__in=issues, state=Delivery.State.SENT)
        .values("issue")
        .annotate(count=Count("pk"))
    ):
        sent[issues[row["issue"]]] += row["count"]
    kinds = Issue.Kind
    ending = []
    if kinds.LIVE_ENDED in issues.values():  # a live story whose coverage has ended
        ending = [
            Figure(
                "“Coverage ended” e-mails",
                sent[kinds.LIVE_ENDED],
                "What we know, to those who got the story",
            )
        ]
    return [
        Figure(
            "Newsletter e-mails of the story",
            sent[kinds.STORY] + sent[kinds.ONE_OFF],
            "as published, and one-offs",
        ),
        Figure(
            "Digest e-mails of its day or week",
            sent[kinds.DAILY] + sent[kinds.WEEKLY],
            "to subscribers of at least one of the period's stories",
        ),
        Figure("Correction notices sent", sent[kinds.CORRECTION], "to those who got the story"),
        *ending,
    ]
