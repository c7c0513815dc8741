"""bench/newsletter.py's steps inside the Django environment (``python -m
bench.newsletter_workload COMMAND``, printing JSON)."""

import json
import sys


def main(command, *args):
    import django

    django.setup()
    from datetime import timedelta

    from django.db.models import Count
    from django.utils import timezone

    from news.models import Article
    from newsletters.models import Delivery, Issue

    if command == "publish":
        # A save outside a transaction, as the admin's commits: the story's issue is
        # planned after it (news.purge's articles_changed).
        now = timezone.now()
        article = Article(
            title=f"Benchmark story {args[0]}",
            summary="A story for the newsletter benchmark.",
            body="## What happened\n\nIt shipped.\n\n## Why it mattered\n\nPeople use it.",
            event_date=timezone.localdate() - timedelta(days=1),
            published_at=now,
            facts_verified=timezone.localdate().replace(day=1),
            status=Article.Status.PUBLISHED,
        )
        article.save()
        issue = Issue.objects.get(kind=Issue.Kind.STORY, article=article)
        if list(args[1:]) == ["quiet"]:  # the page the benchmark reads: sent to no one
            Issue.objects.filter(pk=issue.pk).update(state=Issue.State.CANCELLED)
        return {"issue": issue.pk, "path": article.get_absolute_url()}
    if command == "progress":
        issue = Issue.objects.get(pk=int(args[0]))
        states = dict(
            Delivery.objects.filter(issue=issue).values_list("state").annotate(Count("pk"))
        )
        return {"state": issue.state, "recipients": issue.recipients, "deliveries": states}
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
