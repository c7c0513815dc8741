from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from news.models import Article

from .conftest import DEMO_CONTENT, SHARED_SLUG

pytestmark = [
    pytest.mark.django_db,
    # make run loads the demo, on SQLite; the importer it goes through is tested on
    # both databases (test_import_export.py).
    pytest.mark.sqlite_only(reason="the demo is make run's, on SQLite"),
]


def load():
    out = StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def test_demo_content_fills_every_page(client):
    load()
    published = Article.objects.published()
    assert published.count() >= 13
    assert published.filter(slug=SHARED_SLUG).exists()
    assert Article.objects.drafts().count() == 1
    assert Article.objects.scheduled().count() == 1
    assert any(a.is_backdated for a in published) and not all(a.is_backdated for a in published)
    assert all(a.tags.count() >= 2 and a.sources.exists() for a in published)
    for article in published:
        page = client.get(article.get_absolute_url()).content.decode()
        assert "Related on Skillo" in page and "Referenced by" in page, article.slug
    users = get_user_model().objects
    assert users.get(username="admin").is_superuser
    assert users.get(username="writer").groups.get().name == "Writers"
    assert users.get(username="editor").groups.get().name == "Editors"


def test_demo_related_links_all_resolve_to_published_articles(client):
    load()
    unresolved = [
        (article.slug, link.title)
        for article in Article.objects.published().for_detail()
        for link in article.related_links.all()
        if link.is_public and not link.public_url
    ]
    assert unresolved == []


def test_loading_again_keeps_the_data():
    load()
    article = Article.objects.get(slug=SHARED_SLUG)
    article.title = "Edited by an editor"
    article.save()
    assert "already has articles" in load()
    assert Article.objects.get(slug=SHARED_SLUG).title == "Edited by an editor"
    assert get_user_model().objects.filter(username="admin").count() == 1


def test_shared_article_matches_the_copy_in_shared(request):
    shared = request.config.rootpath.parent / "shared" / "content" / "pytorch-2-4.txt"
    if not shared.exists():
        pytest.skip("../shared is not beside this checkout")
    assert (DEMO_CONTENT / "pytorch-2-4.txt").read_bytes() == shared.read_bytes()


def test_demo_articles_show_lead_images_and_share_cards(client, media_root):
    assert "; 7 have a lead image;" in load()
    illustrated = Article.objects.published().filter(lead_image__isnull=False)
    assert illustrated.count() == 7
    assert not illustrated.filter(slug=SHARED_SLUG).exists()
    for article in illustrated:
        image = article.lead_image
        assert image.width >= 1200 and image.credit.startswith("Illustration: Skillo")
        assert "<picture>" in client.get(article.get_absolute_url()).content.decode()


def test_the_demo_mails_nothing_and_its_newsletter_archive_is_a_history(client):
    from django_tasks_db.models import DBTaskResult

    from newsletters.models import Issue

    load()
    # Nothing is mailed now: the first make run printed 15 newsletters. (The scheduled
    # story's issue waits for its time, three days ahead.)
    queued = DBTaskResult.objects.filter(task_path__contains="newsletters")
    assert [row.run_after > timezone.now() + timedelta(days=2) for row in queued] == [True]
    sent = list(Issue.objects.sent())
    published = Article.objects.published().filter(email_subscribers=True)
    assert len(sent) == published.count() > 10
    assert {issue.sent_at for issue in sent} == set(
        published.values_list("published_at", flat=True)
    )
    archive = client.get("/newsletter/archive/").content.decode()
    assert sent[0].subject in archive
