"""The suppression list, checked before every send: hard bounces at once, soft ones
after NEWSLETTER_SOFT_BOUNCES in a row, complaints (and an unsubscribe) as the provider
reports them through django-anymail's tracking signal, and the mail server's own
refusals of an address that does not exist."""

from anymail.signals import EventType, tracking
from django.conf import settings
from django.db import transaction
from django.dispatch import receiver

from .models import Subscriber, Suppressed, digest


def suppressed(addresses):
    """Which of ``addresses`` are on the list."""
    hashes = {digest(address): address for address in addresses}
    found = Suppressed.objects.filter(address__in=hashes).values_list("address", flat=True)
    return {hashes[h] for h in found}


def blocks_sign_up(address):
    """A bounced or complained address gets nothing from the form (an erased one may
    sign up again: the confirmation is new consent)."""
    return (
        Suppressed.objects.filter(address=digest(address))
        .exclude(reason=Suppressed.Reason.ERASED)
        .exists()
    )


@transaction.atomic
def suppress(address, reason):
    Suppressed.objects.update_or_create(address=digest(address), defaults={"reason": reason})
    state = {
        Suppressed.Reason.BOUNCED: Subscriber.State.BOUNCED,
        Suppressed.Reason.COMPLAINED: Subscriber.State.COMPLAINED,
    }.get(reason)
    if state:
        Subscriber.objects.with_address(address).update(state=state, confirm_nonce="")


def soft_bounce(address):
    subscriber = Subscriber.objects.with_address(address).first()
    if subscriber is None:
        return
    Subscriber.objects.filter(pk=subscriber.pk).update(soft_bounces=subscriber.soft_bounces + 1)
    if subscriber.soft_bounces + 1 >= settings.NEWSLETTER_SOFT_BOUNCES:
        suppress(address, Suppressed.Reason.BOUNCED)


def erase(subscriber):
    """GDPR art. 17: the subscriber's data deleted (their choices and deliveries with
    them), only a hash of the address kept so that it is not mailed again unasked."""
    with transaction.atomic():
        Suppressed.objects.update_or_create(
            address=digest(subscriber.email), defaults={"reason": Suppressed.Reason.ERASED}
        )
        subscriber.delete()


# Refusals by the receiving server that mean the address does not exist (RFC 3463).
NO_SUCH_ADDRESS = ("5.1.1", "5.1.2", "5.1.3", "5.1.10")


def refused(address, code, text):
    if code in (550, 551, 553) and any(status in text for status in NO_SUCH_ADDRESS):
        suppress(address, Suppressed.Reason.BOUNCED)


@receiver(tracking)
def tracked(sender, event, esp_name, **kwargs):
    address = event.recipient
    if not address:
        return
    if event.event_type == EventType.BOUNCED or (
        event.event_type == EventType.REJECTED and event.reject_reason in ("bounced", "invalid")
    ):
        suppress(address, Suppressed.Reason.BOUNCED)
    elif event.event_type == EventType.COMPLAINED:
        suppress(address, Suppressed.Reason.COMPLAINED)
    elif event.event_type == EventType.DEFERRED:
        soft_bounce(address)
    elif event.event_type == EventType.DELIVERED:
        Subscriber.objects.with_address(address).update(soft_bounces=0)
    elif event.event_type == EventType.UNSUBSCRIBED:
        for subscriber in Subscriber.objects.with_address(address):
            subscriber.leave()
