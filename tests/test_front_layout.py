"""The home page laid out as a newsroom's (news.front), thumbnails on every list and
portraits in bylines, as the server sends them (issue 33). The browser tests
(tests/browser/test_front.py) check how they look."""

import re

import pytest
from django.core.cache import cache

from images.renditions import page_renditions
from news.front import SECTION_SIZE, TOP_SIZE
from news.models import FrontPin, Tag

from .conftest import count_queries
from .factories import ArticleFactory, AuthorFactory, ImageFactory

pytestmark = pytest.mark.django_db

TITLE = re.compile(r'<h2 class="(?:card-title|lead-story__title)"><a href="[^"]+">([^<]+)</a>')


def home(client):
    return client.get("/").content.decode()


def titles(html):
    return TITLE.findall(html)


def part(html, start, end):
    return html[html.index(start) : html.index(end, html.index(start))]


def lead(html):
    return titles(part(html, '<div class="front-lead">', "</article>"))


def top(html):
    return titles(part(html, '<div class="card-grid front-grid">', "</section>"))


def sections(html):
    """{section heading: [story titles]}, in the page's order."""
    found = {}
    for block in re.findall(r'<section class="front-section".*?</section>', html, re.S):
        name = re.search(r'class="section-heading"><a href="[^"]+">([^<]+)</a>', block)[1]
        found[name] = titles(block)
    return found


def rest(html):
    if '<section class="front-latest"' not in html:
        return []
    return titles(part(html, '<section class="front-latest"', "</section>"))


def header_topics(*names):
    for position, name in enumerate(names, start=1):
        Tag.objects.filter(name=name).update(header_position=position)
    cache.clear()


def test_without_choices_the_newest_lead_and_the_next_fill_the_grid(client):
    for n in range(10):
        ArticleFactory(title=f"Story {n}")
    html = home(client)
    assert lead(html) == ["Story 9"]
    assert top(html) == [f"Story {n}" for n in range(8, 8 - TOP_SIZE, -1)]
    assert rest(html) == ["Story 2", "Story 1", "Story 0"]


def test_pinned_features_come_first_in_the_grid_then_the_newest(client):
    old = [ArticleFactory(title=f"Old feature {n}") for n in range(2)]
    for n in range(8):
        ArticleFactory(title=f"Story {n}")
    for position, article in enumerate(reversed(old)):
        FrontPin.objects.create(article=article, position=position)
    html = home(client)
    assert lead(html) == ["Story 7"]
    assert top(html)[:3] == ["Old feature 1", "Old feature 0", "Story 6"]
    assert len(top(html)) == TOP_SIZE


def test_each_header_topic_has_a_section_of_its_latest_stories_in_the_editors_order(client):
    for n in range(12):
        ArticleFactory(title=f"Filler {n}")  # the lead and the grid
    for n in range(5):
        ArticleFactory(title=f"Linux {n}", tags=["linux"], published_at=f"2024-01-0{n + 1}T12:00Z")
        ArticleFactory(title=f"Rust {n}", tags=["rust"], published_at=f"2024-02-0{n + 1}T12:00Z")
    for n in range(12, 20):
        ArticleFactory(title=f"Filler {n}")
    header_topics("rust", "linux")
    found = sections(home(client))
    assert list(found) == ["rust", "linux"]
    assert found["rust"] == ["Rust 4", "Rust 3", "Rust 2"]
    assert found["linux"] == ["Linux 4", "Linux 3", "Linux 2"]
    assert len(found["rust"]) == SECTION_SIZE


def test_without_chosen_header_topics_the_biggest_have_sections(client):
    for n in range(3):
        ArticleFactory(title=f"Big {n}", tags=["big"], published_at=f"2024-01-0{n + 1}T12:00Z")
    ArticleFactory(title="Small 0", tags=["small"], published_at="2024-01-05T12:00Z")
    for n in range(TOP_SIZE + 1):
        ArticleFactory(title=f"Filler {n}")
    found = sections(home(client))
    assert list(found) == ["big", "small"]
    assert found["big"] == ["Big 2", "Big 1", "Big 0"]


def test_a_story_shows_once_on_the_home_page(client):
    for n in range(4):
        ArticleFactory(title=f"Python {n}", tags=["python", "release"])
    html = home(client)
    shown = titles(html)
    assert sorted(shown) == [f"Python {n}" for n in range(4)]
    # All four lead or fill the grid: the topics have nothing left to show.
    assert sections(html) == {}


def test_drafts_and_scheduled_stories_are_nowhere_on_the_home_page(client):
    for n in range(TOP_SIZE + 1):
        ArticleFactory(title=f"Filler {n}")
    ArticleFactory(title="Linux public", tags=["linux"], published_at="2024-01-01T12:00Z")
    ArticleFactory(title="Linux draft", tags=["linux"], draft=True)
    ArticleFactory(title="Linux scheduled", tags=["linux"], scheduled=True)
    pinned_draft = ArticleFactory(title="Pinned draft", draft=True)
    FrontPin.objects.create(article=pinned_draft, lead=True)
    FrontPin.objects.create(article=ArticleFactory(title="Pinned scheduled", scheduled=True))
    html = home(client)
    assert sections(html) == {"linux": ["Linux public"]}
    for hidden in ["draft", "scheduled"]:
        assert hidden not in " ".join(titles(html)).lower()
    assert lead(html) == ["Filler 6"] and "Lead story" not in html


