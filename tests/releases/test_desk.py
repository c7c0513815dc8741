"""The release desk on the dashboard: the Releases column (editors), "Not news",
"Assign to ..." (the writer sees it in "For you"), and "Write it up", which starts the
draft a desk would write."""

from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from news.models import Article, Tag
from releases.models import ReleaseSource, Tip, TipLink, WatchedProject

from ..factories import ArticleFactory
from .conftest import person

pytestmark = pytest.mark.django_db
HOME = reverse("admin:index")
JULY_24 = datetime(2024, 7, 24, 23, 39, tzinfo=UTC)


def make_tip(project, version, released=JULY_24, **fields):
    github = ReleaseSource.objects.get_or_create(
        project=project, kind="github", identifier="pytorch/pytorch"
    )[0]
    pypi = ReleaseSource.objects.get_or_create(project=project, kind="pypi", identifier="torch")[0]
    page = f"https://github.com/pytorch/pytorch/releases/tag/v{version}"
    tip = Tip.objects.create(
        project=project,
        version=version,
        version_key=version,
        released_at=released,
        release_url=page,
        notes_url=page,
        **{"summary": "We are excited to announce the release of PyTorch.", **fields},
    )
    TipLink.objects.create(tip=tip, source=github, url=page, notes_url=page)
    TipLink.objects.create(tip=tip, source=pypi, url=f"https://pypi.org/project/torch/{version}/")
    return tip


def column(client):
    html = client.get(HOME).content.decode()
    start = html.index('id="queue-releases"')
    return html[start : html.index("</section>", start)]


def for_you(client):
    html = client.get(HOME).content.decode()
    start = html.index('id="queue-for-you"')
    return html[start : html.index("</section>", start)]


def post(client, tip, action, **data):
    return client.post(reverse(f"admin:releases_tip_{action}", args=[tip.pk]), data)


def test_the_releases_column_lists_waiting_tips_newest_first_with_their_sources(editor, torch):
    make_tip(torch, "2.3.0", JULY_24 - timedelta(days=60))
    make_tip(torch, "2.4.0")
    make_tip(torch, "2.2.0", JULY_24 - timedelta(days=90), state=Tip.State.DISMISSED)
    html = column(editor)
    assert "Releases (2)" in html
    assert html.index("PyTorch 2.4.0") < html.index("PyTorch 2.3.0")
    assert "2.2.0" not in html
    assert '<a href="https://pypi.org/project/torch/2.4.0/">PyPI</a>' in html
    assert "24 July 2024, 23:39 UTC" in html
    assert "Write it up" in html and "Not news" in html and "Assign to" in html


def test_writers_have_no_releases_column(writer, torch):
    make_tip(torch, "2.4.0")
    assert 'id="queue-releases"' not in writer.get(HOME).content.decode()


def test_not_news_takes_a_tip_off_the_desk(editor, torch):
    tip = make_tip(torch, "2.4.0")
    response = post(editor, tip, "dismiss")
    assert response.status_code == 302
    tip.refresh_from_db()
    assert tip.state == Tip.State.DISMISSED
    assert "PyTorch 2.4.0" not in column(editor)


def test_a_writer_may_neither_dismiss_nor_assign(writer, torch):
    tip = make_tip(torch, "2.4.0")
    assert post(writer, tip, "dismiss").status_code == 403
    assert post(writer, tip, "assign", assignee=writer.user.pk).status_code == 403
    assert Tip.objects.get().state == Tip.State.NEW


def test_a_tip_assigned_to_a_writer_shows_in_their_for_you(editor, writer, torch):
    tip = make_tip(torch, "2.4.0")
    post(editor, tip, "assign", assignee=writer.user.pk)
    tip.refresh_from_db()
    assert (tip.state, tip.assignee) == (Tip.State.ASSIGNED, writer.user)
    assert "PyTorch 2.4.0" in for_you(writer)
    assert "assigned to wanda" in column(editor)


def test_assigning_to_someone_who_may_not_write_is_refused(editor, torch, django_user_model):
    outsider = django_user_model.objects.create_user("reader", "r@example.org", "pw")
    tip = make_tip(torch, "2.4.0")
    post(editor, tip, "assign", assignee=outsider.pk)
    assert Tip.objects.get().state == Tip.State.NEW


def test_write_it_up_starts_the_draft_a_desk_would_write(editor, torch):
    tip = make_tip(torch, "2.4.0")
    response = post(editor, tip, "write_up")
    article = Article.objects.get()
    assert response["Location"] == reverse("admin:news_article_change", args=[article.pk])
    assert article.title == "PyTorch 2.4.0 released"
    assert article.status == Article.Status.DRAFT
    assert article.event_date == date(2024, 7, 24)  # the release's day in UTC
    assert [(s.publisher, s.url) for s in article.sources.all()] == [
        ("GitHub", "https://github.com/pytorch/pytorch/releases/tag/v2.4.0"),
        ("PyPI", "https://pypi.org/project/torch/2.4.0/"),
    ]
    assert sorted(article.tags.names()) == ["Machine learning", "Python"]
    assert "We are excited to announce the release of PyTorch." in article.body
    tip.refresh_from_db()
    assert (tip.state, tip.article) == (Tip.State.WRITTEN, article)


def test_the_draft_relates_the_published_stories_on_earlier_versions_newest_first(editor, torch):
    older = ArticleFactory(title="PyTorch 2.2 released")
    old = ArticleFactory(title="PyTorch 2.3 released")
    unpublished = ArticleFactory(title="PyTorch 2.3.1 released", draft=True)
    make_tip(torch, "2.2.0", JULY_24 - timedelta(days=200), article=older, state="written")
    make_tip(torch, "2.3.0", JULY_24 - timedelta(days=90), article=old, state="written")
    make_tip(torch, "2.3.1", JULY_24 - timedelta(days=40), article=unpublished, state="written")
    post(editor, make_tip(torch, "2.4.0"), "write_up")
    draft = Article.objects.get(title="PyTorch 2.4.0 released")
    assert [link.target for link in draft.related_links.all()] == [old, older]


