"""The release desk in a real browser: an editor sees a new release on the dashboard and
gives it to a writer, who finds it in "For you", writes it up and submits the draft."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from news.models import Article
from releases.models import ReleaseSource, Tip, TipLink, WatchedProject

from .checks import axe_violations
from .test_editing import log_in, screenshots_on_failure

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_editor_assigns_a_release_and_the_writer_writes_it_up(
    new_page, site, artifacts, axe_source
):
    project = WatchedProject.objects.create(name="Ruff", slug="ruff")
    source = ReleaseSource.objects.create(project=project, kind="pypi", identifier="ruff")
    page = "https://pypi.org/project/ruff/0.9.0/"
    tip = Tip.objects.create(
        project=project,
        version="0.9.0",
        version_key="0.9",
        released_at=timezone.now() - timedelta(hours=3),
        release_url=page,
    )
    TipLink.objects.create(tip=tip, source=source, url=page)

    editor = log_in(new_page, site, "editor")
    with screenshots_on_failure(artifacts, "releases-editor", editor):
        column = editor.locator("section[aria-labelledby=queue-releases]")
        expect(column).to_contain_text("Ruff 0.9.0")
        assert axe_violations(editor, axe_source, within=".queue--releases") == []
        # The demo's releases wait there too: this one's row.
        row = column.locator(f"#tip-{tip.pk}")
        row.get_by_label("Assign to").select_option(label="writer")
        row.get_by_role("button", name="Assign", exact=True).click()
        expect(editor.locator(".messagelist")).to_contain_text("Ruff 0.9.0 is writer's to write up")
        expect(column.locator(f"#tip-{tip.pk}")).to_contain_text("assigned to writer")

    writer = log_in(new_page, site, "writer")
    with screenshots_on_failure(artifacts, "releases-writer", writer):
        for_you = writer.locator("section[aria-labelledby=queue-for-you]")
        expect(for_you).to_contain_text("Ruff 0.9.0")
        for_you.get_by_role("button", name="Write it up").click()
        expect(writer.locator("#id_title")).to_have_value("Ruff 0.9.0 released")
        writer.get_by_role("button", name="Submit for review").click()
        expect(writer.locator(".messagelist")).to_contain_text(
            "Submitted “Ruff 0.9.0 released” for review"
        )
    article = Article.objects.get(title="Ruff 0.9.0 released")
    assert article.status == Article.Status.REVIEW
    assert Tip.objects.get(pk=tip.pk).article == article
