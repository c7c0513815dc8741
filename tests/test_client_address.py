"""Login lockouts behind reverse proxies follow the reader's address (TRUSTED_PROXY_COUNT).

The proxy in front connects from PROXY and appends the address it was connected from to
X-Forwarded-For; anything to the left of that came from the client.
"""

import pytest

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PROXY = "10.0.0.100"
READER = "203.0.113.5"
OTHER_READER = "203.0.113.6"


@pytest.fixture(autouse=True)
def editor(django_user_model):
    return django_user_model.objects.create_user("editor", password="right-pass", is_staff=True)


def login(client, password, **meta):
    return client.post(
        LOGIN, {"username": "editor", "password": password, "next": "/admin/"}, **meta
    )


def through_proxy(client, password, reader, forged=None):
    chain = f"{forged}, {reader}" if forged else reader
    return login(client, password, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=chain)


def test_behind_a_proxy_a_locked_out_reader_does_not_lock_out_the_others(client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for _ in range(10):
        through_proxy(client, "wrong", READER)
    assert through_proxy(client, "right-pass", READER).status_code == 429
    assert through_proxy(client, "right-pass", OTHER_READER).status_code == 302


def test_behind_a_proxy_forged_forwarded_entries_do_not_dodge_the_lockout(client, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    for n in range(10):
        through_proxy(client, "wrong", READER, forged=f"198.51.100.{n}")
    response = through_proxy(client, "right-pass", READER, forged="198.51.100.99")
    assert response.status_code == 429


def test_without_a_proxy_a_forged_forwarded_for_does_not_dodge_the_lockout(client, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    for n in range(10):
        login(client, "wrong", REMOTE_ADDR=READER, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")
    response = login(client, "right-pass", REMOTE_ADDR=READER, HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert response.status_code == 429


def test_a_proxy_passing_on_a_malformed_header_falls_back_to_its_own_address(client, settings):
    # A proxy that forwards the client's header without appending to it. On PostgreSQL,
    # where django-axes stores the address in an inet column, this was a 500.
    settings.TRUSTED_PROXY_COUNT = 1
    response = login(client, "wrong", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="<script>")
    assert response.status_code == 200
    assert "Please enter the correct username and password" in response.content.decode()


def test_a_locked_out_sign_in_says_when_to_try_again(client, settings):
    for _ in range(10):
        login(client, "wrong")
    locked = login(client, "right-pass")
    assert locked.status_code == 429
    assert locked["Retry-After"] == str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
