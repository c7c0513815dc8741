"""Inviting people into the newsroom: an admin names an address and a role; the person
gets an e-mail (through the task queue) with a link, valid for DAYS days, to a page
where they choose a user name, a password and the name their articles are signed with,
and arrive in the admin with that role and their author profile."""

from datetime import timedelta

from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from news.identity import absolute
from news.slugs import slug_from_title
from people.models import Author, free_slug

from .models import Invitation
from .tasks import send_workflow_mail
from .tokens import digest, new_token

DAYS = 7
PROFILE_TRIES = 10


def waiting_for(email):
    """The invitation to ``email`` that still works (not used, not expired), or None."""
    return Invitation.objects.filter(
        email__iexact=email.strip(), accepted_at=None, expires_at__gt=timezone.now()
    ).first()


@transaction.atomic
def invite(invitation, by):
    """Give ``invitation`` (unsaved) its token, save it in place of an expired one to the
    same address, and queue its e-mail with it. One waiting per address: a second
    while one works is refused by the constraint one_waiting_invitation_per_address
    (the admin's form says so first, InvitationForm)."""
    token, invitation.token_hash = new_token()
    invitation.invited_by = by
    invitation.expires_at = timezone.now() + timedelta(days=DAYS)
    Invitation.objects.filter(
        email__iexact=invitation.email.strip(), accepted_at=None, expires_at__lte=timezone.now()
    ).delete()
    invitation.save()
    link = absolute(reverse("invitation", args=[token]))
    inviter = by.get_full_name() or by.get_username()
    greeting = f"Hello {invitation.name}," if invitation.name else "Hello,"
    body = (
        f"{greeting}\n\n{inviter} invites you to Skillo's newsroom as "
        f"{invitation.get_role_display().lower()}.\n\nChoose your user name and password "
        f"here (the link works for {DAYS} days, once):\n{link}\n"
    )
    send_workflow_mail.enqueue("[Skillo] You are invited to the newsroom", body, [invitation.email])
    return token


def find(token):
    """(the invitation, None) if it can be accepted; (it or None, why not) otherwise."""
    invitation = Invitation.objects.filter(token_hash=digest(token)).first()
    if invitation is None:
        return None, "unknown"
    if invitation.accepted_at is not None:
        return invitation, "accepted"
    if invitation.expires_at <= timezone.now():
        return invitation, "expired"
    return invitation, None


def claim(invitation):
    """Take ``invitation`` for the account about to be made, in the caller's transaction:
    True for the one request that may use it, False if another used it first (or it
    expired since it was found). A conditional update, not a check before a write: the
    row stays locked until the caller's transaction ends, so a request sent at the same
    moment waits, then finds it used."""
    now = timezone.now()
    return bool(
        Invitation.objects.filter(pk=invitation.pk, accepted_at=None, expires_at__gt=now).update(
            accepted_at=now
        )
    )


def accept(invitation, user):
    """``user`` (just made, in the transaction that claimed the invitation) joins with
    the invitation's role, and the author profile their articles are signed with (named
    as they typed it on the join page; theirs to change)."""
    user.is_staff = True
    user.email = invitation.email
    user.save(update_fields=["is_staff", "email"])
    user.groups.add(Group.objects.get(name=invitation.role))
    invitation.user = user
    invitation.save(update_fields=["user"])
    name = user.get_full_name() or user.get_username()
    base = slug_from_title(name, fallback="author")
    # Two people of one name joining at the same moment find the same free address; the
    # one whose profile is saved second tries the next (each failed try means another's
    # was saved, so this ends).
    for _ in range(PROFILE_TRIES - 1):
        try:
            with transaction.atomic():
                return Author.objects.create(name=name, slug=free_slug(base), user=user)
        except IntegrityError:
            pass
    return Author.objects.create(name=name, slug=free_slug(base), user=user)
