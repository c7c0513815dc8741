"""Each story by e-mail (issue 29): sent once to the subscribers of its topics and
authors when it is published, through a real SMTP server, with one-click unsubscribe
headers and a DKIM signature that dkimpy verifies; a draft is never mailed, a scheduled
story goes at its time, and a mark that fails leaves the server nothing to deliver."""

import os
import re
import subprocess
import sys
from datetime import timedelta
from io import StringIO
from pathlib import Path

import dkim
import pytest
import time_machine
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.utils import timezone

from news.models import Article
from newsletters import sending
from newsletters.dkim_keys import dns_record
from newsletters.models import Delivery, Issue, Subscriber
from people.models import Author

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.django_db


def subscriber(email, **fields):
    topics, authors = fields.pop("topics", []), fields.pop("authors", [])
    fields.setdefault("state", Subscriber.State.ACTIVE)
    fields.setdefault("everything", not (topics or authors))
    person = Subscriber.objects.create(email=email, **fields)
    person.topics.set(topics)
    person.authors.set(authors)
    return person


def recipients(server):
    return sorted(message["To"] for message in server.messages())


def test_a_story_goes_to_the_subscribers_of_its_topics_and_authors_once(mail_server):  # noqa: F811
    ada = Author.objects.create(name="Ada Lovelace", slug="ada")
    rust = ArticleFactory(draft=True, tags=["rust"]).tags.get()
    go = ArticleFactory(draft=True, tags=["go"]).tags.get()
    subscriber("all@example.org")
    subscriber("rust@example.org", topics=[rust])
    subscriber("ada@example.org", authors=[ada])
    subscriber("go@example.org", topics=[go])
    subscriber("daily@example.org", frequency=Subscriber.Frequency.DAILY)
    subscriber("paused@example.org", state=Subscriber.State.PAUSED)
    subscriber("pending@example.org", state=Subscriber.State.PENDING)
    subscriber("left@example.org", state=Subscriber.State.UNSUBSCRIBED)
    ArticleFactory(title="Rust 1.90 ships", tags=["rust"], authors=[ada])
    run_queued()
    assert recipients(mail_server) == ["ada@example.org", "all@example.org", "rust@example.org"]
    assert {m["Subject"] for m in mail_server.messages()} == {"Rust 1.90 ships"}
    run_queued()  # nothing is sent twice
    assert len(mail_server.messages()) == 3
    assert Issue.objects.get(article__title="Rust 1.90 ships").state == Issue.State.SENT


def test_a_storys_links_name_the_newsletter_and_nothing_of_the_subscriber(mail_server):  # noqa: F811
    subscriber("ada@example.org")
    subscriber("grace@example.org")
    article = ArticleFactory(title="Rust 1.90 ships")
    run_queued()
    story = f"{article.get_absolute_url()}?ref=newsletter"
    for message in mail_server.messages():
        html = message.get_payload()[1].get_payload(decode=True).decode()
        text = message.get_payload()[0].get_payload(decode=True).decode()
        links = set(re.findall(r'href="https?://[^/"]+(/articles/[^"]*)"', html))
        assert links == {story}
        assert story in text


