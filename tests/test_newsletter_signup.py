"""Signing up for the newsletter (issue 29): double opt-in through a real SMTP server,
the same answer whatever the address's state, rate limits, a honeypot, bad input that
saves nothing, preferences at a signed link, and RFC 8058's one-click unsubscribe."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from newsletters import links
from newsletters.models import Subscriber
from newsletters.tasks import forget_old_sign_ups
from people.models import Author
from ratelimits.models import Window

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together, writes_of

pytestmark = pytest.mark.django_db

URL = "/newsletter/"
LINK = re.compile(r"https?://\S+/newsletter/(?:confirm|preferences|unsubscribe)/\S+/")


def form(**fields):
    return {"email": "ada@example.org", "what": "everything", "frequency": "each",
            "corrections": "on", **fields}  # fmt: skip


def sign_up(client=None, **fields):
    return (client or Client()).post(URL, form(**fields))


def text_of(message):
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    raise AssertionError("no plain-text part")


def path_of(url):
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def queued(path):
    return DBTaskResult.objects.filter(task_path=path).count()


def test_the_form_is_plain_html_with_a_hidden_honeypot():
    page = Client().get(URL).content.decode()
    assert 'name="email"' in page and 'type="email"' in page
    assert 'class="honeypot" aria-hidden="true"' in page and 'tabindex="-1"' in page
    assert "<script" not in page.split("<main", 1)[1].split("</main>", 1)[0]


def test_a_sign_up_sends_a_confirmation_and_subscribes_no_one_yet(mail_server):  # noqa: F811
    response = sign_up()
    assert response.status_code == 302 and response["Location"] == "/newsletter/sent/"
    assert Subscriber.objects.get().state == Subscriber.State.PENDING
    run_queued()
    (message,) = mail_server.to("ada@example.org")
    assert message["Subject"] == "Confirm your Skillo newsletter"
    assert "/newsletter/confirm/" in text_of(message)
    assert Subscriber.objects.get().state == Subscriber.State.PENDING


def test_following_the_link_shows_a_button_and_only_its_post_confirms(mail_server):  # noqa: F811
    sign_up()
    run_queued()
    (message,) = mail_server.to("ada@example.org")
    (url,) = [u for u in LINK.findall(text_of(message)) if "/confirm/" in u]
    reader = Client()
    page = reader.get(path_of(url))
    assert page.status_code == 200 and b"Yes, subscribe me" in page.content
    assert Subscriber.objects.get().state == Subscriber.State.PENDING  # a scanner's GET
    confirmed = reader.post(path_of(url))
    assert b"You are subscribed" in confirmed.content
    subscriber = Subscriber.objects.get()
    assert subscriber.state == Subscriber.State.ACTIVE and subscriber.confirmed_at


def confirm_link(server):
    (message,) = server.to("ada@example.org")
    (url,) = [u for u in LINK.findall(text_of(message)) if "/confirm/" in u]
    return path_of(url)


def welcomes(server):
    return [m for m in server.to("ada@example.org") if m["Subject"] == WELCOME]


WELCOME = "Welcome to Skillo's newsletter"


def test_a_confirmation_is_welcomed_by_the_worker_with_the_preferences_link(mail_server):  # noqa: F811
    sign_up(frequency="weekly")
    run_queued()
    Client().post(confirm_link(mail_server))
    assert welcomes(mail_server) == []  # not sent in the reader's request
    run_queued()
    (welcome,) = welcomes(mail_server)
    text = text_of(welcome)
    assert "every story, a weekly digest." in text
    (preferences,) = [u for u in LINK.findall(text) if "/preferences/" in u]
    page = Client().get(path_of(preferences))
    assert page.status_code == 200
    assert re.search(r'value="weekly"[^>]*checked', page.content.decode())


def test_a_confirmation_link_posted_twice_sends_one_welcome(mail_server):  # noqa: F811
    sign_up()
    run_queued()
    reader = Client()
    for _ in range(2):
        assert b"You are subscribed" in reader.post(confirm_link(mail_server)).content
    run_queued()
    assert len(welcomes(mail_server)) == 1


def test_the_confirmed_page_says_the_welcome_mail_is_coming():
    subscriber = Subscriber.objects.create(email="ada@example.org")
    subscriber.start_confirmation()
    subscriber.save()
    page = Client().post(path_of(links.confirm_url(subscriber))).content.decode()
    assert "We have sent you a welcome e-mail with a link to change this" in page


def test_a_confirmation_link_works_once(mail_server):  # noqa: F811
    sign_up()
    run_queued()
    (message,) = mail_server.to("ada@example.org")
    (url,) = [u for u in LINK.findall(text_of(message)) if "/confirm/" in u]
    Client().post(path_of(url))
    Subscriber.objects.get().leave()
    again = Client().post(path_of(url))
    assert again.status_code == 410
    assert Subscriber.objects.get().state == Subscriber.State.UNSUBSCRIBED


def test_a_confirmation_read_before_the_address_left_subscribes_no_one():
    subscriber = Subscriber.objects.create(email="ada@example.org")
    nonce = subscriber.start_confirmation()
    subscriber.save()
    read_first = Subscriber.objects.get()  # the link's request read the row, then...
    Subscriber.objects.get().leave()  # ...the address left before it wrote
    assert not read_first.confirm(nonce)
    assert read_first.state == Subscriber.State.UNSUBSCRIBED
    assert Subscriber.objects.get().state == Subscriber.State.UNSUBSCRIBED


def test_a_replaced_link_confirms_nothing_and_the_current_one_does():
    subscriber = Subscriber.objects.create(email="ada@example.org")
    first = subscriber.start_confirmation()
    subscriber.save()
    current = subscriber.start_confirmation()
    subscriber.save()
    assert not subscriber.confirm(first)
    assert subscriber.state == Subscriber.State.PENDING
    assert subscriber.confirm(current)
    assert subscriber.state == Subscriber.State.ACTIVE and not subscriber.confirm(current)


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_confirmation_sent_at_the_same_moment_is_recorded_once(live_server):
    subscriber = Subscriber.objects.create(email="ada@example.org")
    subscriber.start_confirmation()
    subscriber.save()
    path = path_of(links.confirm_url(subscriber))
    browsers = [Browser(live_server) for _ in range(RACERS)]  # a double click, and more
    for browser in browsers:
        assert b"Yes, subscribe me" in browser.get(path).content
    with writes_of("newsletters_subscriber", "confirmed_at") as confirmations:
        responses = together([browser.sender(path) for browser in browsers])
        assert outcomes(responses) == {200: RACERS}
        assert all("You are subscribed" in response.text for response in responses)
        # Its time, the record of the consent, written by the first and kept.
        assert confirmations() == 1
    subscriber = Subscriber.objects.get()
    assert subscriber.state == Subscriber.State.ACTIVE and subscriber.confirmed_at


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_confirmation_sent_at_the_same_moment_queues_one_welcome(live_server):
    subscriber = Subscriber.objects.create(email="ada@example.org")
    subscriber.start_confirmation()
    subscriber.save()
    path = path_of(links.confirm_url(subscriber))
    browsers = [Browser(live_server) for _ in range(RACERS)]
    for browser in browsers:
        assert b"Yes, subscribe me" in browser.get(path).content
    responses = together([browser.sender(path) for browser in browsers])
    assert outcomes(responses) == {200: RACERS}
    assert queued("newsletters.tasks.send_welcome") == 1


def test_an_expired_link_offers_a_new_one_and_only_the_new_one_works(mail_server):  # noqa: F811
    sign_up()
    run_queued()
    (first,) = LINK.findall(text_of(mail_server.to("ada@example.org")[0]))
    with time_machine.travel(timezone.now() + timedelta(hours=49)):
        page = Client().get(path_of(first))
        assert page.status_code == 410 and b"Send me a new link" in page.content
        Client().post(path_of(first) + "new-link/")
        run_queued()
        messages = mail_server.to("ada@example.org")
        assert len(messages) == 2
        (second,) = [u for u in LINK.findall(text_of(messages[-1])) if u != first]
        assert Client().post(path_of(first)).status_code == 410
        assert b"You are subscribed" in Client().post(path_of(second)).content


def answer(response):
    return response.status_code, response.get("Location"), Client().get("/newsletter/sent/").content


def test_the_answer_is_the_same_whatever_the_address(mail_server):  # noqa: F811
    Subscriber.objects.create(email="active@example.org", state=Subscriber.State.ACTIVE)
    Subscriber.objects.create(email="bounced@example.org", state=Subscriber.State.BOUNCED)
    Subscriber.objects.create(email="pending@example.org")
    answers = {
        address: answer(sign_up(email=address))
        for address in (
            "new@example.org",
            "active@example.org",
            "bounced@example.org",
            "pending@example.org",
        )
    }
    assert len(set(answers.values())) == 1


def test_an_address_already_subscribed_is_told_so_and_keeps_its_choices(mail_server):  # noqa: F811
    author = Author.objects.create(name="Ada Lovelace", slug="ada")
    subscriber = Subscriber.objects.create(
        email="Ada@Example.org", state=Subscriber.State.ACTIVE, everything=False
    )
    subscriber.authors.add(author)
    sign_up(email="ada@example.org", what="everything", frequency="weekly")
    run_queued()
    subscriber.refresh_from_db()
    assert (subscriber.everything, subscriber.frequency) == (False, "each")
    (message,) = mail_server.to("Ada@Example.org")
    assert message["Subject"] == "You already get Skillo by e-mail"
    assert "/newsletter/preferences/" in text_of(message)


def test_a_bounced_address_is_sent_nothing(mail_server):  # noqa: F811
    Subscriber.objects.create(email="gone@example.org", state=Subscriber.State.BOUNCED)
    sign_up(email="gone@example.org")
    run_queued()
    assert mail_server.messages() == []


def test_one_address_gets_at_most_three_mails_a_day_from_the_form(settings):
    for _ in range(5):
        assert sign_up().status_code == 302
    assert queued("newsletters.tasks.send_confirmation") == 3


def test_one_client_is_refused_after_its_hourly_limit_and_nothing_is_saved(settings):
    settings.NEWSLETTER_SIGNUPS_PER_CLIENT = 4
    for n in range(4):
        assert sign_up(email=f"reader{n}@example.org").status_code == 302
    refused = sign_up(email="one-more@example.org")
    assert refused.status_code == 429
    assert b"many sign-ups from your network" in refused.content
    assert not Subscriber.objects.with_address("one-more@example.org").exists()
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        assert sign_up(email="one-more@example.org").status_code == 302


def test_a_filled_honeypot_is_answered_like_a_person_and_saves_nothing():
    response = sign_up(website="https://spam.example/")
    assert response.status_code == 302 and response["Location"] == "/newsletter/sent/"
    assert not Subscriber.objects.exists() and not DBTaskResult.objects.exists()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"email": "ada.example.org"}, "That is not an e-mail address"),
        ({"email": "a" * 250 + "@example.org"}, "at most 254 characters"),
        ({"what": "chosen", "topics": ["no-such-topic"]}, "is not one of Skillo's topics"),
        ({"what": "chosen"}, "Choose at least one topic or author"),
        ({"frequency": "hourly"}, "Choose how often: each story"),
    ],
    ids=["malformed", "too long", "unknown topic", "nothing chosen", "unknown frequency"],
)
def test_bad_input_is_a_clear_message_on_the_form_and_saves_nothing(fields, message):
    response = sign_up(**fields)
    assert response.status_code == 400
    assert message in response.content.decode().replace("&#x27;", "'")
    assert not Subscriber.objects.exists() and not Window.objects.exists()


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("ada@localhost", "“localhost” is not a domain on the internet"),
        ("ada@[127.0.0.1]", "Addresses at an IP address ([127.0.0.1]) are not accepted"),
        ("user@sub.localhost", "“sub.localhost” is a name for a machine"),
        ("user@localhost.localdomain", "“localhost.localdomain” is a name for a machine"),
        ("user@foo.local", "“foo.local” is a name for a machine"),
    ],
    ids=["dotless domain", "address literal", "localhost", "localdomain", "local"],
)
def test_an_address_off_the_internet_is_refused_on_the_form_as_typed(address, message):
    response = sign_up(email=address)
    assert response.status_code == 400
    page = response.content.decode()
    assert message in page
    assert f'value="{address}"' in page
    assert not Subscriber.objects.exists() and not DBTaskResult.objects.exists()


def test_a_form_without_its_csrf_token_says_so_on_the_form_and_saves_nothing():
    response = sign_up(Client(enforce_csrf_checks=True))
    assert response.status_code == 403
    page = response.content.decode()
    assert "The form had expired" in page and 'value="ada@example.org"' in page
    assert not Subscriber.objects.exists()


def test_chosen_topics_and_authors_are_kept_for_the_confirmation(mail_server):  # noqa: F811
    article = ArticleFactory(tags=["rust"])
    topic = article.tags.get()
    Author.objects.create(name="Ada Lovelace", slug="ada")
    sign_up(what="chosen", topics=[topic.slug], authors=["ada"], frequency="daily")
    subscriber = Subscriber.objects.get()
    assert not subscriber.everything and subscriber.frequency == "daily"
    assert list(subscriber.topics.all()) == [topic]
    run_queued()
    assert "stories by Ada Lovelace, a daily digest" in text_of(mail_server.messages()[0])


def test_a_topic_page_link_ticks_its_topic():
    article = ArticleFactory(tags=["rust"])
    slug = article.tags.get().slug
    page = Client().get(f"{URL}?topic={slug}").content.decode()
    assert re.search(rf'value="{slug}"[^>]*checked', page)


def active(**fields):
    return Subscriber.objects.create(
        email="ada@example.org", state=Subscriber.State.ACTIVE, **fields
    )


def test_the_preferences_link_changes_what_is_sent_and_pauses():
    subscriber = active()
    url = path_of(links.preferences_url(subscriber))
    response = Client().post(url, {"what": "everything", "frequency": "weekly", "paused": "on"})
    assert response.status_code == 200 and b"Saved" in response.content
    subscriber.refresh_from_db()
    assert (subscriber.frequency, subscriber.state) == ("weekly", Subscriber.State.PAUSED)


def test_a_preferences_link_whose_key_changed_leads_nowhere():
    subscriber = active()
    url = path_of(links.preferences_url(subscriber))
    subscriber.key = "another-key"
    subscriber.save()
    assert Client().get(url).status_code == 404
    assert Client().get(url[:-5] + "xxxx/").status_code == 404


def test_one_click_unsubscribe_works_with_no_cookie_and_no_csrf_token():
    subscriber = active()
    url = path_of(links.unsubscribe_url(subscriber))
    mail_client = Client(enforce_csrf_checks=True)
    response = mail_client.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    subscriber.refresh_from_db()
    assert subscriber.state == Subscriber.State.UNSUBSCRIBED and subscriber.left_at


def test_a_get_of_the_unsubscribe_link_only_shows_the_button():
    subscriber = active()
    page = Client().get(path_of(links.unsubscribe_url(subscriber)))
    assert page.status_code == 200 and b"Unsubscribe</button>" in page.content
    subscriber.refresh_from_db()
    assert subscriber.state == Subscriber.State.ACTIVE


def test_a_sign_up_that_rolls_back_queues_no_mail():
    from newsletters.forms import SignUpForm
    from newsletters.signups import sign_up as record

    data = SignUpForm(form())
    assert data.is_valid()
    with pytest.raises(RuntimeError), transaction.atomic():
        record(data.cleaned_data, "127.0.0.1")
        raise RuntimeError("the request failed after the sign-up")
    assert not DBTaskResult.objects.exists() and not Subscriber.objects.exists()


def test_unconfirmed_sign_ups_are_forgotten_after_thirty_days():
    sign_up()
    with time_machine.travel(timezone.now() + timedelta(days=31)):
        forget_old_sign_ups.call()
    assert not Subscriber.objects.exists()


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_sign_ups_of_one_address_at_the_same_moment_mail_it_no_more_than_its_limit(
    live_server, settings
):
    """Someone filling one address's inbox with confirmations from many tabs at once:
    the day's limit (3) holds, as it does for sign-ups one after another."""
    settings.NEWSLETTER_SIGNUPS_PER_ADDRESS = 3
    browsers = [Browser(live_server) for _ in range(RACERS)]
    for browser in browsers:
        browser.get(URL)
    responses = together([browser.sender(URL, form()) for browser in browsers])
    assert outcomes(responses) == {302: RACERS}  # everyone is told the same
    assert queued("newsletters.tasks.send_confirmation") == 3


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_hundred_sign_ups_from_one_client_at_the_same_moment_pass_no_more_than_its_limit(
    live_server, settings
):
    """A flood from one network, released together: its hourly limit (30) holds, as it
    does for sign-ups one after another (counted before the sign-up was saved, 32 of 100
    got through)."""
    settings.NEWSLETTER_SIGNUPS_PER_CLIENT = 30
    first = Browser(live_server)
    first.get(URL)
    browsers = []
    for _ in range(100):
        browser = Browser(live_server)
        browser.session.cookies.update(first.session.cookies)
        browser.csrf = first.csrf
        browsers.append(browser)
    responses = together(
        [
            browser.sender(URL, form(email=f"reader{n}@example.org"))
            for n, browser in enumerate(browsers)
        ]
    )
    assert outcomes(responses) == {302: 30, 429: 70}
    assert Subscriber.objects.count() == 30
