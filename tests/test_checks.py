"""Checks before publishing, in the preview: what to look at before an article goes out,
each a warning the editor may publish past."""

import re
from datetime import date

import pytest
from django.urls import reverse

from sources.models import SourceURL, State

from .factories import ArticleFactory, ImageFactory
from .test_admin import form_data
from .test_workflow import (
    make_client,  # noqa: F401 (a fixture)
    writer,  # noqa: F401 (a fixture)
)

pytestmark = pytest.mark.django_db
PREVIEW = reverse("admin:news_article_preview")


def checks(client, **fields):
    html = client.post(PREVIEW, form_data(**fields)).content.decode()
    section = html[html.index('<section class="checklist"') : html.index("</section>")]
    item = (
        r'checklist__item--(ok|warn)".*?<strong>([^<]+)</strong>'
        r"(?:<span[^>]*>[^<]*</span>)?: ([^<]*)</li>"
    )
    items = re.findall(item, section, re.S)
    return {name: (state, detail) for state, name, detail in items}, section


def test_a_complete_article_is_all_clear(writer, media_root):  # noqa: F811
    ArticleFactory(tags=["go", "release"])  # topics readers know already
    found, section = checks(
        writer,
        facts_verified=date.today().strftime("%Y-%m"),
        sources=[{"title": "Notes", "publisher": "Go", "url": "https://go.dev/doc/go1.22"}],
    )
    assert {name: state for name, (state, _) in found.items()} == {
        "Topics": "ok", "Images have alt text": "ok", "Sources": "ok", "Lead image": "ok",
        "Summary": "ok", "Facts verified": "ok", "Related links": "ok",
        "Headings in order": "ok", "Links work": "ok",
    }  # fmt: skip
    assert "Before publishing: all clear" in section


def test_each_problem_is_a_warning_that_says_what_and_where(writer, media_root):  # noqa: F811
    narrow = ImageFactory(width=800, height=450, alt_text="", decorative=True)
    draft = ArticleFactory(title="Not out yet", draft=True)
    SourceURL.objects.create(url="https://example.org/gone", state=State.GONE, failures=3)
    found, section = checks(
        writer,
        summary="S" * 200,
        lead_image=str(narrow.pk),
        body="## One\n\n#### Skipped a level\n\nSee [this](https://example.org/gone).",
        facts_verified="2020-01",
        links=[{"title": "Not out yet", "target": str(draft.pk)}],
    )
    assert found["Sources"] == ("warn", "No sources: readers cannot check the facts.")
    assert found["Lead image"][0] == "warn" and "800 px wide" in found["Lead image"][1]
    assert found["Summary"][1].startswith("200 characters")
    assert found["Facts verified"][1].startswith("Verified in January 2020")
    assert "“Not out yet”" in found["Related links"][1].replace("&ldquo;", "“").replace(
        "&rdquo;", "”"
    )
    assert found["Headings in order"][0] == "warn"
    assert "https://example.org/gone (gone)" in found["Links work"][1]
    assert found["Topics"][0] == "warn"  # "go" and "release" would be new topics
    assert "Before publishing: 8 things to look at" in section


def test_a_picture_without_alt_text_is_named(writer, media_root):  # noqa: F811
    undescribed = ImageFactory()
    type(undescribed).objects.filter(pk=undescribed.pk).update(
        alt_text="", decorative=False, original_name="chart.png"
    )
    found, _ = checks(writer, body=f"## One\n\n![](image:{undescribed.key})")
    assert found["Images have alt text"] == ("warn", "No alt text: chart.png.")
