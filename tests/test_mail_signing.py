"""The site's SMTP backend (newsletters.backends, the default): every mail it sends, not
the newsletter's issues alone, has a Message-ID on the site's domain and a DKIM signature
that dkimpy verifies. Through a real SMTP server on loopback."""

import dkim
import pytest
from django.core.mail import send_mail

from members.tasks import send_sign_in_link
from newsletters.dkim_keys import dns_record
from tests.mail_server import mail_server  # noqa: F401
from tests.test_newsletter_sending import dkim_key  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def site_backend(mail_server, settings):  # noqa: F811
    settings.MAILERS = {
        "default": {**settings.MAILERS["default"], "BACKEND": "newsletters.backends.EmailBackend"}
    }
    settings.SKILLO_SITE_URL = "https://news.example.org"
    return mail_server


def verified(message, key):
    record = dns_record(key.read_bytes()).encode()

    def dns(name, timeout=5):
        assert name == b"mail2026._domainkey.news.example.org."
        return record

    return dkim.verify(message.as_bytes(), dnsfunc=dns)


def test_a_sign_in_link_is_signed_and_named_on_the_sites_domain(site_backend, dkim_key):  # noqa: F811
    send_sign_in_link.call("ada@example.org")
    (message,) = site_backend.to("ada@example.org")
    assert message["Message-ID"].endswith("@news.example.org>")
    assert verified(message, dkim_key)


def test_the_newsrooms_workflow_mail_is_signed_too(site_backend, dkim_key):  # noqa: F811
    send_mail("Ready for review", "A story waits.", None, ["editor@example.org"])
    (message,) = site_backend.to("editor@example.org")
    assert message["Message-ID"].endswith("@news.example.org>")
    assert verified(message, dkim_key)


def test_without_a_key_a_mail_goes_out_unsigned(site_backend, settings):
    settings.DKIM_PRIVATE_KEY = settings.DKIM_PRIVATE_KEY_FILE = ""
    send_mail("Hello", "Text.", None, ["plain@example.org"])
    (message,) = site_backend.to("plain@example.org")
    assert message["DKIM-Signature"] is None
    assert message["Message-ID"].endswith("@news.example.org>")
