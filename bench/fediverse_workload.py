"""bench/fediverse.py's steps inside the Django environment (``python -m
bench.fediverse_workload COMMAND``, printing JSON)."""

import json
import sys


def main(command, *args):
    import django

    django.setup()
    from datetime import timedelta

    from django.db.models import Count
    from django.utils import timezone

    from bench.fediverse_inboxes import address
    from fediverse.actors import site_actor
    from fediverse.models import Delivery, Follower, Instance, Publication, RemoteActor
    from news.models import Article

    if command == "seed":
        followers, instances, port = (int(value) for value in args)
        # The page the benchmark reads was published before anyone followed: its queued
        # announcement must not reach the followers seeded now.
        from django_tasks_db.models import DBTaskResult

        DBTaskResult.objects.all().delete()
        site = site_actor()
        now = timezone.now()
        remotes = []
        for n in range(followers):
            host = f"{address(n % instances)}:{port}"
            uri = f"http://{host}/users/f{n}"
            remotes.append(
                RemoteActor(
                    uri=uri, domain=address(n % instances), inbox=f"{uri}/inbox",
                    shared_inbox=f"http://{host}/inbox", key_id=f"{uri}#main-key",
                    username=f"f{n}", fetched_at=now,
                )
            )  # fmt: skip
        RemoteActor.objects.bulk_create(remotes, batch_size=2000)
        Follower.objects.bulk_create(
            [
                Follower(local=site, remote=remote, follow_uri=f"{remote.uri}#follow")
                for remote in RemoteActor.objects.all()
            ],
            batch_size=2000,
        )
        return {"public_key": site.public_key_pem, "followers": Follower.objects.count()}
    if command == "publish":
        now = timezone.now()
        article = Article(
            title=f"Benchmark story {args[0]}",
            summary="A story for the fediverse benchmark.",
            body="## What happened\n\nIt shipped.\n\n## Why it mattered\n\nPeople use it.",
            event_date=timezone.localdate() - timedelta(days=1),
            published_at=now,
            facts_verified=timezone.localdate().replace(day=1),
            status=Article.Status.PUBLISHED,
        )
        article.save()
        return {"article": article.pk, "path": article.get_absolute_url()}
    if command == "progress":
        article = int(args[0])
        states = dict(
            Delivery.objects.filter(article_id=article).values_list("state").annotate(Count("pk"))
        )
        return {
            "deliveries": states,
            "publications": Publication.objects.filter(article_id=article).count(),
            "instances_backed_off": Instance.objects.exclude(failures=0).count(),
        }
    if command == "forget":
        # Between runs: the instances' failures, so the next run starts alike.
        Instance.objects.all().delete()
        return {}
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
