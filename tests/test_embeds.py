"""Embeds: a link alone on its line becomes a card (title, source, picture, words) once a
worker has fetched the linked page, against a local site on loopback. The card is served
by Skillo (its picture from the image library), a video's player only as a button's
address, allowed by the page's CSP for that origin alone. A page that cannot be read
leaves a plain link; feeds keep the link."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from embeds.models import Embed
from images.models import Licence
from news.models import Article

from .background_tasks import run_queued
from .embed_server import POST_TEXT, POST_TITLE, VIDEO_TITLE, EmbedServer
from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def remote(settings, media_root):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    with EmbedServer() as server:
        yield server


def story(url, before="Zig 0.15 shipped.", after="More soon."):
    return ArticleFactory(body=f"{before}\n\n{url}\n\n{after}")


def page(client, article):
    response = client.get(article.get_absolute_url())
    assert response.status_code == 200
    return response


def card_of(html):
    start = html.index('<figure class="embed')
    return html[start : html.index("</figure>", start)]


def test_a_video_link_becomes_a_card_with_its_player_behind_a_click(client, remote):
    article = story(f"{remote.base}/video/1")
    assert Embed.objects.get().state == Embed.State.PENDING
    run_queued()
    embed = Embed.objects.get()
    assert (embed.state, embed.kind, embed.title, embed.provider, embed.author) == (
        Embed.State.READY, "video", VIDEO_TITLE, "LoopTube", "Ada",
    )  # fmt: skip
    assert embed.text == "A ten-minute tour of the cache."
    assert embed.player_url == f"{remote.base}/player/1"
    response = page(client, article)
    card = card_of(response.content.decode())
    assert "LoopTube · Ada" in card and "Zig&#x27;s build cache, explained" in card
    assert f'data-embed-src="{remote.base}/player/1"' in card
    # Nothing on the page loads from the other site: its picture is Skillo's copy.
    assert not re.search(r'\s(?:src|srcset)="[^"]*127\.0\.0\.1:', response.content.decode())
    assert "/media/" in card
    assert f"frame-src {remote.base}" in response["Content-Security-Policy"]


def test_the_thumbnail_joins_the_image_library_as_a_screenshot(remote):
    story(f"{remote.base}/video/1")
    run_queued()
    thumbnail = Embed.objects.get().thumbnail
    assert (thumbnail.width, thumbnail.height, thumbnail.decorative) == (640, 360, True)
    assert (thumbnail.credit, thumbnail.licence) == ("LoopTube", Licence.SCREENSHOT)
    assert thumbnail.renditions_ready


def test_a_post_with_open_graph_tags_becomes_a_card(client, remote):
    article = story(f"{remote.base}/post/1")
    run_queued()
    embed = Embed.objects.get()
    assert (embed.kind, embed.title, embed.text, embed.provider) == (
        "link", POST_TITLE, POST_TEXT, "example.social",
    )  # fmt: skip
    assert embed.thumbnail.width == 600 and not embed.player_url
    html = page(client, article).content.decode()
    assert POST_TEXT in card_of(html)
    assert "embed__play" not in html


def test_a_redirect_is_followed_to_the_page(remote):
    story(f"{remote.base}/moved")
    run_queued()
    assert Embed.objects.get().title == POST_TITLE
    assert remote.requests[:2] == ["/moved", "/post/1"]


def test_a_heavy_page_is_read_up_to_its_head(remote):
    story(f"{remote.base}/big")
    run_queued()
    embed = Embed.objects.get()
    assert (embed.state, embed.title) == (Embed.State.READY, "A heavy page")


def test_a_page_that_cannot_be_read_stays_a_plain_link(client, remote):
    url = f"{remote.base}/missing"
    article = story(url)
    run_queued()
    embed = Embed.objects.get()
    assert embed.state == Embed.State.FAILED
    assert embed.error == f"{url} answered 404"
    response = page(client, article)
    assert f'<a href="{url}" rel="noopener noreferrer nofollow">{url}</a>' in (
        response.content.decode()
    )
    assert '<figure class="embed' not in response.content.decode()
    assert "frame-src" not in response["Content-Security-Policy"]


def test_the_card_replaces_the_link_once_fetched(client, remote):
    article = story(f"{remote.base}/plain")
    assert '<figure class="embed' not in page(client, article).content.decode()
    run_queued()
    assert "A plain page" in card_of(page(client, article).content.decode())


def test_a_link_inside_a_sentence_is_left_alone(remote):
    ArticleFactory(body=f"Read {remote.base}/post/1 for more.")
    assert not Embed.objects.exists()


def test_a_drafts_links_are_fetched_once_it_is_scheduled(remote):
    article = ArticleFactory(body=f"Soon.\n\n{remote.base}/post/1", status=Article.Status.DRAFT)
    run_queued()
    assert not Embed.objects.exists() and remote.requests == []
    article.status = Article.Status.PUBLISHED
    article.published_at = timezone.now() + timedelta(days=1)
    article.save()
    run_queued()
    assert Embed.objects.get().title == POST_TITLE


def test_a_card_deleted_in_the_admin_leaves_the_page(client, remote):
    article = story(f"{remote.base}/post/1")
    run_queued()
    assert POST_TITLE in page(client, article).content.decode()
    Embed.objects.get().delete()
    assert POST_TITLE not in page(client, article).content.decode()


def test_a_player_address_cannot_write_into_the_page_policy(client, remote, monkeypatch):
    from embeds import fetch

    article = story(f"{remote.base}/video/1")
    hostile = '<iframe src="https://evil.example?x;script-src-elem https:;"></iframe>'
    original = fetch.player
    monkeypatch.setattr(fetch, "player", lambda oembed, url: original({"html": hostile}, url))
    run_queued()
    embed = Embed.objects.get()
    assert embed.player_url == ""
    response = page(client, article)
    assert "script-src-elem" not in response["Content-Security-Policy"]
    assert "frame-src" not in response["Content-Security-Policy"]


def test_remote_words_cannot_place_library_pictures(client, remote, monkeypatch):
    from embeds import fetch

    from .factories import ImageFactory

    picture = ImageFactory(alt_text="A picture only editors may place")
    forged = f"\ue000image:{picture.key}:\ue001"
    original = fetch.read_head

    def forging(body, content_type):
        head = original(body, content_type)
        head.meta["og:title"] = f"A post {forged}"
        return head

    monkeypatch.setattr(fetch, "read_head", forging)
    article = story(f"{remote.base}/post/1")
    run_queued()
    assert Embed.objects.get().title == f"A post image:{picture.key}:"
    html = page(client, article).content.decode()
    assert "A picture only editors may place" not in html
    assert '<figure class="figure' not in html


def test_embeds_txt_reads_back_and_names_a_bad_line():
    from textfiles.textformat import FormatError, ParsedEmbed, format_embeds, parse_embeds

    card = ParsedEmbed(
        url="https://video.example/watch/1", title=' "Quoted" ', fetched_at=timezone.now(),
        kind="video", text="Two\nlines", player_url="https://video.example/embed/1",
        player_size=(640, 360),
    )  # fmt: skip
    text = format_embeds([card])
    assert [got.content() for got in parse_embeds(text)] == [card.content()]
    with pytest.raises(FormatError) as raised:
        parse_embeds(text.replace("640 x 360", "640x360"))
    assert "'Player size:' must read like '640 x 360'" in str(raised.value)
    assert raised.value.line == text.splitlines().index("Player size: 640 x 360") + 1


def test_private_addresses_are_refused_unless_allowed(settings, remote):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    story(f"{remote.base}/post/1")
    run_queued()
    embed = Embed.objects.get()
    assert embed.state == Embed.State.FAILED
    assert remote.requests == []


def test_one_fetch_per_address_however_many_articles_link_it(remote):
    for n in range(3):
        story(f"{remote.base}/post/1", before=f"Story {n}.")
    assert run_queued() >= 1
    assert Embed.objects.count() == 1
    assert remote.requests.count("/post/1") == 1


def test_a_failed_fetch_is_tried_again_an_hour_later_on_a_save(remote, time_machine):
    time_machine.move_to(timezone.now(), tick=False)
    article = story(f"{remote.base}/missing")
    run_queued()
    article.save()
    run_queued()
    assert remote.requests.count("/missing") == 1
    time_machine.shift(3601)
    article.save()
    run_queued()
    assert remote.requests.count("/missing") == 2


def test_feeds_keep_the_link(client, remote):
    url = f"{remote.base}/post/1"
    story(url)
    run_queued()
    feed = client.get("/feed/").content.decode()
    assert url in feed
    assert "embed__title" not in feed


def test_the_article_form_preview_shows_the_card(admin_client, remote):
    url = f"{remote.base}/post/1"
    story(url)
    run_queued()
    from .test_admin import form_data

    preview = admin_client.post("/admin/news/article/preview/", form_data(body=f"Intro.\n\n{url}"))
    assert POST_TITLE in preview.content.decode()


def test_an_article_without_cards_keeps_the_site_policy(client):
    response = page(client, ArticleFactory())
    assert "frame-src" not in response["Content-Security-Policy"]
    assert Article.objects.count() == 1


def test_big_providers_are_asked_at_their_known_oembed_address():
    from embeds.fetch import known_endpoint

    assert known_endpoint("https://youtu.be/abc") == (
        "https://www.youtube.com/oembed?url=https%3A%2F%2Fyoutu.be%2Fabc&format=json"
    )
    assert known_endpoint("https://vimeo.com/76979871").startswith(
        "https://vimeo.com/api/oembed.json?url="
    )
    assert known_endpoint("https://example.org/x") == ""


@pytest.mark.parametrize(
    ("iframe", "player"),
    [
        (
            '<iframe src="https://www.youtube.com/embed/abc?feature=oembed"></iframe>',
            "https://www.youtube-nocookie.com/embed/abc?feature=oembed",
        ),
        (
            '<iframe src="https://player.vimeo.com/video/1?h=2&amp;app_id=3">',
            ("https://player.vimeo.com/video/1?h=2&app_id=3"),
        ),
        ('<iframe src="javascript:alert(1)">', ""),
        ('<iframe src="http://insecure.example/player">', ""),
        ("<p>no player</p>", ""),
    ],
)
def test_a_video_player_is_an_https_address_youtube_without_cookies(settings, iframe, player):
    from embeds.fetch import player as player_of

    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    assert player_of({"html": iframe}, "https://video.example/watch/1") == player
