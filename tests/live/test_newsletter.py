"""A live story by e-mail (issue 45): the story when coverage starts, if the editor ticks
it on the desk; "Coverage ended" with What we know when it ends, once; never an entry.
Through the newsletter's own issues, batches and suppression list, to a real SMTP server
(tests/mail_server.py)."""

import pytest
from django.test import Client
from reversion.models import Version

from live import desk
from live.models import LiveCoverage
from newsletters import suppression
from newsletters.models import Subscriber, Suppressed
from tests.background_tasks import run_queued
from tests.factories import ArticleFactory
from tests.mail_server import mail_server  # noqa: F401 (a fixture)
from tests.test_newsletter_sending import subscriber

pytestmark = pytest.mark.django_db

TITLE = "The keynote, live"


@pytest.fixture
def upcoming(db):
    """A story published without e-mail ("Publish"), its coverage not started."""
    article = ArticleFactory(title=TITLE, body="We follow the keynote.", email_subscribers=False)
    return LiveCoverage.objects.create(article=article, summary="- The keynote ran two hours.")


@pytest.fixture
def desk_client(editor):
    client = Client()
    client.force_login(editor)
    return client


def start(client, coverage, **data):
    return client.post(f"/admin/live/livecoverage/{coverage.pk}/start/", data, follow=True)


def end(client, coverage):
    return client.post(f"/admin/live/livecoverage/{coverage.pk}/end/", follow=True)


def text_of(message):
    return message.get_payload()[0].get_payload(decode=True).decode()


def html_of(message):
    return message.get_payload()[1].get_payload(decode=True).decode()


def test_starting_with_send_ticked_e_mails_the_story(upcoming, desk_client, mail_server):  # noqa: F811
    subscriber("all@example.org")
    response = start(desk_client, upcoming, email="on")
    assert f"“{TITLE}” is being e-mailed to subscribers." in response.content.decode()
    run_queued()
    (message,) = mail_server.messages()
    assert (message["To"], message["Subject"]) == ("all@example.org", TITLE)
    assert "We follow the keynote." in text_of(message)


def test_starting_with_send_ticked_is_in_the_storys_history_with_who_did_it(
    upcoming,
    desk_client,
    editor,
    mail_server,  # noqa: F811
):
    start(desk_client, upcoming, email="on")
    (version,) = Version.objects.get_for_object(upcoming.article)
    assert version.revision.comment == "Live coverage started, and the story sent to subscribers"
    assert version.revision.user == editor
    history = desk_client.get(f"/admin/news/article/{upcoming.article.pk}/history/")
    assert "Live coverage started, and the story sent to subscribers" in history.content.decode()


def test_the_desk_offers_to_send_unticked_and_starting_so_e_mails_no_one(
    upcoming,
    desk_client,
    mail_server,  # noqa: F811
):
    subscriber("all@example.org")
    page = desk_client.get(f"/admin/live/livecoverage/{upcoming.pk}/desk/").content.decode()
    assert '<input type="checkbox" name="email" id="live-start-email">' in page
    start(desk_client, upcoming)
    run_queued()
    assert LiveCoverage.objects.get().is_live
    assert mail_server.messages() == []
    assert not Version.objects.get_for_object(upcoming.article).exists()  # nothing to note


def test_entries_posted_after_the_story_was_sent_e_mail_nothing(
    upcoming,
    desk_client,
    editor,
    mail_server,  # noqa: F811
):
    subscriber("all@example.org")
    start(desk_client, upcoming, email="on")
    run_queued()
    for n in range(3):
        desk_client.post(
            f"/admin/live/livecoverage/{upcoming.pk}/post/",
            {"headline": f"Update {n}", "body": f"Entry {n}.", "key_event": "on"},
        )
    run_queued()
    assert [message["Subject"] for message in mail_server.messages()] == [TITLE]


def test_a_story_e_mailed_before_is_not_sent_again_when_coverage_starts(
    desk_client,
    mail_server,  # noqa: F811
):
    subscriber("all@example.org")
    coverage = LiveCoverage.objects.create(article=ArticleFactory(title=TITLE))  # "and send"
    run_queued()
    response = start(desk_client, coverage, email="on")
    assert "was e-mailed to subscribers before: a story is e-mailed once" in (
        response.content.decode()
    )
    run_queued()
    assert len(mail_server.messages()) == 1


def test_ending_e_mails_what_we_know_once(upcoming, desk_client, mail_server):  # noqa: F811
    subscriber("all@example.org")
    start(desk_client, upcoming)
    end(desk_client, upcoming)
    run_queued()
    (message,) = mail_server.messages()
    assert message["Subject"] == f"Coverage ended: {TITLE}"
    assert "What we know" in text_of(message)
    assert "The keynote ran two hours." in text_of(message)
    assert "<li>The keynote ran two hours.</li>" in html_of(message)
    assert upcoming.article.get_absolute_url() in text_of(message)
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Resumed and ended again: the summary went already.
    start(desk_client, upcoming)
    end(desk_client, upcoming)
    run_queued()
    assert len(mail_server.messages()) == 1


def test_the_archive_shows_the_ending_as_it_was_mailed_with_what_we_know(
    upcoming,
    desk_client,
    mail_server,  # noqa: F811
):
    from newsletters.models import Issue

    subscriber("all@example.org")
    start(desk_client, upcoming)
    end(desk_client, upcoming)
    run_queued()
    issue = Issue.objects.get(kind=Issue.Kind.LIVE_ENDED)
    archive = Client().get("/newsletter/archive/").content.decode()
    assert issue.get_absolute_url() in archive
    page = Client().get(issue.get_absolute_url()).content.decode()
    assert f"Coverage ended: {TITLE}" in page
    assert "What we know</h2><ul>\n<li>The keynote ran two hours.</li>" in page


def test_the_ending_goes_to_the_storys_subscribers_not_the_suppressed(
    upcoming,
    editor,
    mail_server,  # noqa: F811
):
    subscriber("all@example.org")
    subscriber("daily@example.org", frequency=Subscriber.Frequency.DAILY)
    subscriber("bounced@example.org")
    suppression.suppress("bounced@example.org", Suppressed.Reason.BOUNCED)
    desk.start_coverage(upcoming, editor)
    desk.end_coverage(upcoming, editor)
    run_queued()
    assert [message["To"] for message in mail_server.messages()] == ["all@example.org"]