def test_a_new_story_in_a_topic_joins_its_section(client):
    for n in range(TOP_SIZE + 1):
        ArticleFactory(title=f"Filler {n}", published_at=f"2024-03-0{n + 1}T12:00Z")
    ArticleFactory(title="Linux old", tags=["linux"], published_at="2024-01-01T12:00Z")
    assert sections(home(client)) == {"linux": ["Linux old"]}
    ArticleFactory(title="Linux new", tags=["linux"], published_at="2024-02-01T12:00Z")
    assert sections(home(client)) == {"linux": ["Linux new", "Linux old"]}


def test_the_home_pages_queries_stay_flat_with_sections_pins_and_pictures(client, media_root):
    pictures = [ImageFactory(), ImageFactory()]

    def add(n, lead):
        for i in range(n):
            article = ArticleFactory(
                tags=["linux" if i % 2 else "rust", "release"],
                authors=[AuthorFactory(photo=pictures[0])],
                lead_image=pictures[i % 2],
            )
            if i % 5 == 0:
                FrontPin.objects.create(article=article, lead=lead and i == 0, position=i)

    add(8, lead=True)
    header_topics("rust", "linux", "release")
    few = count_queries(client, "/")
    add(40, lead=False)  # one lead story at a time
    # The newest ids and the layout are remembered, the cards kept.
    assert count_queries(client, "/") == few == 0
    # Every card rendered again: the articles with their topics and bylines (their
    # authors' portraits with them), as for a plain list of cards.
    from news.dependencies import ARTICLE
    from news.models import Article

    every = ARTICLE.each(Article.objects.values_list("pk", flat=True))
    assert count_queries(client, "/", rendering=every) == 3


# Thumbnails on every list.


def card_of(html, title):
    at = html.index(f">{title}</a></h2>")
    return html[html.rindex("<article", 0, at) : html.index("</article>", at)]


@pytest.fixture
def illustrated(media_root):
    picture = ImageFactory(width=1600, height=900)
    return ArticleFactory(
        title="With a picture", tags=["linux"], lead_image=picture, event_date="2024-05-02"
    )


@pytest.fixture
def plain():
    return ArticleFactory(title="Without a picture", tags=["Linux"], event_date="2024-05-01")


LISTS = ["/tags/linux/", "/archive/2024/", "/archive/2024/5/", "/search/?q=picture", "/feed/about/"]


@pytest.mark.parametrize("path", LISTS)
def test_a_list_shows_the_lead_pictures_thumbnail_with_its_size(client, illustrated, plain, path):
    html = client.get(path).content.decode()
    card = card_of(html, "With a picture")
    smallest = page_renditions(illustrated.lead_image, "avif")[0]
    assert f"{smallest.url} {smallest.width}w" in card
    img = re.search(r"<img [^>]*>", card)[0]
    assert 'width="1600" height="900"' in img and 'alt=""' in img
    assert 'loading="lazy"' in img


def test_an_authors_page_shows_thumbnails(client, illustrated):
    author = AuthorFactory(name="Ada", slug="ada")
    illustrated.authorships.create(author=author, position=0)
    card = card_of(client.get("/authors/ada/").content.decode(), "With a picture")
    assert 'class="card__picture"' in card and "<picture>" in card


@pytest.mark.parametrize("path", LISTS)
def test_an_article_without_a_picture_gets_no_stand_in_box(client, plain, path):
    card = card_of(client.get(path).content.decode(), "Without a picture")
    assert "<img" not in card and "card__picture" not in card


def test_a_picture_whose_renditions_are_not_ready_is_left_out_not_a_broken_frame(
    client, media_root
):
    waiting = ImageFactory(made=False)
    ArticleFactory(title="Picture on its way", tags=["linux"], lead_image=waiting)
    card = card_of(client.get("/tags/linux/").content.decode(), "Picture on its way")
    assert "<img" not in card and "card__picture" not in card


def test_the_lead_picture_is_fetched_at_once_and_the_grids_lazily(client, media_root):
    picture = ImageFactory()
    ArticleFactory(title="Older", lead_image=picture)
    ArticleFactory(title="Newest", lead_image=picture)
    html = home(client)
    lead_img = re.search(r"<img [^>]*>", part(html, '<div class="front-lead">', "</article>"))[0]
    assert 'fetchpriority="high"' in lead_img and "loading" not in lead_img
    assert 'loading="lazy"' in card_of(html, "Older")


# Portraits in bylines.


def test_bylines_show_the_authors_portrait_on_lists_and_the_article(client, media_root):
    portrait = ImageFactory(width=600, height=800, alt_text="Ada at her desk")
    ada = AuthorFactory(name="Ada Writer", slug="ada", photo=portrait)
    article = ArticleFactory(title="By Ada", tags=["linux"], authors=[ada, "Bo Writer"])
    smallest = page_renditions(portrait, "jpg")[0]
    avif = page_renditions(portrait, "avif")[0]
    expected = (
        f'<span class="byline-portraits"><picture><source type="image/avif" '
        f'srcset="{avif.url}"><img class="portrait" src="{smallest.url}" width="32" '
        'height="32" alt="" loading="lazy" decoding="async"></picture></span>By '
    )
    for path in ["/tags/linux/", "/authors/ada/", article.get_absolute_url()]:
        html = client.get(path).content.decode()
        assert expected in html, path
        # Bo has no portrait: one picture only, and Ada's words are not repeated.
        assert html.count('class="portrait"') == 1, path


def test_a_byline_without_portraits_is_the_names_alone(client):
    ArticleFactory(title="By Bo", tags=["linux"], authors=["Bo Writer"])
    html = client.get("/tags/linux/").content.decode()
    assert "byline-portraits" not in html
    assert '<span class="byline">By <a href="/authors/bo-writer/" rel="author">' in html
