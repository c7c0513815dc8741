"""The tasks bench/tasks.py queues, and its steps run inside the Django environment
(``python -m bench.task_workload COMMAND``, printing JSON)."""

import json
import sys

from django.tasks import task


@task
def noop():
    pass


@task
def write_row(name):
    """One row per name, however often it runs (a task must be safe to run twice)."""
    from news.models import Tag

    Tag.objects.get_or_create(name=name)


def main(command, *args):
    import django

    django.setup()
    from django.db import transaction
    from django_tasks_db.models import DBTaskResult

    from bench import task_workload as workload  # not __main__'s: workers import this name
    from news.models import Tag

    if command == "enqueue":
        kind, count, prefix = args[0], int(args[1]), args[2]
        with transaction.atomic():
            for n in range(count):
                if kind == "noop":
                    workload.noop.enqueue()
                else:
                    workload.write_row.enqueue(f"{prefix}{n}")
        return {"queued": count}
    if command == "count":
        prefix = args[0]
        statuses = dict.fromkeys(["READY", "RUNNING", "SUCCESSFUL", "FAILED"], 0)
        # The workload's tasks only: the workers also queue their periodic ones.
        ours = DBTaskResult.objects.filter(task_path__startswith="bench.task_workload.")
        for status in ours.values_list("status", flat=True):
            statuses[status] += 1
        return {"tasks": statuses, "rows": Tag.objects.filter(name__startswith=prefix).count()}
    if command == "article":
        from news.models import Article

        return {
            "path": Article.objects.published().order_by("-published_at").first().get_absolute_url()
        }
    if command == "clear":
        DBTaskResult.objects.all().delete()
        return {}
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
