"""The release desk's pages are valid HTML: the dashboard with its Releases column and a
tip in For you, and a project's public page."""

import pytest
from django.urls import reverse

from news.models import Article
from releases.models import Tip

from ..factories import ArticleFactory
from ..test_html_validity import nu_errors
from .test_desk import make_tip


@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
def test_the_desk_and_a_projects_page_are_valid_html(editor, writer, torch, tmp_path):
    torch.public_page = True
    torch.save()
    make_tip(torch, "2.4.0", summary="Notes & <things>.")
    make_tip(torch, "2.3.0", assignee=writer.user, state=Tip.State.ASSIGNED)
    story = ArticleFactory(title="PyTorch 2.2 released")
    make_tip(torch, "2.2.0", article=story, state=Tip.State.WRITTEN)
    pages = {
        "dashboard, editor": editor.get(reverse("admin:index")).content,
        "dashboard, writer": writer.get(reverse("admin:index")).content,
        "project": editor.get(torch.get_absolute_url()).content,
    }
    assert b"PyTorch 2.2 released" in pages["project"]
    assert Article.objects.count() == 1
    assert nu_errors(pages, tmp_path) == []
