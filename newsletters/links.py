"""The signed links of the e-mails: confirm a sign-up (single use, expires), and a
subscriber's own preferences and one-click unsubscribe (no expiry: an e-mail from a year
ago must still let its reader leave). Signed with the SECRET_KEY and a salt of their own;
the subscriber's key inside them lets every link of one subscriber be revoked at once."""

from django.conf import settings
from django.core import signing
from django.urls import reverse

from news.paths import absolute

from .models import Subscriber

CONFIRM_SALT = "newsletters.confirm"
SUBSCRIBER_SALT = "newsletters.subscriber"


def story_url(path):
    """A story's address in a mail: absolute, naming the newsletter as where the reader
    came from (readership.beacons.VIA), the same word in every subscriber's copy."""
    path, hash_, fragment = path.partition("#")
    return absolute(f"{path}?ref=newsletter{hash_}{fragment}")


def confirm_url(subscriber):
    token = signing.dumps([subscriber.pk, subscriber.confirm_nonce], salt=CONFIRM_SALT)
    return absolute(reverse("newsletters:confirm", args=[token]))


def subscriber_token(subscriber):
    return signing.dumps([subscriber.pk, subscriber.key], salt=SUBSCRIBER_SALT)


def preferences_url(subscriber):
    return absolute(reverse("newsletters:preferences", args=[subscriber_token(subscriber)]))


def unsubscribe_path(subscriber):
    """For the site's own pages: a link on the host that served them."""
    return reverse("newsletters:unsubscribe", args=[subscriber_token(subscriber)])


def unsubscribe_url(subscriber):
    return absolute(unsubscribe_path(subscriber))


class Confirmation:
    """What a confirmation link says: its subscriber (None for a forged or mangled
    link), whether it is past its time, and whether it is the one in flight."""

    def __init__(self, token):
        self.subscriber, self.expired, self.nonce = None, False, ""
        try:
            pk, nonce = signing.loads(
                token, salt=CONFIRM_SALT, max_age=settings.NEWSLETTER_CONFIRM_HOURS * 3600
            )
        except signing.SignatureExpired:
            self.expired = True
            try:
                pk, nonce = signing.loads(token, salt=CONFIRM_SALT)
            except (signing.BadSignature, ValueError, TypeError):
                return
        except (signing.BadSignature, ValueError, TypeError):
            return
        self.subscriber = Subscriber.objects.filter(pk=pk).first() if isinstance(pk, int) else None
        self.nonce = nonce if isinstance(nonce, str) else ""

    @property
    def current(self):
        """Whether it is the link in flight (its subscriber as last read)."""
        return bool(self.subscriber and self.nonce and self.subscriber.confirm_nonce == self.nonce)


def subscriber_from(token):
    """The subscriber of a preferences or unsubscribe link, or None."""
    try:
        pk, key = signing.loads(token, salt=SUBSCRIBER_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if not isinstance(pk, int):
        return None
    subscriber = Subscriber.objects.filter(pk=pk).first()
    return subscriber if subscriber and subscriber.key == key else None
