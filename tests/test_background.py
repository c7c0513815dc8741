"""The background worker, in this process (background.worker): what runs, when a task is
tried again, when it fails for good, and periodic tasks. tests/test_background_workers.py
runs real worker processes (kill -9, SIGTERM)."""

import logging
import socket
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection, transaction
from django.tasks import TaskResultStatus
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from background import schedule
from background.models import PeriodicRun, WorkerBeat
from background.tasks import prune_results
from background.worker import Worker, check_clock
from members.tasks import send_sign_in_link
from news.models import Tag
from skillo.settings import base as base_settings

from . import background_tasks as tasks
from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def retries(settings):
    settings.SKILLO_TASK_RETRY_DELAY = 10
    settings.SKILLO_TASK_MAX_ATTEMPTS = 3
    settings.SKILLO_TASK_LEASE = 600
    settings.SKILLO_PERIODIC_TASKS = {}


def worker():
    return Worker("test-worker", batch=True)


def names():
    return set(Tag.objects.values_list("name", flat=True))


def test_a_task_queued_in_a_save_that_rolls_back_is_never_queued():
    with pytest.raises(RuntimeError), transaction.atomic():
        tasks.record.enqueue("never")
        raise RuntimeError("the save failed")
    assert not DBTaskResult.objects.exists()


def test_a_queued_task_runs_once_and_is_marked_done():
    result = tasks.record.enqueue("ran")
    tasks.run_queued(worker())
    assert names() == {"ran"}
    result.refresh()
    assert result.status == TaskResultStatus.SUCCESSFUL


def test_a_failed_task_is_tried_again_after_its_back_off_and_then_succeeds():
    result = tasks.flaky.enqueue("eventually")
    work = worker()
    tasks.run_queued(work)
    row = DBTaskResult.objects.get(id=result.id)
    assert (row.status, names()) == (TaskResultStatus.READY, {"eventually-tried"})
    assert "the receiver did not answer" in row.traceback
    assert row.run_after - timezone.now() == pytest.approx(
        timedelta(seconds=10), abs=timedelta(seconds=2)
    )
    tasks.run_queued(work)  # not due yet
    assert "eventually" not in names()
    with time_machine.travel(timezone.now() + timedelta(seconds=11)):
        tasks.run_queued(work)
    assert DBTaskResult.objects.get(id=result.id).status == TaskResultStatus.SUCCESSFUL
    assert "eventually" in names()


def test_the_back_off_doubles_with_each_try():
    result = tasks.always_fails.enqueue()
    work, waits, now = worker(), [], timezone.now()
    for _ in range(2):
        with time_machine.travel(now, tick=False):
            tasks.run_queued(work)
            waits.append((DBTaskResult.objects.get(id=result.id).run_after - now).total_seconds())
        now += timedelta(seconds=waits[-1] + 1)
    assert waits == [10, 20]


def test_a_task_that_keeps_failing_ends_failed_with_its_error_after_the_last_try():
    result = tasks.always_fails.enqueue()
    work, now = worker(), timezone.now()
    for _ in range(5):
        with time_machine.travel(now):
            tasks.run_queued(work)
        now += timedelta(hours=1)
    row = DBTaskResult.objects.get(id=result.id)
    assert row.status == TaskResultStatus.FAILED
    assert len(row.worker_ids) == 3  # SKILLO_TASK_MAX_ATTEMPTS
    assert row.exception_class_path == "builtins.ConnectionError"
    assert "the receiver did not answer" in row.traceback


def test_a_task_about_a_deleted_article_fails_at_once_and_the_next_task_runs():
    article = ArticleFactory()
    gone = tasks.about_article.enqueue(article.pk)
    article.delete()
    tasks.record.enqueue("next")
    tasks.run_queued(worker())
    row = DBTaskResult.objects.get(id=gone.id)
    assert (row.status, len(row.worker_ids)) == (TaskResultStatus.FAILED, 1)
    assert row.exception_class_path == "news.models.Article.DoesNotExist"
    assert "next" in names()


def test_a_task_whose_arguments_no_longer_fit_fails_at_once():
    result = tasks.record.enqueue("a", "surplus")
    tasks.run_queued(worker())
    row = DBTaskResult.objects.get(id=result.id)
    assert (row.status, row.exception_class_path) == (TaskResultStatus.FAILED, "builtins.TypeError")


