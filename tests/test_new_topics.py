"""A writer's new tag is no public topic until an editor makes it one (issue 44, item
18): the form and the checklist mark it "new topic, needs an editor", and publishing the
article asks the editor first, keeping everything typed."""

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from news.models import Article, Tag

from .factories import ArticleFactory
from .test_admin import form_data
from .test_workflow import change_url, edit_data
from .test_workflow_bar import bar

pytestmark = pytest.mark.django_db

PREVIEW = reverse("admin:news_article_preview")


@pytest.fixture
def login(django_user_model):
    def make(role, name):
        user = django_user_model.objects.create_user(name, password="pw", is_staff=True)
        user.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(user)
        return client

    return make


@pytest.fixture
def submitted():
    """A writer's article in review, tagged with a topic readers know and a new one."""
    ArticleFactory(tags=["Rust"])
    return ArticleFactory(status=Article.Status.REVIEW, tags=["Rust", "quantum tea"])


def marked(response):
    match = re.search(r'<strong class="new-topics">([^<]*)</strong>', response.content.decode())
    return match.group(1) if match else None


def test_a_writers_new_tag_is_marked_in_the_form(login, submitted):
    writer = login("Writers", "ada")
    assert marked(writer.get(change_url(submitted))) == "“quantum tea”: new topic, needs an editor."


def test_a_tag_readers_know_is_not_marked(login):
    ArticleFactory(tags=["Rust"])
    draft = ArticleFactory(draft=True, tags=["Rust"])
    assert marked(login("Writers", "ada").get(change_url(draft))) is None


def test_a_topic_an_editor_set_up_is_not_new(login):
    Tag.objects.create(name="Quantum tea", slug="quantum-tea", intro="Tea, entangled.")
    draft = ArticleFactory(draft=True, tags=["Quantum tea"])
    assert marked(login("Writers", "ada").get(change_url(draft))) is None


def test_the_checklist_marks_a_new_topic_as_it_is_typed(login):
    ArticleFactory(tags=["Rust"])
    writer = login("Writers", "ada")
    html = writer.post(PREVIEW, form_data(tags="rust, Quantum tea")).content.decode()
    item = re.search(r'checklist__item--(\w+)".*?<strong>Topics</strong>.*?: ([^<]*)</li>', html)
    assert item.group(1) == "warn"
    assert item.group(2).startswith("“Quantum tea”: new topic, needs an editor.")
    assert "“Rust”" not in item.group(2)  # "rust" typed is the topic "Rust"


def test_publishing_a_writers_new_tag_asks_the_editor_and_loses_nothing(login, submitted):
    editor = login("Editors", "grace")
    data = edit_data(submitted, _workflow="publish_send", summary="Typed just now.")
    response = editor.post(change_url(submitted), data)
    assert response.status_code == 200
    assert not Article.objects.published().filter(pk=submitted.pk).exists()
    shown = bar(response)
    assert "New topics: “quantum tea”" in shown
    assert 'name="_workflow" value="publish_send" formaction="?_new_topics=quantum+tea"' in shown
    assert "Create the topics, then publish and send" in shown
    html = response.content.decode()
    assert "Typed just now.</textarea>" in html
    assert "quantum tea" in re.search(r'name="tags" value="([^"]*)"', html).group(1)


def test_confirming_publishes_and_the_topic_goes_public(login, submitted, client):
    editor = login("Editors", "grace")
    response = editor.post(
        change_url(submitted) + "?_new_topics=quantum+tea",
        edit_data(submitted, _workflow="publish"),
    )
    assert response.status_code == 302
    assert Article.objects.published().filter(pk=submitted.pk).exists()
    topic = Tag.objects.get(name="quantum tea")
    assert client.get(reverse("news:tag", args=[topic.slug])).status_code == 200


def test_a_confirmation_covers_only_the_topics_it_names(login, submitted):
    submitted.tags.add("moon cheese")
    editor = login("Editors", "grace")
    response = editor.post(
        change_url(submitted) + "?_new_topics=quantum+tea",
        edit_data(submitted, _workflow="publish"),
    )
    assert response.status_code == 200
    assert "“moon cheese”" in bar(response)
    assert not Article.objects.published().filter(pk=submitted.pk).exists()


def test_scheduling_asks_too_and_keeps_the_time_chosen(login, submitted):
    editor = login("Editors", "grace")
    when = (timezone.localtime() + timezone.timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    response = editor.post(
        change_url(submitted),
        edit_data(submitted, _workflow="schedule", _schedule_at=when, _schedule_send="1"),
    )
    assert response.status_code == 200
    shown = bar(response)
    assert 'value="schedule" formaction="?_new_topics=quantum+tea"' in shown
    assert f'name="_schedule_at" value="{when}"' in shown
    assert 'name="_schedule_send" value="1" checked' in shown


def test_an_editors_own_new_tag_is_their_act_and_publishes(login):
    editor = login("Editors", "grace")
    draft = ArticleFactory(status=Article.Status.REVIEW)
    data = edit_data(draft, _workflow="publish", tags="a topic I mean")
    assert editor.post(change_url(draft), data).status_code == 302
    assert Article.objects.published().filter(pk=draft.pk).exists()
