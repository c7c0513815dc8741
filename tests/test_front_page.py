"""The home page and header as the editors choose them: a lead story and pinned
features with an expiry, the header's topics in their order, intros on topic pages.
Without choices, the site keeps its automatic behaviour."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from news.dependencies import FRONT
from news.models import FrontPin, Tag
from news.purge import ArticleSchedule

from .conftest import count_queries
from .factories import ArticleFactory, ImageFactory

pytestmark = pytest.mark.django_db


def home(client):
    return client.get("/").content.decode()


def test_without_choices_the_newest_story_leads(client):
    ArticleFactory(title="Older news")
    ArticleFactory(title="Plain news")
    html = home(client)
    lead = html[html.index('<div class="front-lead">') : html.index('<div class="card-grid')]
    assert "Plain news" in lead and "Older news" not in lead
    # Nobody chose it: it is not labelled as the editors' lead story.
    assert "Lead story" not in html


def test_the_lead_story_and_features_come_first(client):
    lead = ArticleFactory(title="The big story")
    features = [ArticleFactory(title=f"Feature {n}") for n in range(2)]
    ArticleFactory(title="Newest ordinary news")
    FrontPin.objects.create(article=lead, lead=True)
    for position, article in enumerate(features):
        FrontPin.objects.create(article=article, position=position)
    html = home(client)
    assert html.index("The big story") < html.index("Feature 0") < html.index("Feature 1")
    assert html.index("Feature 1") < html.index("Newest ordinary news")
    assert '<p class="lead-story__label">Lead story</p>' in html


def test_an_expired_pin_and_a_pinned_draft_are_not_shown(client):
    FrontPin.objects.create(
        article=ArticleFactory(title="Yesterday's lead"),
        lead=True,
        until=timezone.now() - timedelta(minutes=1),
    )
    FrontPin.objects.create(article=ArticleFactory(title="Secret draft", draft=True))
    html = home(client)
    assert "Lead story" not in html and "Secret draft" not in html


def test_the_choices_are_on_the_first_page_only(client, settings):
    settings.SKILLO_PAGE_SIZE = 1
    FrontPin.objects.create(article=ArticleFactory(title="The big story"), lead=True)
    ArticleFactory(title="Other news")
    page_two = client.get("/?page=2").content.decode()
    assert "Lead story" not in page_two


def test_pins_cost_the_same_queries_however_many(client):
    for n in range(2):
        FrontPin.objects.create(article=ArticleFactory(tags=["x"]), position=n)
    two = count_queries(client, "/")
    for n in range(4):
        FrontPin.objects.create(article=ArticleFactory(tags=["y"]), position=n + 2)
    assert count_queries(client, "/") == two


def test_the_header_shows_the_chosen_topics_in_order(client):
    for name in ["alpha", "beta", "gamma"]:
        ArticleFactory(tags=[name])
    for _ in range(3):
        ArticleFactory(tags=["big"])
    html = home(client)
    nav = html[html.index('<nav class="site-nav"') : html.index("</nav>")]
    assert ">big<" in nav  # automatic: the biggest topics
    Tag.objects.filter(name="gamma").update(header_position=1)
    Tag.objects.filter(name="alpha").update(header_position=2)
    from django.core.cache import cache

    cache.clear()
    html = home(client)
    nav = html[html.index('<nav class="site-nav"') : html.index("</nav>")]
    assert ">big<" not in nav and nav.index(">gamma<") < nav.index(">alpha<")


def test_a_renamed_topic_is_renamed_in_the_header_of_the_next_page(client):
    ArticleFactory(tags=["pytorch"])
    assert ">pytorch<" in home(client)
    tag = Tag.objects.get(name="pytorch")
    tag.name = "PyTorch"
    tag.save()
    html = home(client)
    nav = html[html.index('<nav class="site-nav"') : html.index("</nav>")]
    assert ">PyTorch<" in nav and ">pytorch<" not in nav


def test_a_renamed_topic_is_renamed_in_the_header_of_every_page(client):
    # The header is kept once for every page (news.fragments.site_parts), not per page.
    ArticleFactory(tags=["pytorch"])
    pages = ["/about/editorial/", reverse("news:tags"), reverse("news:follow")]
    for page in pages:
        assert ">pytorch<" in client.get(page).content.decode()
    tag = Tag.objects.get(name="pytorch")
    tag.name = "PyTorch"
    tag.save()
    for page in pages:
        html = client.get(page).content.decode()
        nav = html[html.index('<nav class="site-nav"') : html.index("</nav>")]
        assert ">PyTorch<" in nav and ">pytorch<" not in nav, page


def test_a_topic_whose_first_story_comes_due_joins_the_header_of_any_page(client, time_machine):
    # The kept header is built again once scheduled content comes due, whichever page
    # is asked for first (the page cache is off here, as for editors).
    time_machine.move_to(timezone.now(), tick=False)
    shown = ArticleFactory(tags=["python"])
    ArticleFactory(tags=["zig"], published_at=timezone.now() + timedelta(minutes=10))
    url = shown.get_absolute_url()

    def nav():
        html = client.get(url).content.decode()
        return html[html.index('<nav class="site-nav"') : html.index("</nav>")]

    assert "/tags/zig/" not in nav()
    time_machine.shift(timedelta(minutes=11))
    assert "/tags/zig/" in nav()


def test_a_pin_that_runs_out_leaves_the_home_page_at_its_time(client, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    ArticleFactory(title="Newest ordinary news")
    FrontPin.objects.create(
        article=ArticleFactory(title="The big story", published_at="2024-01-01T12:00Z"),
        lead=True,
        until=timezone.now() + timedelta(hours=2),
    )
    html = home(client)
    assert "Lead story" in html and html.index("The big story") < html.index("Newest ordinary")
    time_machine.shift(timedelta(hours=2, minutes=1))
    html = home(client)
    assert "Lead story" not in html
    assert html.index("Newest ordinary news") < html.index("The big story")


def test_a_topic_page_shows_its_intro(client):
    ArticleFactory(tags=["rust"])
    Tag.objects.filter(name="rust").update(intro="Rust releases.\n\nAnd more.")
    html = client.get(reverse("news:tag", args=["rust"])).content.decode()
    assert '<div class="topic-intro"><p>Rust releases.</p>\n\n<p>And more.</p></div>' in html


def test_a_pin_that_runs_out_is_on_the_schedule():
    until = timezone.now() + timedelta(hours=2)
    FrontPin.objects.create(article=ArticleFactory(), until=until)
    schedule = ArticleSchedule()
    assert schedule.next_due() == until
    assert FRONT() not in schedule.keys_due_since(timezone.now() - timedelta(hours=1))
    FrontPin.objects.update(until=timezone.now() - timedelta(minutes=1))
    assert FRONT() in schedule.keys_due_since(timezone.now() - timedelta(hours=1))


def test_only_editors_choose_the_front_page(django_user_model):
    url = reverse("admin:news_frontpin_add")
    for role, allowed in [("Writers", False), ("Editors", True)]:
        user = django_user_model.objects.create_user(role, is_staff=True)
        user.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(user)
        assert (client.get(url).status_code == 200) is allowed, role


def test_a_lead_story_without_a_picture_is_laid_out_as_text(client):
    FrontPin.objects.create(article=ArticleFactory(title="Words only", tags=["linux"]), lead=True)
    html = home(client)
    lead = html[html.index('<div class="front-lead">') : html.index("</section>")]
    assert "Words only" in lead
    # No picture's place: no box of colour holding the topic's name.
    assert "lead-story__picture" not in lead
    assert '<article class="lead-story lead-story--text">' in lead


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("grace", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def pin(editor, article, **fields):
    form = {"article": article.pk, "lead": "on", "position": "0", "until_0": "", "until_1": ""}
    return editor.post(reverse("admin:news_frontpin_add"), {**form, **fields}, follow=True)


def placed_in_body(picture):
    return f"Before.\n\n![A rack of servers](image:{picture.key})\n\nAfter."


def test_pinning_a_lead_without_a_lead_image_says_it_shows_as_text(editor):
    html = pin(editor, ArticleFactory(title="Words only")).content.decode()
    assert "No lead image: “Words only” shows as text on the home page." in html
    listing = editor.get(reverse("admin:news_frontpin_changelist")).content.decode()
    assert "The lead story, as text (no lead image)" in listing


def test_pinning_a_lead_without_a_lead_image_offers_the_bodys_first_picture(editor, media_root):
    picture = ImageFactory(alt_text="A rack of servers")
    article = ArticleFactory(title="Words first", body=placed_in_body(picture))
    html = pin(editor, article).content.decode()
    assert "Its body's first picture, “A rack of servers”, can be its lead image" in html
    choice = editor.get(
        reverse("admin:news_frontpin_change", args=[FrontPin.objects.get().pk])
    ).content.decode()
    assert "Use the body&#x27;s first picture, “A rack of servers”, as the lead image" in choice


def test_the_bodys_first_picture_becomes_the_lead_image_when_pinning(editor, client, media_root):
    picture = ImageFactory(alt_text="A rack of servers")
    article = ArticleFactory(title="Words first", body=placed_in_body(picture))
    html = pin(editor, article, use_body_picture="on").content.decode()
    assert "is now the lead image of “Words first”" in html
    article.refresh_from_db()
    assert article.lead_image == picture
    lead = home(client)
    lead = lead[lead.index('<div class="front-lead">') : lead.index("</section>")]
    assert "lead-story__picture" in lead and "lead-story--text" not in lead


def test_a_body_picture_too_narrow_for_a_lead_image_is_refused_with_the_reason(editor, media_root):
    picture = ImageFactory(alt_text="A small chart", width=800, height=450)
    article = ArticleFactory(title="Words first", body=placed_in_body(picture))
    html = pin(editor, article, use_body_picture="on").content.decode()
    assert "A lead image must be at least 1,200 pixels wide" in html
    assert not FrontPin.objects.exists()
    article.refresh_from_db()
    assert article.lead_image is None


def test_an_edit_of_a_published_article_keeps_the_schedule_without_reading_it():
    """Only a scheduled article, before or after a change, can move when content next
    comes due: an ordinary edit keeps the time stored and spends no query on it."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pagecache.purges import SCHEDULE_KEY

    upcoming = ArticleFactory(scheduled=True)
    assert cache.get(SCHEDULE_KEY) == upcoming.published_at.timestamp()
    published = ArticleFactory()
    with CaptureQueriesContext(connection) as queries:
        published.title = "Edited"
        published.save()
    assert not [q for q in queries if "news_frontpin" in q["sql"]]
    assert cache.get(SCHEDULE_KEY) == upcoming.published_at.timestamp()
    # Scheduling another, sooner, moves it.
    sooner = ArticleFactory(published_at=timezone.now() + timedelta(hours=1))
    assert cache.get(SCHEDULE_KEY) == sooner.published_at.timestamp()
