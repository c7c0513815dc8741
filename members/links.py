"""Sign-in links: a random token in the mail, its hash in SignInLink."""

from django.urls import reverse
from django.utils import timezone

from news.paths import absolute

from .models import SignInLink, new_token, token_hash


def create_link(email):
    """A new link's token (only its hash is kept)."""
    token = new_token()
    SignInLink.objects.create(email=email, token=token_hash(token))
    return token


def link_url(token):
    return absolute(reverse("members:link", args=[token]))


def find_link(token):
    return SignInLink.objects.filter(token=token_hash(token)).first()


def usable(link):
    return link.used_at is None and timezone.now() < link.expires_at
