"""What a sign-up does, the same answer whatever the address's state (no enumeration):
a new or returning address gets a confirmation link, a subscribed one a note with its
preferences link, a suppressed one nothing; each address at most
NEWSLETTER_SIGNUPS_PER_ADDRESS mails a day (a day of UTC), each client
NEWSLETTER_SIGNUPS_PER_CLIENT sign-ups an hour (of the clock), counted once for the site
by ratelimits.counter, atomically: sign-ups at the same moment each get a count of their
own, so no more than the limit pass. A confirmation is welcomed with a mail of its
preferences link.

What a reader is told to expect is queued in the transaction that records the sign-up
(a row of the database queue): committed together, or neither."""

from django.conf import settings
from django.db import IntegrityError, transaction

from ratelimits import counter

from . import suppression
from .models import Subscriber, digest
from .tasks import send_already_subscribed, send_confirmation, send_welcome

HOUR = 3600
DAY = 86400


def client_over_limit(client):
    """Count the client's sign-up; whether it is over its hourly limit."""
    return counter.over(
        f"newsletters:sign-up:client:{digest(client)}",
        settings.NEWSLETTER_SIGNUPS_PER_CLIENT,
        HOUR,
    )


def address_over_limit(address):
    """Count a mail to the address; whether it is over its daily limit."""
    return counter.over(
        f"newsletters:sign-up:address:{digest(address.strip().lower())}",
        settings.NEWSLETTER_SIGNUPS_PER_ADDRESS,
        DAY,
    )


def sign_up(data, client):
    """Record the sign-up and queue what it sends; returns what happened, for tests and
    logs only (the reader is told the same in every case)."""
    address = data["email"]
    if address_over_limit(address):
        return "address over its limit"
    with transaction.atomic():
        return record(address, data)


def record(address, data):
    subscriber = Subscriber.objects.select_for_update().with_address(address).first()
    if subscriber is None:
        try:
            with transaction.atomic():
                subscriber = Subscriber.objects.create(email=address)
        except IntegrityError:  # the same address, signed up at this very moment
            subscriber = Subscriber.objects.select_for_update().with_address(address).get()
    if subscriber.suppressed or suppression.blocks_sign_up(address):
        return "suppressed"
    if subscriber.state in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
        send_already_subscribed.enqueue(subscriber.pk)
        return "already subscribed"
    chosen = data["what"] == "chosen"
    subscriber.state = Subscriber.State.PENDING
    subscriber.frequency = data["frequency"]
    subscriber.everything = not chosen
    subscriber.corrections = data["corrections"]
    subscriber.source = "form"
    subscriber.start_confirmation()
    subscriber.save()
    subscriber.topics.set(data["topics"] if chosen else [])
    subscriber.authors.set(data["authors"] if chosen else [])
    send_confirmation.enqueue(subscriber.pk)
    return "confirmation sent"


@transaction.atomic
def confirm(subscriber, nonce):
    """Follow a confirmation link; the welcome is queued with the confirmation, by the
    one request that makes it (Subscriber.confirm), so a link posted twice (a double
    click) welcomes once."""
    if not subscriber.confirm(nonce):
        return False
    send_welcome.enqueue(subscriber.pk)
    return True


@transaction.atomic
def send_new_link(subscriber):
    """A fresh confirmation link for a pending address whose link expired, within the
    address's daily limit."""
    if subscriber.state != Subscriber.State.PENDING:
        return False
    if address_over_limit(subscriber.email):
        return False
    subscriber.start_confirmation()
    subscriber.save(update_fields=["confirm_nonce"])
    send_confirmation.enqueue(subscriber.pk)
    return True