def test_a_task_whose_worker_stopped_runs_again_once_its_lease_is_over():
    result = tasks.record.enqueue("again")
    run_all_but_claim = worker()
    row = run_all_but_claim.claim()  # claimed by a worker that then died
    assert row.status == TaskResultStatus.RUNNING
    tasks.run_queued(worker())
    assert "again" not in names()  # the lease still holds
    with time_machine.travel(timezone.now() + timedelta(seconds=601)):
        tasks.run_queued(worker())
    row = DBTaskResult.objects.get(id=result.id)
    assert (row.status, len(row.worker_ids)) == (TaskResultStatus.SUCCESSFUL, 2)
    assert "again" in names()


def test_a_long_task_is_left_to_its_worker_while_that_worker_is_alive():
    result = tasks.record.enqueue("long")
    worker().claim()  # claimed by "test-worker", still beating below
    later = timezone.now() + timedelta(seconds=601)
    WorkerBeat.objects.create(worker_id="test-worker", seen_at=later)
    with time_machine.travel(later):
        tasks.run_queued(Worker("another", batch=True))
    assert DBTaskResult.objects.get(id=result.id).worker_ids == ["test-worker"]
    assert "long" not in names()


def test_a_periodic_task_missed_for_a_week_is_queued_once(settings):
    settings.SKILLO_PERIODIC_TASKS = {"daily": ("tests.background_tasks.record", timedelta(days=1))}
    now = timezone.now()
    PeriodicRun.objects.create(name="daily", last_queued_at=now - timedelta(days=7))
    assert schedule.queue_due(now) == ["daily"]
    assert schedule.queue_due(now + timedelta(hours=1)) == []
    assert DBTaskResult.objects.count() == 1


def test_a_periodic_task_is_queued_again_once_its_period_is_over(settings):
    settings.SKILLO_PERIODIC_TASKS = {
        "daily": ("background.tasks.prune_results", timedelta(days=1))
    }
    now = timezone.now()
    assert schedule.queue_due(now) == ["daily"]  # never run: due at once
    assert schedule.queue_due(now + timedelta(hours=23)) == []
    assert schedule.queue_due(now + timedelta(hours=24)) == ["daily"]


def test_pruning_forgets_the_heartbeats_of_workers_gone_a_day():
    now = timezone.now()
    WorkerBeat.objects.create(worker_id="killed", seen_at=now - timedelta(days=2))
    WorkerBeat.objects.create(worker_id="alive", seen_at=now)
    prune_results.call()
    assert list(WorkerBeat.objects.values_list("worker_id", flat=True)) == ["alive"]


def test_pruning_forgets_old_successes_and_keeps_failures(settings):
    settings.SKILLO_TASK_MAX_ATTEMPTS = 1
    tasks.record.enqueue("old")
    failed = tasks.always_fails.enqueue()
    tasks.run_queued(worker())
    with time_machine.travel(timezone.now() + timedelta(days=8)):
        assert prune_results.call() == 1
    assert [str(pk) for pk in DBTaskResult.objects.values_list("id", flat=True)] == [failed.id]


# The queue in the admin: admins only.

QUEUE = "/admin/background/backgroundtask/"


def failed_task():
    result = tasks.always_fails.enqueue()
    row = DBTaskResult.objects.get(id=result.id)
    row.claim("test-worker")
    row.set_failed(ConnectionError("the receiver did not answer"))
    return row


def test_an_admin_sees_failed_tasks_with_their_error(admin_client):
    failed_task()
    page = admin_client.get(QUEUE + "?status__exact=FAILED")
    assert page.status_code == 200
    assert "always_fails" in page.content.decode()
    assert "ConnectionError" in page.content.decode()


def test_the_dashboard_counts_failed_tasks_for_admins(admin_client):
    failed_task()
    assert "1 task failed for good." in admin_client.get("/admin/").content.decode()


