"""The e-mails a reader gets about their subscription, each a plain-text part and an
HTML one made from templates (templates/newsletters/mail/)."""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string

from . import compose
from .links import confirm_url, preferences_url, unsubscribe_url


def message(subject, template, context, to):
    site_url = settings.SKILLO_SITE_URL.rstrip("/")
    context = {"site_url": site_url, "base": site_url, **context}
    mail = EmailMultiAlternatives(
        subject=subject,
        body=render_to_string(f"newsletters/mail/{template}.txt", context),
        from_email=settings.NEWSLETTER_FROM_EMAIL,
        to=[to],
    )
    mail.attach_alternative(
        compose.inline(render_to_string(f"newsletters/mail/{template}.html", context)),
        "text/html",
    )
    return mail


def confirmation(subscriber):
    return message(
        "Confirm your Skillo newsletter",
        "confirm",
        {
            "subscriber": subscriber,
            "confirm_url": confirm_url(subscriber),
            "hours": settings.NEWSLETTER_CONFIRM_HOURS,
        },
        subscriber.email,
    )


def welcome(subscriber):
    """After the confirmation: what they get, and the link to change it, which no story
    may bring for a week (a weekly digest, topics seldom written about)."""
    return message(
        "Welcome to Skillo's newsletter",
        "welcome",
        {
            "subscriber": subscriber,
            "preferences_url": preferences_url(subscriber),
            "unsubscribe_url": unsubscribe_url(subscriber),
        },
        subscriber.email,
    )


def already_subscribed(subscriber):
    """To an address that signed up again: no new confirmation (someone else may have
    typed it), but the way to its preferences, which only its owner can follow."""
    return message(
        "You already get Skillo by e-mail",
        "already_subscribed",
        {
            "subscriber": subscriber,
            "preferences_url": preferences_url(subscriber),
            "unsubscribe_url": unsubscribe_url(subscriber),
        },
        subscriber.email,
    )
