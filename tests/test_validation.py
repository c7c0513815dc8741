"""One validation layer (STYLE.md, item 18): the same bad article, sent through every
interface that takes articles (the admin's add form, the plain-text importer), is refused
by each with the same words, and nothing of it is saved.

The rules live in the model layer (news.rules, the validators of news.models,
Article.clean(), RelatedLink.clean(), Article.validate_parts()); these tests only check
that no interface has its own copy that says something else, or lets something through.
"""

import html
from dataclasses import dataclass, field, replace
from datetime import date

import pytest
from django.test import Client

from news.models import MONTH_NAMES
from news.rules import (
    MAX_BODY_CHARS,
    MAX_RELATED_LINKS,
    MAX_SOURCES,
    MAX_SUMMARY_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
)
from textfiles.importer import ImportFailed, import_articles

from .test_admin import form_data
from .test_limits import post, stored

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Draft:
    """An article as both interfaces can be given it. The body is one paragraph of
    letters, which the importer's Markdown escaping leaves as it is, so that both
    interfaces are given the same body."""

    title: str = "Go 1.22 released"
    body: str = "Go 1.22 shipped"
    tags: tuple = ("go", "release")
    sources: tuple = (("Release notes", "Go team", "https://go.dev/doc/go1.22"),)
    related: tuple = field(default=())
    day: date = date(2024, 2, 6)  # event and (backdated) publication
    verified: date = date(2024, 9, 1)
    summary: str = ""

    def form(self):
        return form_data(
            title=self.title,
            summary=self.summary,
            body=self.body,
            tags=", ".join(self.tags),
            event_date=self.day.isoformat(),
            published_at_0=self.day.isoformat(),
            published_at_1="00:00:00",
            facts_verified=f"{self.verified:%Y-%m}",
            sources=[
                {"id": "", "article": "", "position": str(i), "title": t, "publisher": p, "url": u}
                for i, (t, p, u) in enumerate(self.sources)
            ],
            links=[
                {"id": "", "article": "", "position": str(i), "target": "", "title": title}
                for i, title in enumerate(self.related)
            ],
        )

    def text(self):
        blocks = [self.title, self.body]
        if self.summary:
            blocks.insert(1, f"Format: plain text\nSummary: {self.summary}")
        if self.related:
            blocks += ["Related on Skillo", f"See also: {'; '.join(self.related)}."]
        if self.sources:
            lines = [f"• {t} ({p}) <{u}>" if u else f"• {t} ({p})" for t, p, u in self.sources]
            blocks += ["Sources", "\n".join(lines)]
        blocks.append(
            f"Published date reflects the original event date ({self.day:%Y-%m-%d}). This "
            "article is original Skillo editorial written from the sources above; facts were "
            f"verified in {MONTH_NAMES[self.verified.month - 1]} {self.verified.year}."
        )
        if self.tags:
            blocks.append(f"Tags: {', '.join(self.tags)}")
        return "\n\n".join(blocks) + "\n"


GOOD = Draft()


def numbered_sources(count):
    return tuple((f"Notes {i}", "Go team", f"https://go.dev/doc/{i}") for i in range(count))


