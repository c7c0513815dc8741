"""Draft -> ready for review -> scheduled or published, and back with a note: who may
choose what, who is told by e-mail, and what the history says."""

import socket
import subprocess
import sys
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.db import transaction
from django.tasks import TaskResultStatus
from django.test import Client, RequestFactory
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from reversion.models import Version

from editorial import workflow
from news.models import Article

from .background_tasks import run_queued
from .factories import ArticleFactory, AuthorFactory
from .redis_server import free_port
from .test_admin import form_data
from .test_workflow import ADD, change_url, edit_data
from .waiting import until

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model, django_capture_on_commit_callbacks):
    """A writer (with their byline) and two editors, each logged in. Their saves run
    what waits for the commit (the e-mails), as a real request's would."""
    clients = {}
    for name, group in [("wendy", "Writers"), ("eddie", "Editors"), ("edna", "Editors")]:
        user = django_user_model.objects.create_user(
            name, f"{name}@example.org", "pw", is_staff=True
        )
        user.groups.add(Group.objects.get(name=group))
        clients[name] = Committing(django_capture_on_commit_callbacks)
        clients[name].force_login(user)
        clients[name].user = user
    AuthorFactory(name="Wendy Writer", slug="wendy", user=clients["wendy"].user)
    return clients


class Committing(Client):
    """A client whose saves commit, after which a background worker runs what they
    queued (the e-mails), as in production."""

    def __init__(self, capture):
        super().__init__()
        self.capture = capture

    def post(self, *args, **kwargs):
        with self.capture(execute=True):
            response = super().post(*args, **kwargs)
        run_queued()
        return response


def history(article):
    return [
        version.revision.comment
        for version in Version.objects.get_for_object(article).order_by("revision__date_created")
    ]


