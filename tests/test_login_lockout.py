"""Admin login is rate-limited per account and address (django-axes)."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"


@pytest.fixture
def editor(django_user_model):
    return django_user_model.objects.create_user("editor", password="right-pass", is_staff=True)


def attempt(client, password, username="editor", address="10.0.0.1"):
    return client.post(
        LOGIN,
        {"username": username, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def test_ten_wrong_passwords_lock_out_even_the_right_one(client, editor):
    for _ in range(9):
        assert attempt(client, "wrong").status_code == 200
    assert attempt(client, "wrong").status_code == 429
    response = attempt(client, "right-pass")
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_editor_gets_back_in_after_the_cool_off(client, editor):
    for _ in range(10):
        attempt(client, "wrong")
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        response = attempt(client, "right-pass")
        assert response.status_code == 302
        assert client.session["_auth_user_id"] == str(editor.pk)


def test_another_address_is_not_locked_out(client, editor):
    for _ in range(10):
        attempt(client, "wrong", address="10.0.0.1")
    assert attempt(client, "right-pass", address="10.0.0.2").status_code == 302


def test_nine_wrong_passwords_do_not_lock(client, editor):
    for _ in range(9):
        attempt(client, "wrong")
    assert attempt(client, "right-pass").status_code == 302


def test_login_never_redirects_off_the_site(client, editor):
    response = client.post(
        LOGIN,
        {"username": "editor", "password": "right-pass", "next": "https://evil.example/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_bad_host_header_is_400(client):
    assert client.get("/", HTTP_HOST="evil.example").status_code == 400
