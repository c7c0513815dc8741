"""Preview links for outside reviewers: a draft's page through a link that works for a
chosen time, can be revoked, and is recorded in the article's history."""

import re
from datetime import date, timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from editorial import previews
from editorial.models import PreviewLink
from news.templatetags.news import long_date

from .factories import ArticleFactory
from .test_workflow import change_url, make_client, writer  # noqa: F401 (fixtures)
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

pytestmark = pytest.mark.django_db


def make_link(client, article, hours="24"):
    response = client.post(
        change_url(article).replace("change/", "preview-link/"),
        {"_preview_hours": hours},
        follow=True,
    )
    message = " ".join(str(m) for m in response.context["messages"])
    # On the site's public address: the reviewer is outside, whatever host the admin is.
    site = re.escape(settings.SKILLO_SITE_URL)
    return re.search(f'href="({site}/preview/[^"]+/)"', message).group(1)


def test_a_preview_link_shows_the_draft_to_someone_without_an_account(writer):  # noqa: F811
    draft = ArticleFactory(title="Not out yet", draft=True)
    url = make_link(writer, draft)
    outsider = Client()
    page = outsider.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Not out yet</h1>" in html
    assert "A preview, not published" in html
    assert page["Cache-Control"] == "no-store, private"
    assert page["X-Robots-Tag"] == "noindex, nofollow"
    assert page["Referrer-Policy"] == "no-referrer"
    assert outsider.get(draft.get_absolute_url()).status_code == 404
    history = writer.get(change_url(draft).replace("change/", "history/")).content.decode()
    assert "Preview link made, valid until" in history


def test_a_preview_link_expires(writer, time_machine):  # noqa: F811
    draft = ArticleFactory(draft=True)
    url = make_link(writer, draft, hours="1")
    time_machine.move_to(timezone.now() + timedelta(hours=1, minutes=1))
    gone = Client().get(url)
    assert gone.status_code == 410
    assert "This preview link has expired" in gone.content.decode()


def test_a_preview_link_can_be_revoked(writer):  # noqa: F811
    draft = ArticleFactory(draft=True)
    url = make_link(writer, draft)
    link = PreviewLink.objects.get()
    form = writer.get(change_url(draft)).content.decode()
    assert f"/preview-link/{link.pk}/revoke/" in form
    writer.post(change_url(draft).replace("change/", f"preview-link/{link.pk}/revoke/"))
    assert Client().get(url).status_code == 410
    history = writer.get(change_url(draft).replace("change/", "history/")).content.decode()
    assert "Preview link revoked" in history


def test_a_link_revoked_already_is_not_revoked_again(writer):  # noqa: F811
    draft = ArticleFactory(draft=True)
    make_link(writer, draft)
    link = PreviewLink.objects.get()
    revoke = change_url(draft).replace("change/", f"preview-link/{link.pk}/revoke/")
    writer.post(revoke)
    revoked_at = PreviewLink.objects.get().revoked_at
    again = writer.post(revoke, follow=True)  # the page of before, its button clicked again
    assert "it was revoked or had expired already" in again.content.decode()
    assert PreviewLink.objects.get().revoked_at == revoked_at
    lines = Version.objects.get_for_object(draft).values_list("revision__comment", flat=True)
    assert list(lines).count("Preview link revoked") == 1


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_link_revoked_at_the_same_moment_is_revoked_once_in_the_history(
    live_server, django_user_model
):
    editor = django_user_model.objects.create_superuser("ed", "ed@example.org", "pw")
    draft = ArticleFactory(draft=True)
    _, link = previews.make(draft, editor, 24)
    revoke = change_url(draft).replace("change/", f"preview-link/{link.pk}/revoke/")
    browsers = [Browser(live_server, editor) for _ in range(RACERS)]
    for browser in browsers:
        assert f"/preview-link/{link.pk}/revoke/" in browser.get(change_url(draft)).text
    responses = together([browser.sender(revoke) for browser in browsers])
    assert outcomes(responses) == {302: RACERS}
    lines = Version.objects.get_for_object(draft).values_list("revision__comment", flat=True)
    assert list(lines).count("Preview link revoked") == 1
    assert PreviewLink.objects.get().revoked_at is not None


def test_at_most_a_week_and_only_the_hash_is_kept(writer):  # noqa: F811
    draft = ArticleFactory(draft=True)
    url = make_link(writer, draft, hours="10000")
    link = PreviewLink.objects.get()
    assert link.expires_at <= timezone.now() + timedelta(days=7)
    token = url.rstrip("/").rsplit("/", 1)[1]
    assert token not in link.token_hash
    assert Client().get("/preview/not-a-token/").status_code == 404


def test_only_who_may_change_the_article_makes_a_link(make_client):  # noqa: F811
    published = ArticleFactory()
    someone = make_client("writer", "wanda")
    response = someone.post(change_url(published).replace("change/", "preview-link/"))
    assert response.status_code == 403
    assert not PreviewLink.objects.exists()


def test_a_preview_of_a_draft_says_not_published_where_the_date_would_be(writer):  # noqa: F811
    draft = ArticleFactory(
        draft=True, published_at=timezone.make_aware(timezone.datetime(2025, 4, 3, 9))
    )
    html = Client().get(make_link(writer, draft)).content.decode()
    meta = re.search(r'<p class="meta">(.*?)</p>', html, re.S)[1]
    assert "Not published" in meta
    assert "Published" not in meta
    assert "3 April 2025" not in meta


def test_a_preview_of_a_scheduled_article_says_when_it_will_be_published(writer):  # noqa: F811
    moment = timezone.now() + timedelta(days=3)
    scheduled = ArticleFactory(published_at=moment)
    editor = get_user_model().objects.create_user("editor")
    token, _ = previews.make(scheduled, editor, 24)
    html = Client().get(reverse("shared-preview", args=[token])).content.decode()
    meta = re.search(r'<p class="meta">(.*?)</p>', html, re.S)[1]
    assert "Scheduled for" in meta
    assert long_date(timezone.localtime(moment)) in meta
    assert "Published" not in meta


def test_a_preview_of_a_draft_has_no_publication_date_in_its_footer(writer):  # noqa: F811
    draft = ArticleFactory(
        draft=True,
        published_at=timezone.make_aware(timezone.datetime(2025, 4, 3, 9)),
        event_date=date(2025, 4, 1),
    )
    html = Client().get(make_link(writer, draft)).content.decode()
    footer = re.search(r'<p class="editorial-note">(.*?)</p>', html, re.S)[1]
    assert "Not published yet; the event took place on" in footer
    assert "2025-04-03" not in footer


def test_a_preview_of_a_scheduled_article_says_in_its_footer_when_it_will_be_published(
    writer,  # noqa: F811
):
    moment = timezone.now() + timedelta(days=3)
    scheduled = ArticleFactory(published_at=moment)
    editor = get_user_model().objects.create_user("editor")
    token, _ = previews.make(scheduled, editor, 24)
    html = Client().get(reverse("shared-preview", args=[token])).content.decode()
    footer = re.search(r'<p class="editorial-note">(.*?)</p>', html, re.S)[1]
    assert f'To be published on <time datetime="{timezone.localdate(moment)}">' in footer
