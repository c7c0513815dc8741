"""The newsletters' background work: every e-mail is sent by the worker, queued in the
transaction of the change that causes it."""

from datetime import timedelta

from django.tasks import task
from django.utils import timezone

from . import mail
from .models import SignUp, Subscriber

# Sign-ups never confirmed are forgotten after this long (nothing kept without consent).
FORGET_PENDING_AFTER = timedelta(days=30)


@task
def send_confirmation(subscriber_id):
    subscriber = Subscriber.objects.get(pk=subscriber_id)
    # Confirmed or gone since it was queued: the link would lead nowhere.
    if subscriber.state != Subscriber.State.PENDING or not subscriber.confirm_nonce:
        return False
    mail.confirmation(subscriber).send()
    return True


@task
def send_already_subscribed(subscriber_id):
    subscriber = Subscriber.objects.get(pk=subscriber_id)
    if subscriber.state not in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
        return False
    mail.already_subscribed(subscriber).send()
    return True


@task
def forget_old_sign_ups():
    """Daily: the rate limits' counts past their day, and sign-ups never confirmed."""
    now = timezone.now()
    counted, _ = SignUp.objects.filter(at__lt=now - timedelta(days=1)).delete()
    pending, _ = Subscriber.objects.filter(
        state=Subscriber.State.PENDING, created_at__lt=now - FORGET_PENDING_AFTER
    ).delete()
    return {"sign_ups": counted, "pending": pending}
