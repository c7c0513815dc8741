"""No lost work: what an editor types is kept while they type and offered back; the
form says who else has the article open."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from editorial.models import AutoSave, Presence

from .factories import ArticleFactory
from .test_admin import form_data
from .test_workflow import change_url, edit_data

pytestmark = pytest.mark.django_db
AUTOSAVE = reverse("admin:news_article_autosave")


def login(django_user_model, name, group="Editors"):
    user = django_user_model.objects.create_user(name, f"{name}@example.org", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def eddie(django_user_model):
    return login(django_user_model, "eddie")


def keep(client, article, body):
    return client.post(
        AUTOSAVE, {"article": article.pk if article else "", "title": "T", "body": body}
    )


def test_typed_text_is_kept_and_offered_back(eddie):
    article = ArticleFactory(title="Story", draft=True)
    assert keep(eddie, article, "Half a sentence I had not saved").status_code == 200
    html = eddie.get(change_url(article)).content.decode()
    assert "You have text you did not save" in html
    assert '"body": "Half a sentence I had not saved"' in html


def test_saving_the_article_forgets_the_kept_text(eddie):
    article = ArticleFactory(title="Story", draft=True)
    keep(eddie, article, "Typed")
    eddie.post(change_url(article), edit_data(article, body="Typed"))
    assert not AutoSave.objects.exists()
    assert "You have text you did not save" not in eddie.get(change_url(article)).content.decode()


def test_kept_text_older_than_the_last_save_is_not_offered(eddie):
    article = ArticleFactory(title="Story", draft=True)
    keep(eddie, article, "Old words")
    AutoSave.objects.update(saved_at=timezone.now() - timedelta(hours=1))
    article.summary = "Saved by someone later."
    article.save()
    assert "You have text you did not save" not in eddie.get(change_url(article)).content.decode()


def test_a_new_article_keeps_its_text_until_it_is_added(eddie):
    keep(eddie, None, "A new article's first lines")
    add = reverse("admin:news_article_add")
    assert "A new article" in eddie.get(add).content.decode()
    eddie.post(add, form_data(status="draft"))
    assert not AutoSave.objects.filter(article=None).exists()


def test_nobody_keeps_text_in_an_article_they_may_not_edit(django_user_model):
    writer = login(django_user_model, "wendy", "Writers")
    published = ArticleFactory(title="Public story")
    assert keep(writer, published, "Sneaky").status_code == 403
    assert not AutoSave.objects.exists()


def test_the_form_says_who_else_has_the_article_open(eddie, django_user_model):
    edna = login(django_user_model, "edna")
    article = ArticleFactory(title="Story", draft=True)
    presence = reverse("admin:news_article_presence", args=[article.pk])
    assert eddie.post(presence).json() == {"others": []}
    html = edna.get(change_url(article)).content.decode()
    since = timezone.localtime(Presence.objects.get().since).strftime("%H:%M")
    assert f"eddie has had this article open since {since}" in html
    (other,) = edna.post(presence).json()["others"]
    assert (other["name"], other["since"]) == ("eddie", since)
    assert eddie.post(presence).json()["others"][0]["name"] == "edna"


def test_the_form_is_told_when_each_other_editor_runs_out(eddie, django_user_model, time_machine):
    # The page drops them then by its own clock, whether or not its next heartbeat is
    # answered (tests/browser/test_keeping.py).
    time_machine.move_to(timezone.now(), tick=False)
    edna = login(django_user_model, "edna")
    article = ArticleFactory(title="Story", draft=True)
    presence = reverse("admin:news_article_presence", args=[article.pk])
    eddie.post(presence)
    time_machine.shift(timedelta(seconds=7))
    assert edna.post(presence).json()["others"][0]["gone_in"] == 18.0
    html = edna.get(change_url(article)).content.decode()
    assert '"gone_in": 18.0' in html  # for the page's script, until its first heartbeat


def test_someone_who_left_is_no_longer_shown(eddie, django_user_model):
    edna = login(django_user_model, "edna")
    article = ArticleFactory(title="Story", draft=True)
    eddie.post(reverse("admin:news_article_presence", args=[article.pk]))
    Presence.objects.update(seen_at=timezone.now() - timedelta(minutes=5))
    assert "has had this article open" not in edna.get(change_url(article)).content.decode()


def test_a_closed_page_leaves_at_once_and_a_silent_one_within_25_seconds(eddie, django_user_model):
    edna = login(django_user_model, "edna")
    article = ArticleFactory(title="Story", draft=True)
    presence = reverse("admin:news_article_presence", args=[article.pk])
    eddie.post(presence)
    assert edna.post(presence).json()["others"][0]["name"] == "eddie"
    assert eddie.post(presence, {"leave": "1"}).status_code == 204
    assert edna.post(presence).json()["others"] == []
    eddie.post(presence)
    Presence.objects.filter(user__username="eddie").update(
        seen_at=timezone.now() - timedelta(seconds=26)
    )
    assert edna.post(presence).json()["others"] == []


def test_a_writer_leaves_an_article_published_while_they_had_it_open(eddie, django_user_model):
    wendy = login(django_user_model, "wendy", "Writers")
    article = ArticleFactory(title="Story", draft=True)
    presence = reverse("admin:news_article_presence", args=[article.pk])
    wendy.post(presence)
    assert eddie.post(presence).json()["others"][0]["name"] == "wendy"
    article.status = article.Status.PUBLISHED
    article.save()  # read-only to wendy from now on
    assert wendy.post(presence, {"leave": "1"}).status_code == 204  # her tab closes
    assert eddie.post(presence).json()["others"] == []
