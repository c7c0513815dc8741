"""The members' e-mails, a plain-text part and an HTML one (templates/members/mail/),
in the newsletter's design."""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from news.paths import absolute
from newsletters import compose

from .links import link_url


def sign_in(email, token):
    context = {
        "base": settings.SKILLO_SITE_URL.rstrip("/"),
        "link_url": link_url(token),
        "portal_url": absolute(reverse("members:portal")),
        "minutes": settings.MEMBER_LINK_MINUTES,
        "email": email,
    }
    mail = EmailMultiAlternatives(
        subject="Your link to sign in to Skillo",
        body=render_to_string("members/mail/sign_in.txt", context),
        from_email=settings.NEWSLETTER_FROM_EMAIL,
        to=[email],
    )
    mail.attach_alternative(
        compose.inline(render_to_string("members/mail/sign_in.html", context)), "text/html"
    )
    return mail
