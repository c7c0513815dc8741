"""Eight editors press "Write it up" on one tip at the same moment: one draft."""

import threading

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.urls import reverse

from news.models import Article
from releases.models import Tip, WatchedProject

from .test_desk import make_tip

PRESSES = 8
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: SQLite's test database is a shared-cache in-memory "
        "database whose locks fail at once instead of waiting",
    ),
]


def test_write_it_up_pressed_at_once_by_several_editors_makes_one_draft(django_user_model):
    tip = make_tip(WatchedProject.objects.create(name="PyTorch", slug="pytorch"), "2.4.0")
    clients = []
    for n in range(PRESSES):
        user = django_user_model.objects.create_user(f"ed{n}", is_staff=True)
        user.groups.add(Group.objects.get(name="Editors"))
        client = Client(raise_request_exception=False)
        client.force_login(user)
        clients.append(client)
    start = threading.Barrier(PRESSES)
    answers = [None] * PRESSES

    def press(i, client):
        try:
            start.wait()
            answers[i] = client.post(reverse("admin:releases_tip_write_up", args=[tip.pk]))
        finally:
            connection.close()

    threads = [threading.Thread(target=press, args=(i, c)) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert Article.objects.count() == 1
    article = Article.objects.get()
    assert {answer.status_code for answer in answers} == {302}
    assert {answer["Location"] for answer in answers} == {
        reverse("admin:news_article_change", args=[article.pk])
    }
    assert Tip.objects.get().article == article