def test_editors_see_neither_the_queue_nor_its_count(client, django_user_model):
    editor = django_user_model.objects.create_user("ed", password="pw", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    failed_task()
    assert client.get(QUEUE).status_code == 403
    assert "failed for good" not in client.get("/admin/").content.decode()


def test_run_again_queues_a_failed_task_with_a_fresh_count_of_tries(admin_client):
    row = failed_task()
    admin_client.post(
        QUEUE,
        {"action": "run_again", "_selected_action": [str(row.pk)]},
    )
    row.refresh_from_db()
    assert (row.status, row.worker_ids) == (TaskResultStatus.READY, [])
    assert worker().claim().pk == row.pk  # due now


def test_discard_removes_a_failed_task(admin_client):
    row = failed_task()
    admin_client.post(
        QUEUE,
        {"action": "discard", "_selected_action": [str(row.pk)]},
    )
    assert not DBTaskResult.objects.exists()


def listed(page):
    """The task names of the changelist's rows, top to bottom."""
    return [row.task_name for row in page.context["cl"].result_list]


def test_the_admin_names_the_queue_background_tasks(admin_client):
    index = admin_client.get("/admin/").content.decode()
    assert "Background tasks" in index and "Task Results" not in index
    assert "<title>Select background task to view" in admin_client.get(QUEUE).content.decode()


def test_a_task_queued_without_a_delay_is_due_now_not_in_the_year_9999(admin_client):
    tasks.record.enqueue("waiting")
    page = admin_client.get(QUEUE).content.decode()
    assert '<td class="field-due">now</td>' in page
    assert "9999" not in page


def test_failed_tasks_are_listed_before_newer_ones(admin_client):
    failed_task()
    with time_machine.travel(timezone.now() + timedelta(minutes=5)):
        tasks.record.enqueue("newer")
    assert listed(admin_client.get(QUEUE)) == ["always_fails", "record"]


def test_periodic_tasks_that_ended_well_are_hidden_until_the_filter_shows_them(
    admin_client, settings
):
    settings.SKILLO_PERIODIC_TASKS = {
        "tick": ("tests.background_tasks.record", timedelta(minutes=1))
    }
    tasks.record.enqueue("ticked")
    tasks.run_queued(worker())
    failed_task()
    assert listed(admin_client.get(QUEUE)) == ["always_fails"]
    assert listed(admin_client.get(QUEUE + "?periodic=shown")) == ["always_fails", "record"]


# Queues


def test_a_worker_on_every_queue_takes_the_urgent_task_first():
    tasks.record.enqueue("bulk")
    tasks.record.using(queue_name="urgent").enqueue("urgent")
    Worker("both", batch=True).run_one()
    assert list(Tag.objects.values_list("name", flat=True)) == ["urgent"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("2", "'2' is a count; workers are counted by queue now, such as urgent:1,default:2"),
        ("default:2,remote:1", "no worker for the urgent queue"),
        ("urgent:1,default:2", r"no worker for the remote queue .* \(add remote:1\)"),
        ("urgent:1,default:x", "'default:x' needs a number of workers"),
        ("urgent:1,default:1,bulk:1", "unknown queue 'bulk'"),
    ],
)
def test_run_workers_refuses_workers_it_cannot_start_for_every_queue(spec, message):
    with pytest.raises(CommandError, match=message):
        call_command("run_workers", "--workers", spec)


# /health/ and manage.py tasks_status


def test_health_answers_the_queues_depth_and_its_oldest_waiting_task(client):
    with time_machine.travel(timezone.now() - timedelta(seconds=90)):
        tasks.record.enqueue("waiting")
    tasks.record.enqueue("also waiting")
    response = client.get("/health/")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]
    health = response.json()
    assert health["tasks"]["queued"] == 2
    assert health["tasks"]["oldest_queued_seconds"] == pytest.approx(90, abs=5)


def test_health_shows_an_urgent_queue_waiting_with_no_worker_beside_a_busy_default(client):
    WorkerBeat.objects.create(worker_id="bulk", seen_at=timezone.now(), queues="default")
    with time_machine.travel(timezone.now() - timedelta(seconds=120)):
        send_sign_in_link.enqueue("reader@example.org")
    tasks.record.enqueue("bulk")
    queues = client.get("/health/").json()["tasks"]["queues"]
    assert (queues["urgent"]["queued"], queues["urgent"]["workers"]) == (1, 0)
    assert queues["urgent"]["oldest_queued_seconds"] == pytest.approx(120, abs=5)
    assert (queues["default"]["queued"], queues["default"]["workers"]) == (1, 1)


