"""Every public page is valid HTML by the Nu Html Checker (the W3C's validator).

make test installs the checker (the npm package vnu-jar) and Java (Debian's
default-jre-headless), and sets VNU_JAR; run alone, without it, the test says how.
All pages are checked in one run of the checker (one Java start).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import reversion
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from news.models import Article
from people.models import Author
from readership import most_read
from readership.models import ArticleHour, SourceHour
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)


def checker():
    jar = Path(os.environ.get("VNU_JAR", ""))
    java = shutil.which("java")
    if not (jar.is_file() and java):
        pytest.fail(
            "The Nu Html Checker is not installed: set VNU_JAR to vnu.jar and install Java "
            "(make test does both)."
        )
    return [java, "-jar", str(jar)]


@pytest.fixture
def site(db, shared_article, media_root):
    # "Publish now" stores the time with microseconds. A lead image with a caption.
    photo = ImageFactory(width=1600, height=900, caption="A caption & <credit>")
    # With a portrait: bylines show it on lists and articles.
    author = AuthorFactory(
        name="Ada <Lovelace> & co",
        slug="ada",
        bio="One.\n\nTwo & <three>.",
        photo=ImageFactory(width=600, height=800),
    )
    AuthorLinkFactory(author=author, label="Mastodon & more")
    fresh = ArticleFactory(
        title="AT&T <impl Trait> & more",
        tags=["python", "c++"],
        authors=[author, "Grace Hopper"],
        lead_image=photo,
    )
    fresh.published_at = timezone.now()
    fresh.save()
    SourceFactory(article=fresh)
    RelatedLinkFactory(article=fresh, target=shared_article)
    RelatedLinkFactory(article=fresh, target=None, title="Not written yet")
    ArticleFactory(title="A draft", draft=True)
    # Read enough for "Most read" on the home page and beside the articles, and for the
    # dashboard's and the article's readership figures.
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for views, article in enumerate([fresh, shared_article, ArticleFactory()], start=30):
        ArticleHour.objects.create(article=article, hour=hour, views=views, visitors=views - 9)
        SourceHour.objects.create(article=article, hour=hour, source="Search engines", views=9)
    most_read.refresh()
    return fresh


def public_pages(article):
    year, month = article.event_date.year, article.event_date.month
    return {
        "home": reverse("news:index"),
        "article": article.get_absolute_url(),
        "shared article": Article.objects.exclude(pk=article.pk).first().get_absolute_url(),
        "topics": reverse("news:tags"),
        "topic": reverse("news:tag", args=["python"]),
        "timeline": reverse("news:tag-timeline", args=["python"]),
        "archive index": reverse("news:archive"),
        "archive year": reverse("news:archive-year", args=[year]),
        "archive month": reverse("news:archive-month", args=[year, month]),
        "search": reverse("search:results") + "?q=python",
        "search, no results": reverse("search:results") + "?q=zzzz",
        "search, a suggestion": reverse("search:results") + "?q=pythn+%22%3Cimpl%22+%26",
        "search, empty": reverse("search:results"),
        "about": reverse("news:about-editorial"),
        "about the figures": reverse("readership:about-figures"),
        "follow": reverse("news:follow"),
        "topic feed page": reverse("news:tag-feed-page", args=["python"]),
        "corrections feed page": reverse("news:corrections-feed-page"),
        "authors": reverse("news:authors"),
        "author": reverse("news:author", args=["ada"]),
        "newsletter": reverse("newsletters:sign-up") + "?topic=python",
        "newsletter archive": reverse("newsletters:archive"),
        "not found": "/no-such-page/",
    }


def nu_errors(pages, folder):
    """The checker's errors on each page, as "name: line N: message"; ``pages`` maps a
    name to the HTML. One run of the checker (one Java start) for all of them."""
    command = checker()
    files = {}
    for name, content in pages.items():
        path = folder / f"{name.replace(' ', '-').replace(',', '')}.html"
        path.write_bytes(content)
        files[str(path.resolve())] = name
    result = subprocess.run(
        [*command, "--errors-only", "--format", "json", "--stdout", *files],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    messages = json.loads(result.stdout)["messages"]
    return [
        f"{files.get(m['url'].removeprefix('file:'), m['url'])}: line {m.get('lastLine')}: "
        f"{m['message']}"
        for m in messages
        if m["type"] == "error"
    ]


# One database shows what the checker needs to see; make test's SQLite pass has VNU_JAR.
@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
def test_every_public_page_is_valid_html(site, tmp_path):
    client = Client(raise_request_exception=False)
    pages = {}
    for name, url in public_pages(site).items():
        response = client.get(url)
        assert response.status_code in {200, 404}, (name, response.status_code)
        pages[name] = response.content
    assert nu_errors(pages, tmp_path) == []
    assert len(pages) == 23


@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
def test_the_admin_pages_editors_work_in_are_valid_html(site, tmp_path, admin_client):
    """The article's forms (their autocompletes, hidden fields), an image's crops, an
    author, and an article's revisions: history, comparison, one revision."""
    with reversion.create_revision():
        site.summary = "Revised."
        site.save()
    with reversion.create_revision():
        site.summary = "Revised again."
        site.save()
    older, newer = Version.objects.get_for_object(site).order_by("pk")[:2]
    article = f"/admin/news/article/{site.pk}"
    # The calendar's move forms are for scheduled stories.
    soon = ArticleFactory(title="Coming soon", scheduled=True).published_at
    year, week, _ = soon.isocalendar()
    urls = {
        "dashboard": "/admin/",
        "article, add": "/admin/news/article/add/",
        "article, change": f"{article}/change/",
        "image, change": f"/admin/images/image/{site.lead_image_id}/change/",
        "author, change": f"/admin/people/author/{Author.objects.get(slug='ada').pk}/change/",
        "history": f"{article}/history/",
        "compare": f"{article}/history/compare/?version_id1={older.pk}&version_id2={newer.pk}",
        "revision": f"{article}/history/{older.pk}/",
        "calendar, month": f"/admin/news/article/calendar/?month={soon:%Y-%m}",
        "calendar, week": f"/admin/news/article/calendar/?week={year}-W{week:02d}",
    }
    pages = {}
    for name, url in urls.items():
        response = admin_client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        pages[name] = response.content
    assert nu_errors(pages, tmp_path) == []
