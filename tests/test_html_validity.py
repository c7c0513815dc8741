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
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from news.models import Article
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
    author = AuthorFactory(name="Ada <Lovelace> & co", slug="ada", bio="One.\n\nTwo & <three>.")
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
        "archive year": reverse("news:archive-year", args=[year]),
        "archive month": reverse("news:archive-month", args=[year, month]),
        "search": reverse("search:results") + "?q=python",
        "search, no results": reverse("search:results") + "?q=zzzz",
        "search, a suggestion": reverse("search:results") + "?q=pythn+%22%3Cimpl%22+%26",
        "search, empty": reverse("search:results"),
        "about": reverse("news:about-editorial"),
        "authors": reverse("news:authors"),
        "author": reverse("news:author", args=["ada"]),
        "not found": "/no-such-page/",
    }


# One database shows what the checker needs to see; make test's SQLite pass has VNU_JAR.
@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
def test_every_public_page_is_valid_html(site, tmp_path):
    command = checker()
    client = Client(raise_request_exception=False)
    files = {}
    for name, url in public_pages(site).items():
        response = client.get(url)
        assert response.status_code in {200, 404}, (name, response.status_code)
        path = tmp_path / f"{name.replace(' ', '-').replace(',', '')}.html"
        path.write_bytes(response.content)
        files[str(path.resolve())] = name
    result = subprocess.run(
        [*command, "--errors-only", "--format", "json", "--stdout", *files],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    messages = json.loads(result.stdout)["messages"]
    errors = [
        f"{files.get(m['url'].removeprefix('file:'), m['url'])}: line {m.get('lastLine')}: "
        f"{m['message']}"
        for m in messages
        if m["type"] == "error"
    ]
    assert errors == []
    assert len(files) == 16
