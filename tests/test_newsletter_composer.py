"""One-off newsletter issues composed in the admin (issue 29): a draft that sends
nothing, a preview in HTML and plain text, a test to oneself through a real SMTP server,
then scheduled to every active subscriber; the figures of each issue."""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from newsletters.models import Delivery, Issue, Subscriber

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .test_newsletter_sending import subscriber

pytestmark = pytest.mark.django_db

ADD = "/admin/newsletters/issue/add/"


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("eddie", "eddie@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def compose(editor, *articles, button="_continue", due=None):
    due = due or timezone.now()
    return editor.post(
        ADD,
        {
            "subject": "The week in Rust",
            "intro": "Three releases, one theme.",
            "articles": [article.pk for article in articles],
            "due_at_0": due.strftime("%Y-%m-%d"),
            "due_at_1": due.strftime("%H:%M:%S"),
            button: "1",
        },
    )


def test_a_composed_issue_is_a_draft_that_sends_nothing(editor):
    response = compose(editor, ArticleFactory())
    assert response.status_code == 302, response.content.decode()[:3000]
    issue = Issue.objects.get(kind=Issue.Kind.ONE_OFF)
    assert issue.state == Issue.State.DRAFT
    assert not DBTaskResult.objects.filter(task_path="newsletters.tasks.send_issue").filter(
        args_kwargs__args=[issue.pk]
    )


def test_the_preview_shows_the_issue_as_readers_get_it(editor):
    compose(editor, ArticleFactory(title="Rust 1.90 ships"))
    issue = Issue.objects.get(kind=Issue.Kind.ONE_OFF)
    html = editor.get(f"/admin/newsletters/issue/{issue.pk}/preview/html/").content.decode()
    text = editor.get(f"/admin/newsletters/issue/{issue.pk}/preview/text/").content.decode()
    for part in (html, text):
        assert "Three releases, one theme." in part and "Rust 1.90 ships" in part
    assert 'style="' in html and "<style>@media (prefers-color-scheme: dark)" in html


def test_send_me_a_test_reaches_only_the_editor(editor, mail_server):  # noqa: F811
    subscriber("reader@example.org")
    compose(editor, ArticleFactory(), button="_send_test")
    (message,) = mail_server.messages()
    assert message["To"] == "eddie@example.org"
    assert message["Subject"] == "[Test] The week in Rust"
    assert not Delivery.objects.filter(issue__kind=Issue.Kind.ONE_OFF).exists()


def test_a_scheduled_issue_goes_to_every_active_subscriber_at_its_time(editor, mail_server):  # noqa: F811
    subscriber("each@example.org")
    subscriber("weekly@example.org", frequency=Subscriber.Frequency.WEEKLY)
    subscriber("pending@example.org", state=Subscriber.State.PENDING)
    story = ArticleFactory()
    run_queued()  # the story's own issue
    before = len(mail_server.messages())
    due = timezone.now() + timedelta(hours=2)
    compose(editor, story, button="_schedule", due=due)
    issue = Issue.objects.get(kind=Issue.Kind.ONE_OFF)
    assert issue.state == Issue.State.PLANNED
    run_queued()
    assert len(mail_server.messages()) == before  # not before its time
    with time_machine.travel(due + timedelta(minutes=1)):
        run_queued()
    got = sorted(m["To"] for m in mail_server.messages()[before:])
    assert got == ["each@example.org", "weekly@example.org"]
    page = editor.get("/admin/newsletters/issue/").content.decode()
    assert "The week in Rust" in page


def test_the_figures_of_an_issue_count_what_happened(editor, mail_server):  # noqa: F811
    subscriber("stays@example.org")
    leaves = subscriber("leaves@example.org")
    ArticleFactory(title="Counted")
    run_queued()
    leaves.leave()
    issue = Issue.objects.get(kind=Issue.Kind.STORY)
    page = editor.get(f"/admin/newsletters/issue/{issue.pk}/change/").content.decode()
    assert "2 recipients: 2 sent, 0 waiting, 0 refused" in page
    assert "since then 1 unsubscribed" in page


def test_a_writer_cannot_compose_an_issue(django_user_model):
    writer = django_user_model.objects.create_user("wendy", "w@example.org", "pw", is_staff=True)
    writer.groups.add(Group.objects.get(name="Writers"))
    client = Client()
    client.force_login(writer)
    assert client.get(ADD).status_code == 403
