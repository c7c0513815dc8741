"""Signing a test client in as a reader would: the form, the mail through the real SMTP
server, the link's button."""

import re

from django.test import Client

from ..background_tasks import run_queued

LINK = re.compile(r"https?://[^/\s]+(/account/link/[^/\s]+/)")


def text_of(message):
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            return part.get_payload(decode=True).decode()
    raise AssertionError("no plain-text part")


def ask_for_link(email, client=None):
    return (client or Client()).post("/account/", {"email": email})


def received_link(mail_server, email):
    """The path of the sign-in link mailed to ``email`` last (the one this helper has
    not returned before: mails of one second are in no particular order)."""
    run_queued()
    seen = mail_server.__dict__.setdefault("sign_in_links_seen", set())
    found = [
        path
        for message in mail_server.to(email)
        if message["Subject"] == "Your link to sign in to Skillo"
        for path in LINK.findall(text_of(message))
        if path not in seen
    ]
    assert len(found) == 1, f"{len(found)} new sign-in links to {email}"
    seen.add(found[0])
    return found[0]


def signed_in(mail_server, email, client=None):
    client = client or Client()
    ask_for_link(email, client)
    response = client.post(received_link(mail_server, email))
    assert response.status_code == 302 and response["Location"] == "/account/"
    return client