def submit(people, **fields):
    response = people["wendy"].post(
        ADD, form_data(status="review", workflow_note="Ready when you are.", **fields)
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    return Article.objects.get(title="Go 1.22 released")


def test_a_writer_is_never_offered_publish(people):
    html = people["wendy"].get(ADD).content.decode()
    assert '<option value="review">Ready for review</option>' in html
    assert '<option value="published"' not in html
    html = people["eddie"].get(ADD).content.decode()
    assert '<option value="published"' in html


def test_a_writer_posting_published_anyway_is_told_what_to_do(people):
    response = people["wendy"].post(ADD, form_data(status="published"))
    assert response.context["adminform"].form.errors["status"] == [
        "You cannot publish or schedule articles: choose “Ready for review” and an editor will."
    ]
    assert not Article.objects.exists()


def test_submitting_tells_every_editor_with_the_note(people, mailoutbox):
    article = submit(people)
    assert article.status == "review" and not article.is_published()
    [mail] = mailoutbox
    assert sorted(mail.to) == ["eddie@example.org", "edna@example.org"]
    assert mail.subject == "[Skillo] Submitted for review: Go 1.22 released"
    assert "Ready when you are." in mail.body
    assert f"http://testserver{change_url(article)}" in mail.body
    assert history(article) == ["Submitted for review: Ready when you are."]


def test_the_mails_link_is_on_the_sites_address_whatever_host_the_save_came_by(
    people, mailoutbox, settings
):
    settings.ALLOWED_HOSTS = ["testserver", "internal.example"]
    settings.SKILLO_SITE_URL = "https://news.example"
    people["wendy"].defaults["HTTP_HOST"] = "internal.example"
    article = submit(people)
    [mail] = mailoutbox
    assert f"https://news.example{change_url(article)}" in mail.body
    assert "internal.example" not in mail.body


def test_sending_back_needs_a_note_and_tells_the_writer(people, mailoutbox):
    article = submit(people)
    mailoutbox.clear()
    response = people["eddie"].post(change_url(article), edit_data(article, status="draft"))
    assert response.context["adminform"].form.errors["workflow_note"] == [
        "Say what to change: the writer gets this note by e-mail."
    ]
    assert mailoutbox == []
    response = people["eddie"].post(
        change_url(article),
        edit_data(article, status="draft", workflow_note="Add the release notes as a source."),
    )
    assert response.status_code == 302
    [mail] = mailoutbox
    assert mail.to == ["wendy@example.org"]
    assert mail.subject == "[Skillo] Sent back to the writer: Go 1.22 released"
    assert "Add the release notes as a source." in mail.body
    assert history(article)[-1] == "Sent back to the writer: Add the release notes as a source."


def test_an_editor_schedules_from_the_form_and_the_writer_is_told(people, mailoutbox):
    article = submit(people)
    mailoutbox.clear()
    when = timezone.localtime(timezone.now() + timedelta(days=1)).replace(second=0, microsecond=0)
    # The writer's new tags become topics: the editor confirms them (issue 44, item 18).
    response = people["eddie"].post(
        change_url(article) + "?_new_topics=go&_new_topics=release",
        edit_data(
            article,
            status="published",
            published_at_0=when.date().isoformat(),
            published_at_1=when.strftime("%H:%M:%S"),
        ),
    )
    assert response.status_code == 302
    article.refresh_from_db()
    assert article.is_scheduled and article.published_at == when
    words = f"Scheduled for {when:%-d %B %Y, %H:%M %Z}, to be sent to subscribers"
    assert history(article)[-1] == words
    [mail] = mailoutbox
    assert mail.to == ["wendy@example.org"] and mail.subject.startswith(f"[Skillo] {words}")


def test_publishing_tells_the_writer(people, mailoutbox):
    article = submit(people)
    mailoutbox.clear()
    people["edna"].post(
        change_url(article) + "?_new_topics=go&_new_topics=release",
        edit_data(article, status="published"),
    )
    article.refresh_from_db()
    assert article.is_published()
    [mail] = mailoutbox
    assert mail.to == ["wendy@example.org"]
    assert mail.subject == "[Skillo] Published and sent to subscribers: Go 1.22 released"
    assert history(article)[-1] == "Published and sent to subscribers"


def test_the_history_speaks_an_editors_words(people):
    article = ArticleFactory(status="draft")
    response = people["eddie"].post(
        change_url(article), edit_data(article, body="## What happened\n\nNew words.")
    )
    assert response.status_code == 302
    words = history(article)[-1]
    assert words.startswith("Changed ") and "body" in words
    assert "loaded" not in words and "version" not in words


def test_a_mail_server_that_is_down_loses_no_save_and_the_mail_is_tried_again(
    people, settings, mailoutbox
):
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": 9, "timeout": 2},
        }
    }
    article = submit(people)
    assert article.status == "review"
    (queued,) = DBTaskResult.objects.all()
    assert queued.status == TaskResultStatus.READY  # to be tried again
    assert "ConnectionRefusedError" in queued.traceback
    # The server is back: the next try, once due, sends it.
    settings.MAILERS = {"default": {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}}
    with time_machine.travel(timezone.now() + timedelta(hours=1)):
        run_queued()
    [mail] = mailoutbox
    assert mail.subject == "[Skillo] Submitted for review: Go 1.22 released"


def workflow_tell(people, article):
    """What the admin's save does when a writer submits ``article``."""
    request = RequestFactory().post("/")
    request.user = people["wendy"].user
    article.status = Article.Status.REVIEW
    workflow.tell(request, article, workflow.step(Article.Status.DRAFT, article), "Read it.")


def test_a_save_that_rolls_back_queues_no_mail(people):
    article = ArticleFactory(status="draft")
    with pytest.raises(RuntimeError), transaction.atomic():
        workflow_tell(people, article)
        raise RuntimeError("the save failed")
    assert not DBTaskResult.objects.exists()


def takes_connections(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def test_mail_reaches_a_real_smtp_server(people, settings):
    """The whole way: Django's SMTP backend to aiosmtpd in its own process."""

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        until(lambda: takes_connections(port), "the SMTP server takes connections", 30)
        settings.MAILERS = {
            "default": {
                "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5},
            }
        }
        submit(people)  # the worker ran the task: the mail was sent before this returned
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=10)
    assert "Subject: [Skillo] Submitted for review: Go 1.22 released" in output
    assert "eddie@example.org" in output and "Ready when you are." in output
