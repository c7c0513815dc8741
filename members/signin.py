"""Asking for a sign-in link and following it.

The page says the same whatever the address (a member, a subscriber, a stranger, a
suppressed address): the request does the same work in every case (two counts and one
queued task), and what is sent, if anything, is decided by the worker (tasks.py), so
neither the answer nor its time tells who is a member. An address not known yet gets a
link too: following it is how an address becomes a member (it proves the address is
theirs); a newsletter subscriber's address is a member's from its first link on."""

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from newsletters.models import digest
from ratelimits import counter

from .models import BlockedAddress, Member, SignInLink
from .tasks import send_sign_in_link

HOUR = 3600


def client_over_limit(client):
    return counter.over(
        f"members:link:client:{digest(client)}", settings.MEMBER_LINKS_PER_CLIENT, HOUR
    )


def ask(email, client):
    """Count the request and queue its mail; False when the client is over its limit
    (the one refusal the reader is told of: it says nothing about the address)."""
    if client_over_limit(client):
        return False
    if not counter.over(
        f"members:link:address:{digest(email)}", settings.MEMBER_LINKS_PER_ADDRESS, HOUR
    ):
        send_sign_in_link.enqueue(email)
    return True


def block_of(email):
    """A block the address's erased membership had: the new one starts with it."""
    kept = BlockedAddress.objects.filter(address=digest(email)).first()
    if kept is None:
        return {}
    return {"blocked_at": kept.blocked_at, "blocked_reason": kept.reason}


@transaction.atomic
def use(link):
    """Follow the link: its member (made now if the address is new), or None if it was
    used already or is past its time. A conditional update, so that two requests with
    the same link (a double click, a stolen copy) sign in one browser only."""
    now = timezone.now()
    since = now - timedelta(minutes=settings.MEMBER_LINK_MINUTES)
    used = SignInLink.objects.filter(pk=link.pk, used_at=None, created_at__gt=since).update(
        used_at=now
    )
    if not used:
        return None
    # The other links in flight for the address are spent too: the reader is in.
    SignInLink.objects.filter(email__iexact=link.email, used_at=None).update(used_at=now)
    member = Member.objects.with_address(link.email).first()
    if member is None:
        try:
            with transaction.atomic():
                member = Member.objects.create(email=link.email.strip(), **block_of(link.email))
        except IntegrityError:  # the same address's other link, followed at this moment
            member = Member.objects.with_address(link.email).get()
    Member.objects.filter(pk=member.pk).update(last_signed_in_at=now)
    return member
