"""Article cards kept as rendered HTML (news.cards): list pages read them instead of
rendering twenty cards, and show no card older than what it shows."""

import io
from datetime import UTC, date, datetime

import pytest
from django.core.management import call_command
from django.db import OperationalError, connection
from django.test.utils import CaptureQueriesContext

from news import cards
from news.models import Article, ArticleAuthor, ArticleCard, Tag
from people.models import Author
from tests.conftest import count_queries
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def home(client):
    response = client.get("/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_shown_card_is_kept(client):
    article = ArticleFactory(title="Kept card", tags=["python"], authors=["Ada Lovelace"])
    home(client)
    kept = ArticleCard.objects.get(article=article)
    assert "Kept card" in kept.html and "Ada Lovelace" in kept.html and "python" in kept.html
    assert kept.version == cards.version()
    assert kept.authors == [article.byline[0].pk]


def test_a_list_page_shows_the_kept_card_without_rendering_it(client):
    article = ArticleFactory(title="Kept card")
    home(client)
    # What the page shows comes from the kept card, not from the article.
    ArticleCard.objects.filter(article=article).update(
        html='<article class="card">From the store</article>'
    )
    assert "From the store" in home(client)


def test_an_edited_title_shows_in_the_card(client):
    article = ArticleFactory(title="Old title")
    assert "Old title" in home(client)
    article.title = "New title"
    article.save()
    page = home(client)
    assert "New title" in page and "Old title" not in page


def test_a_renamed_topic_shows_in_every_card(client):
    ArticleFactory(tags=["pyton"])
    ArticleFactory(tags=["pyton"])
    assert home(client).count('rel="tag">pyton<') == 2
    tag = Tag.objects.get(name="pyton")
    tag.name, tag.slug = "python", "python"
    tag.save()
    page = home(client)
    assert page.count('<a href="/tags/python/" rel="tag">python</a>') == 2
    assert "pyton" not in page


def test_a_deleted_topic_leaves_the_cards(client):
    ArticleFactory(tags=["gone", "kept"])
    assert 'rel="tag">gone<' in home(client)
    Tag.objects.get(name="gone").delete()
    page = home(client)
    assert 'rel="tag">gone<' not in page and 'rel="tag">kept<' in page


def test_a_topic_added_to_an_article_shows_in_its_card(client):
    article = ArticleFactory(tags=["python"])
    home(client)
    article.tags.add("rust")
    assert 'rel="tag">rust<' in home(client)


def test_a_renamed_author_shows_in_every_card(client):
    ArticleFactory(authors=["Ada Lovlace"])
    ArticleFactory(authors=["Ada Lovlace"])
    assert home(client).count("Ada Lovlace") == 2
    author = Author.objects.get(name="Ada Lovlace")
    author.name = "Ada Lovelace"
    author.save()
    page = home(client)
    assert page.count('rel="author">Ada Lovelace<') == 2 and "Lovlace" not in page


def test_a_byline_change_shows_in_the_card(client):
    article = ArticleFactory(authors=["Ada Lovelace"])
    home(client)
    ArticleAuthor.objects.create(
        article=article,
        author=Author.objects.create(name="Grace Hopper", slug="grace-hopper"),
        position=1,
    )
    assert "Ada Lovelace</a> and <a" in home(client)


def test_a_card_rendered_before_a_change_is_not_kept(client):
    """A request reads an article, an editor's change commits, then the request keeps the
    card it rendered from what it read: the change wins."""
    article = ArticleFactory(title="Before")
    home(client)
    serial = ArticleCard.objects.get(article=article).serial
    rendered = cards.render({article.pk: serial})  # what the slow request rendered

    article.title = "After"
    article.save()  # the editor's change, committed first
    cards.keep(rendered, {article.pk: serial})  # the slow request ends

    assert ArticleCard.objects.get(article=article).html == ""
    page = home(client)
    assert "After" in page and "Before" not in page


def test_cards_rendered_by_an_older_template_are_rendered_again(client):
    article = ArticleFactory(title="Rendered again")
    home(client)
    ArticleCard.objects.filter(article=article).update(
        version="0123456789abcdef", html="<p>old design</p>"
    )
    page = home(client)
    assert "old design" not in page and "Rendered again" in page
    assert ArticleCard.objects.get(article=article).version == cards.version()


def test_the_archive_shows_cards_dated_by_their_event(client):
    ArticleFactory(event_date=date(2024, 3, 5), published_at=datetime(2024, 7, 24, 12, tzinfo=UTC))
    assert 'Event <time datetime="2024-03-05">5 March 2024</time>' in (
        client.get("/archive/2024/3/").content.decode()
    )
    page = home(client)
    assert '<time datetime="2024-07-24' in page and "Event <time" not in page


def test_cards_show_when_the_database_refuses_to_keep_them(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("attempt to write a readonly database")

    ArticleFactory(title="Shown all the same")
    ArticleCard.objects.all().delete()  # as for an article older than cards
    monkeypatch.setattr(ArticleCard.objects, "bulk_create", refuse)
    assert "Shown all the same" in home(client)
    assert not ArticleCard.objects.exists()


def test_render_bodies_forgets_the_cards_whose_teaser_may_change(client):
    article = ArticleFactory(summary="", body="First paragraph.\n\n## Later\n\nMore.")
    home(client)
    Article.objects.filter(pk=article.pk).update(body_html="<p>Stale teaser</p>")
    call_command("render_bodies", stdout=io.StringIO())
    assert ArticleCard.objects.get(article=article).html == ""
    assert "First paragraph." in home(client)


def test_rendering_cards_costs_one_query_per_card_kept_and_no_other(client):
    """Cards not kept yet are rendered with a fixed number of queries (the articles, their
    tags and authors); keeping each is one update."""

    def cold_queries():
        ArticleCard.objects.all().delete()
        with CaptureQueriesContext(connection) as queries:
            assert client.get("/").status_code == 200
        return len(queries)

    ArticleFactory(tags=["t0", "common"], authors=["Writer 0", "Common Writer"])
    client.get("/")  # the site-wide parts (the header's topics) are warm from here
    one = cold_queries()
    for i in range(1, 20):
        ArticleFactory(tags=[f"t{i}", "common"], authors=[f"Writer {i}", "Common Writer"])
    client.get("/")
    assert cold_queries() == one + 19
    assert count_queries(client, "/") == 1  # and once kept, the page's one query
