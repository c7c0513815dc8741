"""The members' background work: the sign-in mail, sent by the worker so that asking
for a link takes the same time whoever asks (signin.py)."""

from datetime import timedelta

from django.db.models import Q
from django.tasks import task
from django.utils import timezone

from newsletters import suppression
from newsletters.models import Subscriber

from . import mail
from .links import create_link
from .models import MemberSession, SignInLink

# Links are forgotten a day after they were made (used or not): only their hash was
# kept, and the address with it.
FORGET_LINKS_AFTER = timedelta(days=1)


@task(queue_name="urgent")
def send_sign_in_link(email):
    """Nothing to an address that bounced or marked Skillo as spam; a link to any other."""
    if suppression.blocks_sign_up(email) or any(
        subscriber.suppressed for subscriber in Subscriber.objects.with_address(email)
    ):
        return False
    mail.sign_in(email, create_link(email)).send()
    return True


@task
def forget_old_links_and_sessions():
    """Daily: spent links and ended sessions."""
    now = timezone.now()
    links, _ = SignInLink.objects.filter(created_at__lt=now - FORGET_LINKS_AFTER).delete()
    sessions, _ = MemberSession.objects.filter(Q(expires_at__lt=now)).delete()
    return {"links": links, "sessions": sessions}
