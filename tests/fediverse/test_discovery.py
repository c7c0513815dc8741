"""Finding Skillo's actors and articles from another server: WebFinger, NodeInfo,
host-meta, actor documents, and an article's address in ActivityStreams."""

import json

import pytest

from news.models import Article
from people.models import Author

from ..factories import ArticleFactory, AuthorFactory, AuthorLinkFactory
from .jsonld import AS, LDP, SEC, expand, ids, values

pytestmark = pytest.mark.django_db
ACTIVITY = "application/activity+json"
HOST = "127.0.0.1:8000"


def finger(client, resource):
    return client.get("/.well-known/webfinger", {"resource": resource})


def test_webfinger_finds_the_site_actor_by_its_handle(client):
    response = finger(client, f"acct:news@{HOST}")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/jrd+json")
    data = response.json()
    assert data["subject"] == f"acct:news@{HOST}"
    (self_link,) = [link for link in data["links"] if link["rel"] == "self"]
    assert self_link == {"rel": "self", "type": ACTIVITY, "href": f"http://{HOST}/ap/site"}
    profile = [link for link in data["links"] if "profile-page" in link["rel"]]
    assert profile[0]["href"] == f"http://{HOST}/"


def test_webfinger_finds_an_author_and_a_topic_by_their_slugs(client):
    ada = AuthorFactory(name="Ada Lovelace", slug="ada")
    rust = ArticleFactory(tags=["rust"]).tags.get()
    author = finger(client, f"acct:ada@{HOST}").json()
    topic = finger(client, f"acct:rust@{HOST}").json()
    assert author["links"][0]["href"] == f"http://{HOST}/ap/authors/{ada.pk}"
    assert topic["links"][0]["href"] == f"http://{HOST}/ap/topics/{rust.pk}"


def test_a_topic_named_like_an_author_is_found_with_a_suffix(client):
    AuthorFactory(name="Rust", slug="rust")
    rust = ArticleFactory(tags=["rust"]).tags.get()
    assert "/ap/authors/" in finger(client, f"acct:rust@{HOST}").json()["links"][0]["href"]
    topic = finger(client, f"acct:rust-topic@{HOST}").json()
    assert topic["subject"] == f"acct:rust-topic@{HOST}"
    assert topic["links"][0]["href"] == f"http://{HOST}/ap/topics/{rust.pk}"


@pytest.mark.parametrize(
    ("resource", "status"),
    [
        (f"acct:nobody@{HOST}", 404),
        ("acct:news@elsewhere.example", 404),
        ("", 400),
        ("news", 400),
        ("acct:news", 400),
        ("mailto:news@example.org", 400),
    ],
)
def test_webfinger_answers_unknown_names_404_and_malformed_ones_400(client, resource, status):
    answer = finger(client, resource)
    assert answer.status_code == status
    # A browser client reads why, as it reads a found actor.
    assert answer["Access-Control-Allow-Origin"] == "*"


def test_nodeinfo_is_discovered_and_says_what_runs_here(client):
    links = client.get("/.well-known/nodeinfo").json()["links"]
    assert links[0]["rel"] == "http://nodeinfo.diaspora.software/ns/schema/2.1"
    ArticleFactory()
    ArticleFactory(draft=True)
    info = client.get(links[0]["href"].removeprefix(f"http://{HOST}")).json()
    assert info["version"] == "2.1"
    assert info["software"]["name"] == "skillo"
    assert info["protocols"] == ["activitypub"]
    assert info["usage"]["localPosts"] == 1
    assert info["openRegistrations"] is False


def test_host_meta_points_at_webfinger(client):
    response = client.get("/.well-known/host-meta")
    assert response["Content-Type"].startswith("application/xrd+xml")
    assert f"http://{HOST}/.well-known/webfinger?resource={{uri}}" in response.content.decode()


