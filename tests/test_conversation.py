"""The conversation on each article: the send-back note reaches the writer in the admin
(at the top of the form and on their dashboard, marked new until they open it), their
reply reaches the editors, and every workflow step is a line of it, without e-mail."""

import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from editorial.models import Note
from news.models import Article, ArticleAuthor
from people.models import Author

from .factories import ArticleFactory
from .test_workflow import change_url, edit_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def newsroom(django_user_model):
    # The users have no e-mail address: the conversation must not depend on one.
    def make(name, role):
        user = django_user_model.objects.create_user(
            name.lower(), password="pw", is_staff=True, first_name=name
        )
        user.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(user)
        return user, client

    ada, writer = make("Ada", "Writers")
    _, editor = make("Grace", "Editors")
    article = ArticleFactory(title="Zig 0.15 ships", status=Article.Status.REVIEW)
    ArticleAuthor.objects.create(
        article=article, author=Author.objects.create(name="Ada L", slug="ada", user=ada)
    )
    return writer, editor, article


def dashboard(client):
    html = client.get("/admin/").content.decode()
    return html[html.index('id="queue-for-you"') : html.index("</section>", html.index("for-you"))]


def test_a_send_back_note_reaches_the_writer_in_the_admin(newsroom):
    writer, editor, article = newsroom
    editor.post(
        change_url(article),
        edit_data(
            article, _workflow="send_back", _send_back_note="Please fix the typo in the title."
        ),
    )
    shown = dashboard(writer)
    assert "(1 new)" in shown
    assert "Sent back by Grace: “Please fix the typo in the title.”" in shown
    assert "Zig 0.15 ships" in shown
    form = writer.get(change_url(article)).content.decode()
    line = form[form.index('class="conversation"') :]
    assert '<strong class="conversation__new">New</strong> Sent back by Grace' in line
    assert "Please fix the typo in the title." in line
    # Opened: no longer new, on the dashboard or in the form.
    assert "Nothing new for you" in dashboard(writer)
    assert (
        "conversation__new"
        not in writer.get(change_url(article))
        .content.decode()
        .split('class="conversation"')[1]
        .split("</section>")[0]
    )


def test_the_writers_reply_reaches_the_editors(newsroom):
    writer, editor, article = newsroom
    editor.post(
        change_url(article),
        edit_data(article, _workflow="send_back", _send_back_note="Which platforms?"),
    )
    article.refresh_from_db()
    writer.post(
        change_url(article),
        edit_data(article, _workflow="submit", workflow_note="Linux and macOS, added."),
    )
    assert "Submitted for review by Ada: “Linux and macOS, added.”" in dashboard(editor)
    assert "Nothing new for you" in dashboard(writer)


def test_each_step_is_a_line_even_without_a_note(newsroom):
    writer, editor, article = newsroom
    editor.post(change_url(article), edit_data(article, _workflow="publish"))
    assert list(Note.objects.values_list("step", "text", "for_editors")) == [
        ("Published, not sent to subscribers", "", False)
    ]
    assert "Published, not sent to subscribers by Grace" in dashboard(writer)


def test_a_notes_time_is_a_valid_datetime_attribute(newsroom):
    """The HTML standard allows at most three fraction digits (issue 56.8: the Nu checker
    refused the six a note's time had)."""
    writer, editor, article = newsroom
    editor.post(change_url(article), edit_data(article, _workflow="send_back", _send_back_note="x"))
    note = Note.objects.get()
    Note.objects.filter(pk=note.pk).update(created_at=note.created_at.replace(microsecond=965104))
    form = writer.get(change_url(article)).content.decode()
    line = form[form.index('class="conversation__lines"') :]
    stamp = re.search(r'<time datetime="([^"]+)"', line).group(1)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", stamp), stamp