def test_earlier_coverage_is_found_by_the_projects_topic_and_the_version_in_its_title(
    editor, torch
):
    """A story written before the desk watched the project ("NumPy 2.0 released" was
    missed): on one of its topics, naming it and an earlier version."""
    python = Tag.objects.get(name="Python")
    before = ArticleFactory(title="PyTorch 2.3 released: what changes", tags=[python])
    ArticleFactory(title="PyTorch 2.5 preview", tags=[python])  # a later version
    ArticleFactory(title="PyTorch 2.3 in production", tags=["Other topic"])  # not its topic
    ArticleFactory(title="PyTorch 2.2 released", tags=[python], draft=True)  # not public
    post(editor, make_tip(torch, "2.4.0"), "write_up")
    draft = Article.objects.get(title="PyTorch 2.4.0 released")
    assert [link.target for link in draft.related_links.all()] == [before]


def test_the_drafts_byline_is_whoever_wrote_it_up(editor, torch):
    from people.models import Author

    eddie = Author.objects.create(name="Eddie Editor", slug="eddie", user=editor.user)
    post(editor, make_tip(torch, "2.4.0"), "write_up")
    assert Article.objects.get().byline == [eddie]


def test_a_title_with_rc_inside_a_word_is_no_release_candidate():
    from releases.versions import from_title

    # The "rc" of "PyTorch" made its final release a pre-release tip.
    assert from_title("PyTorch 2.4 released") == ("2.4", False)
    assert from_title("Django 5.1 release candidate 1") == ("5.1rc1", True)


def test_a_tip_written_up_leads_to_its_article_and_makes_no_second(editor, torch):
    tip = make_tip(torch, "2.4.0")
    first = post(editor, tip, "write_up")["Location"]
    assert post(editor, tip, "write_up")["Location"] == first
    assert Article.objects.count() == 1


def test_the_writer_given_a_tip_may_write_it_up_and_another_may_not(
    writer, torch, django_user_model
):
    other = person(django_user_model, "otto", "Writers")
    tip = make_tip(torch, "2.4.0", assignee=writer.user, state=Tip.State.ASSIGNED)
    assert post(other, tip, "write_up").status_code == 403
    assert post(writer, tip, "write_up").status_code == 302
    assert Article.objects.get().updated_by == writer.user


def test_the_dashboard_asks_as_many_queries_for_one_tip_as_for_twenty(editor, torch):
    make_tip(torch, "1.0.0")
    editor.get(HOME)  # the first request of a session fills caches the others do not
    with CaptureQueriesContext(connection) as one:
        editor.get(HOME)
    for n in range(1, 20):
        make_tip(torch, f"1.{n}.0", JULY_24 - timedelta(days=n))
    with CaptureQueriesContext(connection) as twenty:
        editor.get(HOME)
    assert len(twenty) == len(one)


def test_the_drafts_conversation_says_which_tip_it_came_from(editor, torch):
    post(editor, make_tip(torch, "2.4.0"), "write_up")
    form = editor.get(reverse("admin:news_article_change", args=[Article.objects.get().pk]))
    html = form.content.decode()
    assert "Started from the release desk" in html
    assert "PyTorch 2.4.0, released 2024-07-24 23:39 UTC" in html
    assert "https://pypi.org/project/torch/2.4.0/" in html


def test_editors_add_a_project_to_watch_with_its_sources(editor):
    python = Tag.objects.create(name="Python")
    response = editor.post(
        reverse("admin:releases_watchedproject_add"),
        {
            "name": "Ruff",
            "slug": "ruff",
            "topics": [python.pk],
            "sources-TOTAL_FORMS": "2",
            "sources-INITIAL_FORMS": "0",
            "sources-0-kind": "github",
            "sources-0-identifier": "astral-sh/ruff",
            "sources-0-include": "stable",
            "sources-1-kind": "pypi",
            "sources-1-identifier": "ruff",
            "sources-1-include": "all",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    project = WatchedProject.objects.get()
    assert [s.address for s in project.sources.all()] == [
        "https://github.com/astral-sh/ruff/releases.atom",
        "https://pypi.org/rss/project/ruff/releases.xml",
    ]


def test_the_admin_pages_of_projects_sources_and_tips_open(admin_client, torch):
    tip = make_tip(torch, "2.4.0")
    post(admin_client, tip, "write_up")
    source = ReleaseSource.objects.first()
    for name, args in [
        ("releases_watchedproject_changelist", []),
        ("releases_watchedproject_change", [torch.pk]),
        ("releases_releasesource_changelist", []),
        ("releases_releasesource_change", [source.pk]),
        ("releases_tip_changelist", []),
        ("releases_tip_change", [tip.pk]),
    ]:
        response = admin_client.get(reverse(f"admin:{name}", args=args))
        assert response.status_code == 200, name
    tips = admin_client.get(reverse("admin:releases_tip_changelist")).content.decode()
    article = Article.objects.get()
    assert reverse("admin:news_article_change", args=[article.pk]) in tips


def test_the_column_says_how_many_sources_are_failing(editor, torch):
    make_tip(torch, "2.4.0")
    ReleaseSource.objects.filter(kind="pypi").update(failures=2, last_error="answered 500")
    html = column(editor)
    assert "1 release source failing." in html
    assert reverse("admin:releases_releasesource_changelist") + "?health=failing" in html