# name: (the bad article, the message, what the importer says is wrong, and a piece of
# the line it names)
BAD_ARTICLES = {
    "too long body": (
        replace(GOOD, body="B" * (MAX_BODY_CHARS + 1)),
        "The body can be at most 100,000 characters long; this one has 100,001. Split it "
        "into several articles.",
        "body",
        "BBB",
    ),
    "too long summary": (
        replace(GOOD, summary="S" * (MAX_SUMMARY_CHARS + 1)),
        "The summary can be at most 500 characters long; this one has 501. Keep it to one "
        "or two sentences.",
        "summary",
        "Summary: ",
    ),
    "too many tags": (
        replace(GOOD, tags=tuple(f"topic{i}" for i in range(MAX_TAGS + 1))),
        "An article can have at most 30 tags; this one has 31.",
        "tags",
        "Tags: ",
    ),
    "too long tag": (
        replace(GOOD, tags=("go", "t" * (MAX_TAG_CHARS + 50))),
        f"A tag can be at most 100 characters long; “{'t' * 39}…” has 150.",
        "tags",
        "Tags: ",
    ),
    "tag with a control character": (
        replace(GOOD, tags=("go", "bad\x1btag")),
        "Remove the invisible control character U+001B (character 4); it was probably "
        "pasted from another program.",
        "tags",
        "Tags: ",
    ),
    "too many sources": (
        replace(GOOD, sources=numbered_sources(MAX_SOURCES + 1)),
        "An article can have at most 50 sources. This one has 51: remove some.",
        "sources",
        "• Notes 50 ",
    ),
    "too many related links": (
        replace(GOOD, related=tuple(f"Story {i}" for i in range(MAX_RELATED_LINKS + 1))),
        "An article can have at most 50 related links. This one has 51: remove some.",
        "related links",
        "See also: ",
    ),
    "self-related title": (
        replace(GOOD, related=("Go 1.21 released", "GO 1.22 RELEASED")),
        "An article cannot relate to itself.",
        "related link title",
        "See also: ",
    ),
    "date out of range": (
        replace(GOOD, day=date(1700, 2, 6)),
        "Enter a date between the years 1800 and 2200; this one is in 1700.",
        "event date",
        "Published date reflects",
    ),
    "control character in title": (
        replace(GOOD, title="Go\x1b 1.22 released"),
        "Remove the invisible control character U+001B (character 3); it was probably "
        "pasted from another program.",
        "title",
        "Go\x1b",
    ),
    "javascript: source URL": (
        replace(GOOD, sources=(("Release notes", "Go team", "javascript:alert(1)"),)),
        "Enter a valid URL.",
        "source url",
        "• Release notes",
    ),
}


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def admin_errors(response):
    """Every error message on the admin's form page: the article form's and each inline's
    (its rows' and its own)."""
    assert response.status_code == 200, response.status_code
    messages = [
        message
        for errors in response.context["adminform"].form.errors.values()
        for message in errors
    ]
    for inline in response.context["inline_admin_formsets"]:
        messages += inline.formset.non_form_errors()
        for row in inline.formset.errors:
            messages += [message for errors in row.values() for message in errors]
    page = html.unescape(response.content.decode())
    assert all(message in page for message in messages)
    return set(messages)


def import_errors(draft, tmp_path):
    """The importer's problems with ``draft``: {message: (line, what is wrong)}."""
    path = tmp_path / "article.txt"
    path.write_text(draft.text(), encoding="utf-8")
    with pytest.raises(ImportFailed) as failed:
        import_articles([path])
    found = {}
    for problem in failed.value.problems:
        location, what, message = problem.split(": ", 2)
        file_name, line = location.rsplit(":", 1)
        assert file_name == str(path), problem
        found.setdefault(message, set()).add((int(line), what))
    return found


def line_of(text, piece):
    return text[: text.index(piece)].count("\n") + 1


def test_the_good_article_is_the_same_article_through_either_interface(editor, tmp_path):
    response = post(editor, GOOD.form())
    assert response.status_code == 302, admin_errors(response)
    path = tmp_path / "article.txt"
    path.write_text(GOOD.text(), encoding="utf-8")
    # Imported over the one the admin saved: nothing to change.
    assert [article.title for article in import_articles([path]).unchanged] == [GOOD.title]


@pytest.mark.parametrize(
    ("draft", "message", "what", "line_piece"), BAD_ARTICLES.values(), ids=BAD_ARTICLES
)
def test_a_bad_article_gets_the_same_message_from_every_interface(
    editor, tmp_path, draft, message, what, line_piece
):
    before = stored()
    from_admin = admin_errors(post(editor, draft.form()))
    assert stored() == before
    from_import = import_errors(draft, tmp_path)
    assert stored() == before

    assert message in from_admin
    assert set(from_import) == from_admin
    assert (line_of(draft.text(), line_piece), what) in from_import[message]