def test_the_site_actor_is_an_activitystreams_service_with_a_key(client):
    response = client.get("/ap/site", headers={"accept": ACTIVITY})
    assert response["Content-Type"].startswith(ACTIVITY)
    document = response.json()
    expanded = expand(document)
    assert expanded["@id"] == f"http://{HOST}/ap/site"
    assert expanded["@type"] == [AS + "Service"]
    assert values(expanded, AS + "preferredUsername") == ["news"]
    assert ids(expanded, LDP + "inbox") == [f"http://{HOST}/ap/site/inbox"]
    assert ids(expanded, AS + "outbox") == [f"http://{HOST}/ap/site/outbox"]
    assert ids(expanded, AS + "followers") == [f"http://{HOST}/ap/site/followers"]
    (key,) = expanded[SEC + "publicKey"]
    assert key["@id"] == f"http://{HOST}/ap/site#main-key"
    assert ids(key, SEC + "owner") == [f"http://{HOST}/ap/site"]
    assert values(key, SEC + "publicKeyPem")[0].startswith("-----BEGIN PUBLIC KEY-----")
    assert "PRIVATE" not in response.content.decode()


def test_an_author_actor_is_a_person_with_portrait_links_and_attribution(client):
    ada = AuthorFactory(name="Ada Lovelace", slug="ada", bio="Writes on compilers.")
    AuthorLinkFactory(author=ada, label="Mastodon", url="https://hachyderm.io/@ada")
    document = client.get(f"/ap/authors/{ada.pk}", headers={"accept": ACTIVITY}).json()
    expanded = expand(document)
    assert expanded["@type"] == [AS + "Person"]
    assert values(expanded, AS + "name") == ["Ada Lovelace"]
    assert values(expanded, AS + "summary") == ["<p>Writes on compilers.</p>"]
    assert ids(expanded, AS + "url") == [f"http://{HOST}/authors/ada/"]
    assert document["discoverable"] is True
    assert document["attributionDomains"] == ["127.0.0.1"]
    assert "https://hachyderm.io/@ada" in document["attachment"][0]["value"]


def test_the_actor_address_sends_a_browser_to_the_page(client):
    ada = AuthorFactory(slug="ada")
    response = client.get(f"/ap/authors/{ada.pk}", headers={"accept": "text/html"})
    assert response.status_code == 302
    assert response["Location"] == f"http://{HOST}/authors/ada/"


def test_each_actor_keeps_its_key(client):
    first = client.get("/ap/site", headers={"accept": ACTIVITY}).json()["publicKey"]
    again = client.get("/ap/site", headers={"accept": ACTIVITY}).json()["publicKey"]
    assert first == again


