"""What a sign-up does, the same answer whatever the address's state (no enumeration):
a new or returning address gets a confirmation link, a subscribed one a note with its
preferences link, a suppressed one nothing; each address at most
NEWSLETTER_SIGNUPS_PER_ADDRESS mails a day, each client NEWSLETTER_SIGNUPS_PER_CLIENT
sign-ups an hour. A confirmation is welcomed with a mail of its preferences link."""

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from . import suppression
from .models import SignUp, Subscriber, digest
from .tasks import send_already_subscribed, send_confirmation, send_welcome


def client_over_limit(client):
    since = timezone.now() - timedelta(hours=1)
    recent = SignUp.objects.filter(client=digest(client), at__gte=since).count()
    return recent >= settings.NEWSLETTER_SIGNUPS_PER_CLIENT


@transaction.atomic
def sign_up(data, client):
    """Record the sign-up and queue what it sends; returns what happened, for tests and
    logs only (the reader is told the same in every case)."""
    address = data["email"]
    # The address's row is locked first: sign-ups of one address at the same moment
    # then count each other's SignUp, and its daily limit holds (counted before the
    # lock, twelve at once all passed a limit of three).
    subscriber = Subscriber.objects.select_for_update().with_address(address).first()
    if subscriber is None:
        try:
            with transaction.atomic():
                subscriber = Subscriber.objects.create(email=address)
        except IntegrityError:  # the same address, signed up at this very moment
            subscriber = Subscriber.objects.select_for_update().with_address(address).get()
    SignUp.objects.create(address=digest(address), client=digest(client))
    since = timezone.now() - timedelta(days=1)
    if SignUp.objects.filter(address=digest(address), at__gte=since).count() > (
        settings.NEWSLETTER_SIGNUPS_PER_ADDRESS
    ):
        return "address over its limit"
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
    address = digest(subscriber.email)
    since = timezone.now() - timedelta(days=1)
    if SignUp.objects.filter(address=address, at__gte=since).count() >= (
        settings.NEWSLETTER_SIGNUPS_PER_ADDRESS
    ):
        return False
    SignUp.objects.create(address=address, client="")
    subscriber.start_confirmation()
    subscriber.save(update_fields=["confirm_nonce"])
    send_confirmation.enqueue(subscriber.pk)
    return True
