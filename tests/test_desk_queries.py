"""The article form's SQL queries, pinned, with a small article and with one of many
rows (sources, related links, topics, authors), and among few or many other articles:
opening the add and change forms, the preview and the autosave sent while typing, and
saving. bench/desk.py times the same requests at 100,000 articles."""

from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client

from bench.editors import form_fields
from news.models import Article

from .factories import ArticleFactory, AuthorFactory, RelatedLinkFactory, SourceFactory

pytestmark = pytest.mark.django_db

# Pinned: a change that adds queries must change these, and say why in its commit.
# Opening, previewing and saving each ask once which tags are new topics (issue 44,
# item 18); the preview first finds the topics the typed names stand for.
OPEN_ADD = 8
OPEN_CHANGE = 32
PREVIEW = 9
AUTOSAVE = 11
SAVE_CHANGES = 92
SAVE_NEW = 60
# PostgreSQL takes the lock that serialises new slugs (news.slugs.lock_article_slugs) with
# one query of its own; SQLite's writes are serialised already.
SLUG_LOCK = {"postgresql": 1}


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("ed", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def rich_article(others):
    others = [ArticleFactory(title=f"Other story {n}") for n in range(others)]
    article = ArticleFactory(
        title="Zig 0.15 ships",
        tags=["zig", "release", "compilers"],
        authors=["Ada Lovelace"],
    )
    for n in range(3):
        SourceFactory(article=article, title=f"Source {n}", position=n)
    for n, target in enumerate(others[:3]):
        RelatedLinkFactory(article=article, target=target, position=n)
    return article


def change_url(article):
    return f"/admin/news/article/{article.pk}/change/"


@pytest.fixture(params=[3, 30], ids=["few articles", "many articles"])
def article(request, media_root):
    AuthorFactory(name="Grace Hopper")
    return rich_article(request.param)


def post_form(client, url, fields):
    body = urlencode([tuple(pair) for pair in fields])
    return client.post(url, body, content_type="application/x-www-form-urlencoded")


def test_opening_the_add_form(editor, article, django_assert_num_queries):
    editor.get("/admin/news/article/add/")
    with django_assert_num_queries(OPEN_ADD):
        assert editor.get("/admin/news/article/add/").status_code == 200


def test_opening_the_change_form(editor, article, django_assert_num_queries):
    editor.get(change_url(article))
    with django_assert_num_queries(OPEN_CHANGE):
        assert editor.get(change_url(article)).status_code == 200


def test_the_preview_while_typing(editor, article, django_assert_num_queries):
    fields = form_fields(editor.get(change_url(article)).content.decode(), "article_form")
    with django_assert_num_queries(PREVIEW):
        response = post_form(editor, "/admin/news/article/preview/", fields)
    assert response.status_code == 200


def test_the_autosave_while_typing(editor, article, django_assert_num_queries):
    data = {"article": article.pk, "title": article.title, "body": "Typed."}
    with django_assert_num_queries(AUTOSAVE):
        assert editor.post("/admin/news/article/autosave/", data).status_code == 200


def save_changes(client, article, line):
    fields = form_fields(client.get(change_url(article)).content.decode(), "article_form")
    fields = [[k, f"{v}\n\n{line}" if k == "body" else v] for k, v in fields]
    return lambda: post_form(client, change_url(article), [*fields, ["_continue", "Save"]])


def test_saving_changes(editor, article, django_assert_num_queries):
    # The first save of a process reads what later ones find cached (content types).
    assert save_changes(editor, article, "A first line.")().status_code == 302
    save = save_changes(editor, article, "One more line.")
    with django_assert_num_queries(SAVE_CHANGES):
        response = save()
    assert response.status_code == 302
    assert Article.objects.get(pk=article.pk).body.endswith("One more line.")


def save_new(client, title):
    fields = dict(
        form_fields(client.get("/admin/news/article/add/").content.decode(), "article_form")
    )
    fields.update(
        title=title,
        body="## What happened\n\nRust 1.95 shipped.\n",
        tags="rust, release",
        event_date="2026-11-30",
        published_at_0="2026-11-30",
        published_at_1="09:00",
        facts_verified="2026-11",
        **{"sources-0-title": "Release notes", "sources-0-publisher": "Rust"},
        _save="Save",
    )
    return lambda: post_form(client, "/admin/news/article/add/", list(fields.items()))


def test_saving_a_new_article(editor, article, django_assert_num_queries):
    assert save_new(editor, "Rust 1.94 ships")().status_code == 302
    save = save_new(editor, "Rust 1.95 ships")
    with django_assert_num_queries(SAVE_NEW + SLUG_LOCK.get(connection.vendor, 0)):
        response = save()
    assert response.status_code == 302
    assert Article.objects.filter(title="Rust 1.95 ships").exists()
