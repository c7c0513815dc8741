"""Corrections and updates: marked by an editor when saving a published article, tied to
that save's revision, shown to readers on the article, on /corrections/ and its feed,
and kept from disappearing quietly."""

import json
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from news.models import Article, Correction

from .factories import ArticleFactory, CorrectionFactory
from .test_workflow import change_url, edit_data

pytestmark = pytest.mark.django_db

NOTE = "An earlier version said the release dropped Python 3.8; it dropped 3.7."


def user_client(django_user_model, group, username):
    user = django_user_model.objects.create_user(username, password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def editor(django_user_model):
    return user_client(django_user_model, "Editors", "ed")


@pytest.fixture
def admin(django_user_model):
    return user_client(django_user_model, "Admins", "boss")


@pytest.fixture
def article():
    return ArticleFactory(title="Release 3 ships", tags=["python"])


def save(client, article, **fields):
    article.refresh_from_db()
    return client.post(change_url(article), edit_data(article, **fields))


def test_an_editor_marks_a_correction_tied_to_the_saves_revision(editor, article):
    response = save(editor, article, summary="Fixed.", change_kind="correction", change_note=NOTE)
    assert response.status_code == 302
    correction = Correction.objects.get()
    assert (correction.article, correction.kind, correction.note) == (article, "correction", NOTE)
    latest = Version.objects.get_for_object(article).first()
    assert correction.revision_id == latest.revision_id


def test_a_typo_fix_stays_silent(editor, article):
    save(editor, article, summary="A release shipped, with a typo fixed.")
    assert not Correction.objects.exists()


def test_a_note_without_a_kind_is_refused_and_nothing_saved(editor, article):
    response = save(editor, article, summary="Changed.", change_note=NOTE)
    assert "Choose correction or update" in response.content.decode()
    article.refresh_from_db()
    assert article.summary != "Changed." and not Correction.objects.exists()


def test_a_correction_without_a_note_is_refused(editor, article):
    response = save(editor, article, change_kind="correction", change_note="  ")
    assert "Write the note readers will see" in response.content.decode()
    assert not Correction.objects.exists()


def test_a_draft_gets_no_correction(editor):
    draft = ArticleFactory(draft=True)
    response = save(editor, draft, change_kind="update", change_note="New.", status="draft")
    assert "Corrections and updates are for published articles" in response.content.decode()
    assert not Correction.objects.exists()


def test_the_article_shows_corrections_at_the_top_and_updates_at_the_end(client, article):
    CorrectionFactory(article=article, note="Wrong date fixed.")
    CorrectionFactory(article=article, kind=Correction.Kind.UPDATE, note="3.1 is out now.")
    page = client.get(article.get_absolute_url()).content.decode()
    assert page.index("Wrong date fixed.") < page.index('class="article-body"')
    assert page.index("3.1 is out now.") > page.index('class="article-body"')
    assert '<h2 id="corrections-heading">Correction</h2>' in page
    assert '<h2 id="updates-heading">Update</h2>' in page


def test_json_ld_carries_corrections_as_correction_comments(client, article):
    correction = CorrectionFactory(article=article, note="Wrong date fixed.")
    CorrectionFactory(article=article, kind=Correction.Kind.UPDATE, note="Not a correction.")
    page = client.get(article.get_absolute_url()).content.decode()
    data = json.loads(re.search(r'<script type="application/ld\+json">(.*?)</script>', page)[1])
    assert data["correction"] == [
        {
            "@type": "CorrectionComment",
            "text": "Wrong date fixed.",
            "datePublished": correction.published_at.replace(microsecond=0).isoformat(),
        }
    ]


def test_an_article_without_corrections_has_no_correction_in_json_ld(client, article):
    page = client.get(article.get_absolute_url()).content.decode()
    assert '"correction"' not in page and "notices" not in page


def test_a_correction_moves_date_modified_and_lastmod(editor, article, client):
    Article.objects.filter(pk=article.pk).update(updated_at=timezone.now() - timedelta(days=9))
    save(editor, article, change_kind="correction", change_note=NOTE)
    article.refresh_from_db()
    assert timezone.now() - article.updated_at < timedelta(minutes=1)
    sitemap = client.get("/sitemaps/articles.xml").content.decode()
    assert f"<lastmod>{article.updated_at.replace(microsecond=0).isoformat()}" in sitemap


def test_the_corrections_page_lists_every_correction_newest_first(client):
    older = CorrectionFactory(note="Older note.", published_at=timezone.now() - timedelta(days=3))
    newer = CorrectionFactory(note="Newer note.")
    CorrectionFactory(kind=Correction.Kind.UPDATE, note="An update, not listed.")
    page = client.get(reverse("news:corrections")).content.decode()
    assert page.index("Newer note.") < page.index("Older note.")
    assert f'href="{newer.get_absolute_url()}"' in page
    assert older.article.title in page
    assert "An update, not listed." not in page


def test_corrections_of_drafts_never_leak(client):
    hidden = ArticleFactory(title="Unpublished again", draft=True)
    CorrectionFactory(article=hidden, note="Hidden note.")
    for url in (reverse("news:corrections"), reverse("news:corrections-feed")):
        page = client.get(url).content.decode()
        assert "Hidden note." not in page and "Unpublished again" not in page, url


def test_the_corrections_feed_has_each_correction(client, article):
    correction = CorrectionFactory(article=article, note="Wrong date fixed.")
    feed = client.get(reverse("news:corrections-feed")).content.decode()
    assert "<title>Correction: Release 3 ships</title>" in feed
    assert "Wrong date fixed." in feed
    assert f"{correction.get_absolute_url()}</link>" in feed


def test_the_sitemap_lists_the_corrections_page_once_there_is_one(client, article):
    assert "sitemaps/corrections.xml" not in client.get("/sitemap.xml").content.decode()
    CorrectionFactory(article=article)
    assert "sitemaps/corrections.xml" in client.get("/sitemap.xml").content.decode()
    assert "/corrections/</loc>" in client.get("/sitemaps/corrections.xml").content.decode()


def test_an_editor_cannot_edit_or_remove_a_correction(editor, article):
    correction = CorrectionFactory(article=article, note="Kept.")
    url = reverse("admin:news_correction_change", args=[correction.pk])
    editor.post(url, {"note": "Quietly changed."})
    editor.post(reverse("admin:news_correction_delete", args=[correction.pk]), {"post": "yes"})
    correction.refresh_from_db()
    assert correction.note == "Kept."


def test_an_admins_edit_of_a_note_is_recorded(admin, article):
    correction = CorrectionFactory(article=article, note="First words.")
    admin.post(reverse("admin:news_correction_change", args=[correction.pk]), {"note": "Better."})
    correction.refresh_from_db()
    assert correction.note == "Better."
    versions = Version.objects.get_for_object(correction)
    assert versions.first().revision.user.username == "boss"
    assert versions.first().field_dict["note"] == "Better."


def test_an_admins_removal_of_a_correction_is_recorded(admin, article):
    correction = CorrectionFactory(article=article, note="Withdrawn words.")
    admin.post(reverse("admin:news_correction_delete", args=[correction.pk]), {"post": "yes"})
    assert not Correction.objects.exists()
    deleted = Version.objects.get_deleted(Correction).get()
    assert deleted.field_dict["note"] == "Withdrawn words."
    assert deleted.revision.user.username == "boss"
    assert deleted.revision.comment == "Removed this correction."


def test_the_correction_admin_links_to_the_diff(editor, admin, article):
    save(editor, article, summary="First revision.")
    save(editor, article, summary="Fixed.", change_kind="correction", change_note=NOTE)
    correction = Correction.objects.get()
    page = admin.get(reverse("admin:news_correction_change", args=[correction.pk]))
    assert "Compare with the version before" in page.content.decode()


def test_the_corrections_feed_without_corrections_does_not_change(client, time_machine):
    first = client.get(reverse("news:corrections-feed")).content
    time_machine.move_to(timezone.now() + timedelta(hours=1))
    assert client.get(reverse("news:corrections-feed")).content == first
