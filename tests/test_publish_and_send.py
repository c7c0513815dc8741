"""Publishing with or without e-mail (issue 44, item 6): the workflow bar offers "Publish"
and "Publish and send", the site's default first; the choice is in the article's history
and its conversation; a story published without e-mail can be sent later from the bar,
once, whoever clicks how often."""

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from editorial.models import Note
from news.models import Article
from newsletters.models import Issue

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .test_newsletter_sending import subscriber
from .test_workflow import change_url, edit_data
from .test_workflow_bar import bar, buttons
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user(
        "grace", password="pw", is_staff=True, email="grace@example.org", first_name="Grace"
    )
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def send_url(article):
    return reverse("admin:news_article_send", args=[article.pk])


def primary(response):
    """The bar's buttons shown as its main action."""
    return re.findall(r'class="button default" name="_workflow" value="([a-z_]+)"', bar(response))


def history(article):
    from reversion.models import Version

    versions = Version.objects.get_for_object(article).order_by("revision__date_created")
    return [version.revision.comment for version in versions]


def story_issues(article):
    return Issue.objects.filter(kind=Issue.Kind.STORY, article=article)


def test_the_bar_offers_publish_and_send_first_by_default(editor):
    response = editor.get(change_url(ArticleFactory(status=Article.Status.REVIEW)))
    assert buttons(response)[1:3] == ["publish_send", "publish"]
    assert primary(response) == ["publish_send"]


def test_a_site_that_does_not_send_by_default_offers_publish_first(editor, settings):
    settings.SKILLO_EMAIL_STORIES_ON_PUBLISH = False
    response = editor.get(change_url(ArticleFactory(status=Article.Status.REVIEW)))
    assert buttons(response)[1:3] == ["publish", "publish_send"]
    assert primary(response) == ["publish"]


def test_publish_alone_e_mails_no_one_and_says_so(editor, mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory(status=Article.Status.REVIEW)
    response = editor.post(
        change_url(article), edit_data(article, _workflow="publish"), follow=True
    )
    run_queued()
    assert Article.objects.published().filter(pk=article.pk).exists()
    assert mail_server.messages() == []
    assert not story_issues(article).filter(state=Issue.State.PLANNED).exists()
    assert history(article)[-1] == "Published, not sent to subscribers"
    assert Note.objects.get(article=article).step == "Published, not sent to subscribers"
    assert "it was not e-mailed to subscribers" in response.content.decode()


def test_publish_and_send_e_mails_the_subscribers(editor, mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory(status=Article.Status.REVIEW)
    editor.post(change_url(article), edit_data(article, _workflow="publish_send"))
    run_queued()
    assert [message["To"] for message in mail_server.messages()] == ["all@example.org"]
    assert history(article)[-1] == "Published and sent to subscribers"
    assert Note.objects.get(article=article).step == "Published and sent to subscribers"


def test_a_story_published_without_e_mail_is_sent_later_from_the_bar_once(
    editor,
    mail_server,  # noqa: F811
):
    subscriber("all@example.org")
    article = ArticleFactory(status=Article.Status.REVIEW)
    editor.post(change_url(article), edit_data(article, _workflow="publish"))
    shown = bar(editor.get(change_url(article)))
    assert "Send to subscribers…" in shown and f'formaction="{send_url(article)}"' in shown
    first = editor.post(send_url(article), follow=True)
    assert "is being e-mailed to subscribers" in first.content.decode()
    again = editor.post(send_url(article), follow=True)  # the second click of a double one
    assert "was sent to subscribers already" in again.content.decode()
    run_queued()
    assert [message["To"] for message in mail_server.messages()] == ["all@example.org"]
    assert history(article)[-1] == "Sent to subscribers"
    assert "Sent to subscribers by Grace" in editor.get(change_url(article)).content.decode()
    assert "Send to subscribers…" not in bar(editor.get(change_url(article)))


def test_a_story_e_mailed_when_published_is_not_offered_to_send(editor):
    article = ArticleFactory(status=Article.Status.REVIEW)
    editor.post(change_url(article), edit_data(article, _workflow="publish_send"))
    assert "send" not in buttons(editor.get(change_url(article)))
    assert "Send to subscribers" not in bar(editor.get(change_url(article)))


def test_a_writer_cannot_send_a_story(django_user_model):
    writer = django_user_model.objects.create_user("ada", password="pw", is_staff=True)
    writer.groups.add(Group.objects.get(name="Writers"))
    client = Client()
    client.force_login(writer)
    article = ArticleFactory(email_subscribers=False)
    assert client.post(send_url(article)).status_code == 403
    assert not story_issues(article).exists()


def test_scheduling_without_e_mail_sends_nothing_at_its_time(editor, settings):
    from datetime import timedelta

    from django.utils import timezone

    article = ArticleFactory(status=Article.Status.REVIEW)
    when = (timezone.localtime() + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    editor.post(change_url(article), edit_data(article, _workflow="schedule", _schedule_at=when))
    article.refresh_from_db()
    assert article.is_scheduled and not article.email_subscribers
    assert not story_issues(article).filter(state=Issue.State.PLANNED).exists()
    assert history(article)[-1].endswith(", not to be sent")
    # Chosen again at the same time, with e-mail: planned for its time.
    editor.post(
        change_url(article),
        edit_data(article, _workflow="schedule", _schedule_at=when, _schedule_send="1"),
    )
    (issue,) = story_issues(article)
    assert issue.state == Issue.State.PLANNED and issue.due_at == article.published_at


def test_the_schedule_panel_ticks_e_mail_as_the_site_default(editor, settings):
    article = ArticleFactory(status=Article.Status.REVIEW)
    assert 'name="_schedule_send" value="1" checked' in bar(editor.get(change_url(article)))
    settings.SKILLO_EMAIL_STORIES_ON_PUBLISH = False
    assert 'name="_schedule_send" value="1">' in bar(editor.get(change_url(article)))


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_editors_sending_a_story_at_the_same_moment_send_it_once(live_server, django_user_model):
    editor = django_user_model.objects.create_superuser("grace", "grace@example.org", "pw")
    article = ArticleFactory(email_subscribers=False)
    url = change_url(article)
    browsers = [Browser(live_server, editor) for _ in range(RACERS)]
    for browser in browsers:
        assert browser.get(url).status_code == 200
    responses = together([browser.sender(send_url(article), {}) for browser in browsers])
    assert outcomes(responses) == {302: RACERS}
    (issue,) = story_issues(article)
    assert issue.state == Issue.State.PLANNED
    sent_later = [c for c in history(article) if c == "Sent to subscribers"]
    assert len(sent_later) == 1
    assert Note.objects.filter(article=article, step="Sent to subscribers").count() == 1