def test_a_draft_is_never_mailed(mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory(draft=True)
    article.title = "Still a draft"
    article.save()
    run_queued()
    assert mail_server.messages() == []
    assert not Issue.objects.exists()


def test_a_scheduled_story_goes_at_its_time_not_before(mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory(scheduled=True)
    run_queued()
    assert mail_server.messages() == []
    with time_machine.travel(article.published_at + timedelta(minutes=1)):
        run_queued()
    assert recipients(mail_server) == ["all@example.org"]


def test_a_story_published_again_after_an_unpublish_is_not_sent_twice(mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory()
    run_queued()
    article.status = Article.Status.DRAFT
    article.save()
    article.status = Article.Status.PUBLISHED
    article.save()
    run_queued()
    assert len(mail_server.messages()) == 1


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_story_published_by_several_editors_at_the_same_moment_is_one_issue(
    live_server, django_user_model
):
    editor = django_user_model.objects.create_superuser("grace", "grace@example.org", "pw")
    draft = ArticleFactory(draft=True)
    changelist = "/admin/news/article/"
    browsers = [Browser(live_server, editor) for _ in range(RACERS)]
    for browser in browsers:
        assert browser.get(changelist).status_code == 200
    publish = {"action": "publish_selected", "_selected_action": [draft.pk], "index": "0"}
    responses = together([browser.sender(changelist, publish) for browser in browsers])
    assert outcomes(responses) == {302: RACERS}
    assert Article.objects.published().filter(pk=draft.pk).exists()
    # One issue per article (the constraint one_story_issue_per_article).
    assert Issue.objects.filter(kind=Issue.Kind.STORY, article=draft).count() == 1


def test_a_story_unpublished_before_its_send_is_sent_to_no_one(mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory()
    Article.objects.filter(pk=article.pk).update(status=Article.Status.DRAFT)
    run_queued()
    assert mail_server.messages() == []
    assert Issue.objects.get().state == Issue.State.CANCELLED


def test_every_mail_carries_one_click_unsubscribe_that_works(mail_server):  # noqa: F811
    person = subscriber("all@example.org")
    ArticleFactory()
    run_queued()
    (message,) = mail_server.messages()
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    (url,) = re.findall(r"<(https?://[^>]+)>", message["List-Unsubscribe"])
    assert url.startswith("https://") or url.startswith("http://")
    path = "/" + url.split("://", 1)[1].split("/", 1)[1]
    response = Client(enforce_csrf_checks=True).post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    person.refresh_from_db()
    assert person.state == Subscriber.State.UNSUBSCRIBED


def test_the_mail_has_an_inlined_html_part_and_a_plain_text_one(mail_server):  # noqa: F811
    subscriber("all@example.org")
    ArticleFactory(title="Go 1.24", body="## What changed\n\nGenerics got *faster*.")
    run_queued()
    (message,) = mail_server.messages()
    parts = {part.get_content_type(): part for part in message.walk()}
    text = parts["text/plain"].get_payload(decode=True).decode()
    html = parts["text/html"].get_payload(decode=True).decode()
    assert "Generics got faster." in text and "/newsletter/unsubscribe/" in text
    # Styles inlined for the clients that drop <style>; only the dark-scheme rules left
    # in one, for those that read it.
    assert 'style="' in html
    (kept,) = re.findall(r"<style>(.*?)</style>", html, re.S)
    assert kept.strip().startswith("@media (prefers-color-scheme: dark)")
    assert "<em>faster</em>" in html
    assert message["Message-ID"].startswith("<issue-")


@pytest.fixture
def dkim_key(tmp_path, settings):
    path = tmp_path / "dkim.pem"
    subprocess.run(
        ["openssl", "genrsa", "-traditional", "-out", str(path), "2048"],
        check=True, capture_output=True,
    )  # fmt: skip
    settings.DKIM_DOMAIN = "news.example.org"
    settings.DKIM_SELECTOR = "mail2026"
    settings.DKIM_PRIVATE_KEY_FILE = str(path)
    return path


def test_the_mail_is_dkim_signed_over_its_unsubscribe_headers(mail_server, dkim_key):  # noqa: F811
    subscriber("all@example.org")
    ArticleFactory()
    run_queued()
    (message,) = mail_server.messages()
    signature = message["DKIM-Signature"]
    signed = re.search(r"h=([^;]+);", re.sub(r"\s+", "", signature))[1].lower().split(":")
    assert {"list-unsubscribe", "list-unsubscribe-post", "from", "subject"} <= set(signed)
    record = dns_record(dkim_key.read_bytes()).encode()

    def dns(name, timeout=5):
        assert name == b"mail2026._domainkey.news.example.org."
        return record

    assert dkim.verify(message.as_bytes(), dnsfunc=dns)


def test_the_mail_is_dkim_signed_with_the_key_from_the_environment(
    mail_server,  # noqa: F811
    dkim_key,
    settings,
):
    # The key itself in DKIM_PRIVATE_KEY, as every worker machine gets it: no file.
    settings.DKIM_PRIVATE_KEY = dkim_key.read_text()
    settings.DKIM_PRIVATE_KEY_FILE = ""
    dkim_key.unlink()
    subscriber("all@example.org")
    ArticleFactory()
    run_queued()
    (message,) = mail_server.messages()
    record = dns_record(settings.DKIM_PRIVATE_KEY.encode()).encode()

    def dns(name, timeout=5):
        assert name == b"mail2026._domainkey.news.example.org."
        return record

    assert dkim.verify(message.as_bytes(), dnsfunc=dns)


def manage(*command, **environ):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "skillo.settings.development", **environ}
    return subprocess.run(
        [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip


def test_dkim_private_key_may_write_its_line_breaks_as_backslash_n(dkim_key):
    # A variable in a systemd unit or a docker env file holds one line.
    pem = dkim_key.read_text()
    done = manage(
        "dkim_record",
        DKIM_DOMAIN="news.example.org",
        DKIM_PRIVATE_KEY=pem.strip().replace("\n", "\\n"),
        DKIM_PRIVATE_KEY_FILE="",
    )
    assert done.returncode == 0, done.stderr
    assert "".join(re.findall(r'"([^"]*)"', done.stdout)) == dns_record(pem.encode())


def test_a_dkim_key_set_twice_stops_the_start_naming_both(dkim_key):
    done = manage(
        "check",
        DKIM_DOMAIN="news.example.org",
        DKIM_PRIVATE_KEY=dkim_key.read_text(),
        DKIM_PRIVATE_KEY_FILE=str(dkim_key),
    )
    assert done.returncode != 0
    assert "Set DKIM_PRIVATE_KEY (the key) or DKIM_PRIVATE_KEY_FILE" in done.stderr


def test_dkim_record_prints_the_record_to_publish(dkim_key):
    out = StringIO()
    call_command("dkim_record", stdout=out)
    assert out.getvalue().startswith("mail2026._domainkey.news.example.org. IN TXT (")
    value = "".join(re.findall(r'"([^"]*)"', out.getvalue()))
    assert value == dns_record(dkim_key.read_bytes())


def test_a_mark_that_fails_leaves_the_server_nothing_and_the_retry_sends_once(
    mail_server,  # noqa: F811
    monkeypatch,
):
    subscriber("all@example.org")
    ArticleFactory()
    real = sending.SMTPTransport.send
    calls = []

    def fail_first_mark(self, sender, recipient, data, mark_sent):
        def mark(end):
            calls.append(recipient)
            if len(calls) == 1:
                raise ConnectionError("the database went away")
            return mark_sent(end)

        return real(self, sender, recipient, data, mark)

    monkeypatch.setattr(sending.SMTPTransport, "send", fail_first_mark)
    run_queued()
    # The connection was dropped mid-message: the server delivered nothing.
    assert mail_server.messages() == []
    assert Delivery.objects.get().state == Delivery.State.QUEUED
    with time_machine.travel(timezone.now() + timedelta(hours=1)):
        run_queued()
    assert recipients(mail_server) == ["all@example.org"]
    assert Delivery.objects.get().state == Delivery.State.SENT


def test_a_refused_address_is_marked_failed_and_the_rest_are_sent(mail_server, monkeypatch):  # noqa: F811
    subscriber("good@example.org")
    subscriber("bad@example.org")
    real = sending.SMTPTransport.send

    def refuse_bad(self, sender, recipient, data, mark_sent):
        if recipient == "bad@example.org":
            raise sending.Refused(550, "5.1.1 no such user")
        return real(self, sender, recipient, data, mark_sent)

    monkeypatch.setattr(sending.SMTPTransport, "send", refuse_bad)
    ArticleFactory()
    run_queued()
    assert recipients(mail_server) == ["good@example.org"]
    failed = Delivery.objects.get(subscriber__email="bad@example.org")
    assert failed.state == Delivery.State.FAILED and "no such user" in failed.error


def test_batches_are_paced_to_the_hourly_rate(settings):
    settings.NEWSLETTER_BATCH_SIZE = 2
    settings.NEWSLETTER_MAX_PER_HOUR = 4
    for n in range(5):
        subscriber(f"reader{n}@example.org")
    ArticleFactory()
    from django_tasks_db.models import DBTaskResult

    from newsletters.tasks import send_issue

    issue = Issue.objects.get()
    send_issue.call(issue.pk)
    batches = DBTaskResult.objects.filter(task_path="newsletters.tasks.send_batch")
    assert batches.count() == 3
    # Two messages a batch at four an hour: one batch at once, then one every 30 minutes.
    assert batches.ready().count() == 1
    later = sorted(row.run_after for row in batches.exclude(pk__in=batches.ready()))
    now = timezone.now()
    assert timedelta(minutes=29) < later[0] - now <= timedelta(minutes=30)
    assert later[1] - later[0] == timedelta(minutes=30)


def test_a_provider_with_a_rate_of_its_own_gets_its_share_at_that_rate(mail_server, settings):  # noqa: F811
    settings.NEWSLETTER_BATCH_SIZE = 2
    settings.NEWSLETTER_MAX_PER_HOUR_AT = [(("gmail.com", "googlemail.com"), 2)]
    for n in range(3):
        subscriber(f"reader{n}@Gmail.com")
    subscriber("reader@googlemail.com")
    subscriber("one@example.org")
    subscriber("two@example.net")
    ArticleFactory()
    run_queued()
    # Gmail's two an hour: its first batch now, its second an hour later; the rest at once.
    assert recipients(mail_server) == [
        "one@example.org",
        "reader0@Gmail.com",
        "reader1@Gmail.com",
        "two@example.net",
    ]
    with time_machine.travel(timezone.now() + timedelta(minutes=59)):
        assert run_queued() == 0
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        run_queued()
    assert len(recipients(mail_server)) == 6
    assert Issue.objects.get().state == Issue.State.SENT


@pytest.mark.parametrize(
    "value", ["gmail.com", "gmail.com=0", "=100", "gmail.com=lots", "gmail.com=5 gmail.com=9"]
)
def test_a_malformed_provider_rate_is_refused_with_the_form_it_should_take(value):
    from django.core.exceptions import ImproperlyConfigured

    from skillo.settings.base import provider_rates

    with pytest.raises(ImproperlyConfigured, match=re.escape("DOMAIN[,DOMAIN...]=PER_HOUR")):
        provider_rates(value)


def test_provider_rates_read_from_the_environment_form():
    from skillo.settings.base import provider_rates

    assert provider_rates("gmail.com,GoogleMail.com=20000 yahoo.com=5000") == [
        (("gmail.com", "googlemail.com"), 20000),
        (("yahoo.com",), 5000),
    ]


def test_a_sent_story_is_in_the_web_archive_with_a_page_of_its_own(mail_server):  # noqa: F811
    subscriber("all@example.org")
    reader = Client()
    assert b"No newsletter has been sent yet" in reader.get("/newsletter/archive/").content
    article = ArticleFactory(title="Rust 1.90 ships", summary="Faster builds.")
    run_queued()
    issue = Issue.objects.get()
    listing = reader.get("/newsletter/archive/").content.decode()
    assert "Rust 1.90 ships" in listing and issue.get_absolute_url() in listing
    page = reader.get(issue.get_absolute_url()).content.decode()
    assert "Faster builds." in page and article.get_absolute_url() in page
    (message,) = mail_server.messages()
    html = next(p for p in message.walk() if p.get_content_type() == "text/html")
    assert issue.get_absolute_url() in html.get_payload(decode=True).decode()


def test_a_story_with_no_subscriber_to_send_it_to_is_not_in_the_archive():
    subscriber("paused@example.org", state=Subscriber.State.PAUSED)
    ArticleFactory(title="Sent to no one")
    run_queued()
    assert Issue.objects.get().state == Issue.State.CANCELLED
    assert b"Sent to no one" not in Client().get("/newsletter/archive/").content


def test_an_unpublished_story_leaves_the_archive(mail_server):  # noqa: F811
    subscriber("all@example.org")
    article = ArticleFactory(title="Soon gone")
    run_queued()
    issue = Issue.objects.get()
    assert issue.state == Issue.State.SENT
    assert Client().get(issue.get_absolute_url()).status_code == 200
    article.status = Article.Status.DRAFT
    article.save()
    assert Client().get(issue.get_absolute_url()).status_code == 404
    assert b"Soon gone" not in Client().get("/newsletter/archive/").content


def test_a_correction_reaches_those_who_were_sent_the_story_and_asked(mail_server):  # noqa: F811
    from news.models import Correction

    subscriber("wants@example.org")
    subscriber("no-thanks@example.org", corrections=False)
    article = ArticleFactory(title="Go 1.24 ships")
    run_queued()
    subscriber("later@example.org")  # never sent the story
    Correction.objects.create(
        article=article, kind=Correction.Kind.CORRECTION, note="It ships in February."
    )
    Correction.objects.create(article=article, kind=Correction.Kind.UPDATE, note="More.")
    run_queued()
    follow_ups = [m for m in mail_server.messages() if m["Subject"].startswith("Correction")]
    assert [m["To"] for m in follow_ups] == ["wants@example.org"]
    assert follow_ups[0]["Subject"] == "Correction: Go 1.24 ships"
    text = next(p for p in follow_ups[0].walk() if p.get_content_type() == "text/plain")
    assert "It ships in February." in text.get_payload(decode=True).decode()


@pytest.mark.django_db(transaction=True)
def test_the_mark_is_committed_with_the_message_end_and_only_once():
    person = subscriber("all@example.org")
    issue = Issue.objects.create(kind=Issue.Kind.ONE_OFF, subject="Once")
    delivery = Delivery.objects.create(issue=issue, subscriber=person)
    queued = Delivery.objects.filter(pk=delivery.pk, state=Delivery.State.QUEUED)
    ends = []
    assert sending.commit_then(queued, lambda: ends.append(1), state=Delivery.State.SENT)
    # A second try finds it sent: no second end, so no second message.
    assert not sending.commit_then(queued, lambda: ends.append(2), state=Delivery.State.SENT)
    assert ends == [1]
    assert not connection.in_atomic_block
    # Committed: the connection goes on as usual, and a rollback cannot undo the mark.
    connection.rollback()
    assert Delivery.objects.get(pk=delivery.pk).state == Delivery.State.SENT


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own settings")
@pytest.mark.django_db(transaction=True)
def test_a_batch_on_sqlite_leaves_the_connection_as_safe_as_it_found_it(mail_server):  # noqa: F811
    subscriber("all@example.org")
    ArticleFactory()
    with connection.cursor() as cursor:
        before = [cursor.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMAS]
    run_queued()
    assert recipients(mail_server) == ["all@example.org"]
    with connection.cursor() as cursor:
        # A save acknowledged to an editor afterwards still waits for its fsync.
        assert [cursor.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMAS] == before


PRAGMAS = ("synchronous", "wal_autocheckpoint")
