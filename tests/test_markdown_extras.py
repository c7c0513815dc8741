"""What tech writers expect of Markdown: footnotes, bare addresses as links, notes and
warnings (admonitions), a table of contents for articles of four sections or more, and
headings that link to themselves; all through the one sanitiser."""

import pytest

from news.rendering import render_markdown

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db

FOUR = "\n\n".join(f"## Part {n}\n\nText {n}." for n in range(1, 5))


def test_footnotes_link_both_ways():
    html = render_markdown("Shipped in May.[^1]\n\n[^1]: The release notes say 3 May.")
    assert '<sup id="fnref-1"><a class="footnote-ref" href="#fn-1"' in html
    assert '<li id="fn-1">' in html
    assert 'class="footnote-backref" href="#fnref-1" title="Back to the text"' in html
    assert "[^1]" not in html


def test_a_bare_address_is_a_link_written_as_typed():
    html = render_markdown("See https://example.org/notes for more.")
    assert (
        '<a href="https://example.org/notes" rel="noopener noreferrer nofollow">'
        "https://example.org/notes</a>"
    ) in html


def test_notes_and_warnings_are_boxes_with_their_title():
    html = render_markdown('!!! warning "Breaking change"\n    The old API is gone.')
    assert '<div class="admonition warning">' in html
    assert '<p class="admonition-title">Breaking change</p>' in html


def test_an_unknown_kind_of_box_keeps_no_class_of_its_own():
    html = render_markdown("!!! sparkle\n    Shiny.")
    assert "sparkle" not in html.split(">", 1)[0]
    assert '<div class="admonition">' in html


def test_an_editors_own_ids_and_classes_are_dropped():
    html = render_markdown(
        '<div id="main" class="site-header">x</div><li id="fn-1x">y</li><sup id="evil">z</sup>'
    )
    assert 'id="main"' not in html and "site-header" not in html
    assert 'id="fn-1x"' not in html and 'id="evil"' not in html


def test_four_sections_or_more_get_a_table_of_contents(client):
    long = ArticleFactory(body=FOUR)
    page = client.get(long.get_absolute_url()).content.decode()
    contents = page[
        page.index('<nav class="contents"') : page.index("</nav>", page.index('"contents"'))
    ]
    assert [f'<a href="#part-{n}">Part {n}</a>' in contents for n in range(1, 5)] == [True] * 4
    short = ArticleFactory(body=FOUR.rsplit("\n\n## ", 1)[0])
    assert '<nav class="contents"' not in client.get(short.get_absolute_url()).content.decode()


def test_headings_link_to_themselves_on_the_page_only(client):
    article = ArticleFactory(body=FOUR)
    page = client.get(article.get_absolute_url()).content.decode()
    assert (
        '<a class="heading-anchor" href="#part-2" aria-label="Link to the section “Part 2”">#</a>'
        in page
    )
    assert "heading-anchor" not in article.body_html
    assert "#" not in article.body_text