def refuse(execute, sql, params, many, context):
    raise OperationalError("connection refused")


def test_health_is_503_when_the_database_cannot_be_reached(client):
    with connection.execute_wrapper(refuse):
        response = Client(raise_request_exception=False).get("/health/")
    assert response.status_code == 503


def test_readiness_is_503_when_the_database_cannot_be_reached(client):
    with connection.execute_wrapper(refuse):
        response = Client(raise_request_exception=False).get("/health/ready/")
    assert response.status_code == 503
    assert response.json()["status"] == "database unavailable"


def test_liveness_answers_a_probe_naming_the_server_by_its_address(settings):
    # Varnish's and balancers' probes send the app server's address as the Host, which
    # ALLOWED_HOSTS (the site's public name) does not list: a 400 would make every server sick.
    settings.ALLOWED_HOSTS = ["news.example.org"]
    probe = Client(HTTP_HOST="10.0.0.7:8001", raise_request_exception=False)
    assert probe.get("/health/live/").status_code == 200
    assert probe.get("/health/ready/").status_code == 400


def test_liveness_answers_while_the_database_cannot_be_reached(client):
    with connection.execute_wrapper(refuse):
        response = Client(raise_request_exception=False).get("/health/live/")
    assert response.status_code == 200
    assert "no-cache" in response["Cache-Control"]


def test_readiness_is_ok_with_the_database_cache_and_queue_answering(client):
    response = client.get("/health/ready/")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}


def test_tasks_status_prints_the_counts_and_the_latest_failure():
    failed_task()
    tasks.record.enqueue("waiting")
    out = StringIO()
    call_command("tasks_status", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("1 queued")
    assert "1 failed" in lines[0]
    assert lines[1:4] == [
        "  urgent: 0 queued (oldest waiting 0 s), 0 running, 0 failed; 0 workers.",
        "  default: 1 queued (oldest waiting 0 s), 0 running, 1 failed; 0 workers.",
        "  remote: 0 queued (oldest waiting 0 s), 0 running, 0 failed; 0 workers.",
    ]
    assert "tests.background_tasks.always_fails" in lines[4]
    assert "the receiver did not answer" in lines[4]


# Skillo's own periodic tasks, as the settings name them


@pytest.mark.parametrize("name", sorted(base_settings.SKILLO_PERIODIC_TASKS))
def test_each_periodic_task_of_the_settings_is_queued_and_runs(settings, name):
    path, _ = base_settings.SKILLO_PERIODIC_TASKS[name]
    settings.SKILLO_PERIODIC_TASKS = {name: base_settings.SKILLO_PERIODIC_TASKS[name]}
    assert schedule.queue_due() == [name]
    tasks.run_queued(worker())
    # (It may queue work of its own: plan-digests queues the digests it plans.)
    (row,) = DBTaskResult.objects.filter(task_path=path)
    assert row.status == TaskResultStatus.SUCCESSFUL, row.traceback


def test_a_worker_whose_clock_is_off_refuses_to_start_and_says_why(settings):
    settings.SKILLO_TASK_LEASE = 60
    ahead = time_machine.travel(timezone.now() + timedelta(seconds=40))
    refused = pytest.raises(CommandError, match=r"40 s ahead of the database's.*run NTP")
    with ahead, refused:
        call_command("run_worker", "--batch", verbosity=0)


def test_a_worker_within_a_quarter_lease_of_the_database_may_start(settings):
    settings.SKILLO_TASK_LEASE = 60
    with time_machine.travel(timezone.now() - timedelta(seconds=10)):
        assert check_clock() == pytest.approx(-10, abs=2)


def test_a_mail_task_that_cannot_reach_the_smtp_server_names_it_in_the_log(settings, caplog):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    settings.SKILLO_TASK_MAX_ATTEMPTS = 1
    settings.MAILERS = {
        "default": {
            "BACKEND": "newsletters.backends.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5},
        }
    }
    result = send_sign_in_link.enqueue("reader@example.org")
    with caplog.at_level(logging.ERROR, logger="background"):
        worker().run_one()
    assert DBTaskResult.objects.get(id=result.id).status == TaskResultStatus.FAILED
    assert f"the SMTP server 127.0.0.1:{port} could not be reached" in caplog.text