@pytest.mark.parametrize(
    "accept",
    [ACTIVITY, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'],
)
def test_an_articles_address_answers_activitystreams_to_a_server(client, accept):
    ada = AuthorFactory(name="Ada Lovelace", slug="ada")
    article = ArticleFactory(title="Rust 1.90 ships", tags=["rust"], authors=[ada])
    response = client.get(article.get_absolute_url(), headers={"accept": accept})
    assert response.status_code == 200
    assert response["Content-Type"].startswith(ACTIVITY)
    assert "Accept" in response["Vary"]
    expanded = expand(response.json())
    assert expanded["@id"] == f"http://{HOST}/ap/articles/{article.pk}"
    assert expanded["@type"] == [AS + "Article"]
    assert values(expanded, AS + "name") == ["Rust 1.90 ships"]
    assert "It shipped." in values(expanded, AS + "content")[0]
    assert ids(expanded, AS + "url") == [f"http://{HOST}{article.get_absolute_url()}"]
    assert ids(expanded, AS + "attributedTo") == [f"http://{HOST}/ap/authors/{ada.pk}"]
    (tag,) = expanded[AS + "tag"]
    assert tag["@type"] == [AS + "Hashtag"] and values(tag, AS + "name") == ["#Rust"]
    preview = expanded[AS + "preview"][0]
    assert preview["@type"] == [AS + "Note"]
    assert "Rust 1.90 ships" in values(preview, AS + "content")[0]


def test_a_browser_still_gets_the_page_and_caches_are_told_it_varies(client):
    article = ArticleFactory()
    response = client.get(
        article.get_absolute_url(), headers={"accept": "text/html,application/xhtml+xml,*/*"}
    )
    assert response["Content-Type"].startswith("text/html")
    assert "Accept" in response["Vary"]


def test_author_topic_and_home_pages_answer_their_actors(client):
    ada = AuthorFactory(slug="ada")
    ArticleFactory(tags=["rust"], authors=[ada])
    for path, kind in [("/", "Service"), ("/authors/ada/", "Person"), ("/tags/rust/", "Service")]:
        response = client.get(path, headers={"accept": ACTIVITY})
        assert response.json()["type"] == kind, path
        assert "Accept" in response["Vary"]


@pytest.mark.parametrize("trait", ["draft", "scheduled"])
def test_drafts_and_scheduled_articles_are_never_served(client, trait):
    article = ArticleFactory(**{trait: True})
    assert client.get(article.get_absolute_url(), headers={"accept": ACTIVITY}).status_code == 404
    assert client.get(f"/ap/articles/{article.pk}").status_code == 404


def test_a_renamed_article_is_the_same_object_at_its_old_address(client):
    article = ArticleFactory(slug="old-name")
    article.slug = "new-name"
    article.save()
    old = client.get("/articles/old-name/", headers={"accept": ACTIVITY}).json()
    assert old["id"] == f"http://{HOST}/ap/articles/{article.pk}"
    assert old["url"].endswith("/articles/new-name/")
    assert Article.objects.count() == 1 and Author.objects.count() == 0


def test_mastodon_link_cards_credit_the_authors_with_a_fediverse_address(client):
    ada = AuthorFactory(name="Ada Lovelace", slug="ada")
    AuthorLinkFactory(author=ada, label="Mastodon", url="https://Hachyderm.io/@ada")
    AuthorLinkFactory(author=ada, label="GitHub", url="https://github.com/ada")
    grace = AuthorFactory(name="Grace Hopper", slug="grace")
    AuthorLinkFactory(author=grace, label="Fediverse", url="https://social.example/users/grace")
    nobody = AuthorFactory(name="No One", slug="no-one")
    article = ArticleFactory(authors=[ada, grace, nobody])
    page = client.get(article.get_absolute_url()).content.decode()
    assert page.count('name="fediverse:creator"') == 2
    assert '<meta name="fediverse:creator" content="@ada@hachyderm.io">' in page
    assert '<meta name="fediverse:creator" content="@grace@social.example">' in page
    author_page = client.get("/authors/ada/").content.decode()
    assert 'href="https://Hachyderm.io/@ada" rel="me' in author_page


def test_the_follow_pages_give_the_handles_to_search_for(client):
    ada = AuthorFactory(name="Ada Lovelace", slug="ada")
    ArticleFactory(tags=["rust"], authors=[ada])
    assert f'data-copy="@news@{HOST}"' in client.get("/follow/").content.decode()
    assert f"@ada@{HOST}" in client.get("/authors/ada/feed/about/").content.decode()
    assert f"@rust@{HOST}" in client.get("/tags/rust/feed/about/").content.decode()
    assert f"@news@{HOST}" in client.get("/feed/about/").content.decode()
    # What the handles name, WebFinger finds.
    for name in ("news", "ada", "rust"):
        assert finger(client, f"acct:{name}@{HOST}").status_code == 200


def test_the_private_keys_are_in_the_site_backups_fediverse_part_alone(client, tmp_path):
    from io import StringIO

    from django.core.management import call_command

    from fediverse.models import LocalActor

    ada = AuthorFactory(slug="ada")
    ArticleFactory(authors=[ada], tags=["rust"])
    for name in ("news", "ada", "rust"):
        finger(client, f"acct:{name}@{HOST}")
    keys = [actor.private_key_pem for actor in LocalActor.objects.all()]
    assert len(keys) == 3
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    exported = b"".join(
        path.read_bytes()
        for path in (tmp_path / "backup").rglob("*")
        if path.is_file() and path.name != "fediverse.jsonl"
    )
    assert b"PRIVATE KEY" not in exported
    assert all(
        json.dumps(key).encode() in (tmp_path / "backup" / "fediverse.jsonl").read_bytes()
        for key in keys
    )
    for key in keys:
        middle = key.splitlines()[5].encode()
        assert middle not in exported
