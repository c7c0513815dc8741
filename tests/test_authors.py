"""Authors and bylines: the byline on article pages and cards, author pages, the index,
feeds, JSON-LD, the sitemap, the admin (a writer's default author, revisions) and the
plain-text format (issue 14)."""

import json
import re
import xml.etree.ElementTree as ET
from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from reversion.models import Version

from news.models import Article, ArticleAuthor
from people.models import Author
from textfiles.textformat import format_article

from .conftest import count_queries
from .factories import ArticleFactory, AuthorFactory, AuthorLinkFactory, ImageFactory
from .test_admin import form_data

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
DC = "{http://purl.org/dc/elements/1.1/}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
BYLINE = re.compile(r'<p class="byline">(.*?)</p>|<span class="byline">(.*?)</span>', re.S)


def bylines(page):
    """Each byline on the page as the text a reader sees, with its links."""
    found = []
    for match in BYLINE.finditer(page):
        html = match[1] or match[2]
        found.append((re.sub(r"<[^>]+>", "", html), re.findall(r'<a href="([^"]+)"', html)))
    return found


AUTHOR_NAMES = ["Ada Lovelace", "Grace Hopper", "Linus Torvalds"]


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "By Skillo editorial"),
        (1, "By Ada Lovelace"),
        (2, "By Ada Lovelace and Grace Hopper"),
        (3, "By Ada Lovelace, Grace Hopper and Linus Torvalds"),
    ],
)
def test_the_byline_names_each_author_in_order_with_a_link(client, count, text):
    # Created in reverse order: the byline follows the positions, not the ids or names.
    for name in reversed(AUTHOR_NAMES[:count]):
        AuthorFactory(name=name)
    article = ArticleFactory(title="Signed", authors=AUTHOR_NAMES[:count])
    links = [f"/authors/{name.lower().replace(' ', '-')}/" for name in AUTHOR_NAMES[:count]]
    expected = (text, links or [reverse("news:about-editorial")])
    assert bylines(client.get(article.get_absolute_url()).content.decode()) == [expected]
    assert bylines(client.get("/").content.decode()) == [expected]


def test_reordering_the_authors_reorders_the_byline(client):
    article = ArticleFactory(authors=["Ada Lovelace", "Grace Hopper"])
    ArticleAuthor.objects.filter(author__slug="ada-lovelace").update(position=5)
    page = client.get(article.get_absolute_url()).content.decode()
    assert bylines(page)[0][0] == "By Grace Hopper and Ada Lovelace"


def test_cards_cost_no_query_per_byline(client):
    from news.dependencies import ARTICLE
    from news.models import Article

    def every_card():
        # Rendered again, as after a change to each of them.
        return ARTICLE.each(Article.objects.values_list("pk", flat=True))

    ArticleFactory(authors=["Ada Lovelace"])
    few = count_queries(client, "/", rendering=every_card())
    for n in range(15):
        ArticleFactory(authors=[f"Writer {n}", "Ada Lovelace", f"Editor {n}"])
    assert count_queries(client, "/", rendering=every_card()) == few


# Author pages


@pytest.fixture
def ada():
    author = AuthorFactory(
        name="Ada Lovelace", role="Analyst", bio="First paragraph.\n\nSecond & last."
    )
    AuthorLinkFactory(author=author, label="Website", url="https://ada.example/")
    AuthorLinkFactory(author=author, label="Mastodon", url="https://mastodon.example/@ada")
    return author


def test_the_author_page_shows_bio_links_and_only_published_articles(client, ada):
    ArticleFactory(title="Her published story", authors=[ada])
    ArticleFactory(title="Her draft", authors=[ada], draft=True)
    ArticleFactory(title="Her scheduled story", authors=[ada], scheduled=True)
    ArticleFactory(title="Somebody else's story", authors=["Grace Hopper"])
    response = client.get("/authors/ada-lovelace/")
    page = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Ada Lovelace</h1>" in page and "Analyst" in page
    assert "<p>First paragraph.</p>" in page and "<p>Second &amp; last.</p>" in page
    assert '<a href="https://mastodon.example/@ada" rel="me noopener noreferrer">' in page
    assert "Her published story" in page
    for hidden in ("Her draft", "Her scheduled story", "Somebody else"):
        assert hidden not in page, hidden


def test_the_author_page_is_paginated_newest_first(client, ada, settings):
    titles = [f"Story {n}" for n in range(settings.SKILLO_PAGE_SIZE + 2)]
    for title in titles:
        ArticleFactory(title=title, authors=[ada])
    first = client.get("/authors/ada-lovelace/").content.decode()
    second = client.get("/authors/ada-lovelace/?page=2").content.decode()
    assert f">{titles[-1]}<" in first and f">{titles[0]}<" not in first
    assert f">{titles[0]}<" in second and f">{titles[1]}<" in second
    assert 'rel="next"' in first and 'rel="prev"' in second


@pytest.mark.parametrize("n", [1, 25])
def test_the_author_page_makes_one_query_whatever_it_lists(client, ada, n):
    for i in range(n):
        ArticleFactory(authors=[ada, f"Co-author {i}"], tags=[f"t{i}", "common"])
    # A page of their articles' cards, kept (news.fragments); the author too (news.authors).
    assert count_queries(client, "/authors/ada-lovelace/") == 1


def test_the_author_page_shows_each_change_to_the_remembered_author(client, ada):
    ArticleFactory(title="Her story", authors=[ada])
    assert "Analyst" in client.get("/authors/ada-lovelace/").content.decode()

    ada.role = "Chief analyst"
    ada.save()
    assert "Chief analyst" in client.get("/authors/ada-lovelace/").content.decode()

    AuthorLinkFactory(author=ada, label="GitHub", url="https://github.example/ada")
    assert (
        'href="https://github.example/ada"' in client.get("/authors/ada-lovelace/").content.decode()
    )

    ada.links.get(label="Website").delete()
    assert "https://ada.example/" not in client.get("/authors/ada-lovelace/").content.decode()

    ada.slug = "countess-lovelace"
    ada.save()
    assert client.get("/authors/ada-lovelace/").status_code == 404
    assert "Her story" in client.get("/authors/countess-lovelace/").content.decode()

    Article.objects.filter(title="Her story").delete()  # her byline keeps her otherwise
    ada.delete()
    assert client.get("/authors/countess-lovelace/").status_code == 404


def test_the_author_page_shows_a_new_photo_and_its_changed_alt_text(client, ada):
    client.get("/authors/ada-lovelace/")
    photo = ImageFactory(alt_text="Ada at her desk")
    ada.photo = photo
    ada.save()
    assert 'alt="Ada at her desk"' in client.get("/authors/ada-lovelace/").content.decode()

    photo.alt_text = "Ada at the engine"
    photo.save()
    assert 'alt="Ada at the engine"' in client.get("/authors/ada-lovelace/").content.decode()


def test_an_author_without_articles_has_a_page_and_an_unknown_one_is_404(client):
    AuthorFactory(name="Quiet Author")
    assert "No published articles yet." in client.get("/authors/quiet-author/").content.decode()
    assert client.get("/authors/nobody/").status_code == 404
    assert client.get("/authors/nobody/feed/").status_code == 404


def test_the_author_index_lists_every_author_by_name(client):
    for name in ["Grace Hopper", "Ada Lovelace"]:
        AuthorFactory(name=name, role="Staff writer")
    page = client.get("/authors/").content.decode()
    assert page.index("Ada Lovelace") < page.index("Grace Hopper")
    assert '<a href="/authors/ada-lovelace/">Ada Lovelace</a>' in page
    assert count_queries(client, "/authors/") == 1


def test_the_author_index_says_when_there_are_no_authors(client):
    assert "No authors yet" in client.get("/authors/").content.decode()


# Feeds


def feed(url):
    response = Client().get(url)
    assert response.status_code == 200, url
    return response.content.decode(), ET.fromstring(response.content)


def test_rss_names_each_author_as_dc_creator_with_the_namespace_on_the_root(client, ada):
    ArticleFactory(title="Signed", authors=[ada, "Grace Hopper"])
    ArticleFactory(title="Unsigned")
    for url in ["/feed/", "/authors/ada-lovelace/feed/"]:
        text, root = feed(url)
        assert text.count('xmlns:dc="http://purl.org/dc/elements/1.1/"') == 1
        assert 'xmlns:dc="http://purl.org/dc/elements/1.1/"' in text.split("<channel>")[0]
        creators = {
            item.find("title").text: [c.text for c in item.findall(DC + "creator")]
            for item in root.iter("item")
        }
        assert creators["Signed"] == ["Ada Lovelace", "Grace Hopper"], url
        if url == "/feed/":
            assert creators["Unsigned"] == ["Skillo editorial"]


def test_atom_has_an_author_per_entry_with_their_page(client, ada):
    ArticleFactory(title="Signed", authors=[ada, "Grace Hopper"])
    ArticleFactory(title="Unsigned")
    for url in ["/feed/atom/", "/authors/ada-lovelace/feed/atom/"]:
        _, root = feed(url)
        entries = {
            entry.find(ATOM + "title").text: [
                (a.findtext(ATOM + "name"), a.findtext(ATOM + "uri"))
                for a in entry.findall(ATOM + "author")
            ]
            for entry in root.findall(ATOM + "entry")
        }
        assert entries["Signed"] == [
            ("Ada Lovelace", "http://testserver/authors/ada-lovelace/"),
            ("Grace Hopper", "http://testserver/authors/grace-hopper/"),
        ], url
        if url == "/feed/atom/":
            assert entries["Unsigned"] == [("Skillo editorial", None)]
        # The feed's own author covers the rest (RFC 4287, 4.1.1).
        assert root.find(f"{ATOM}author/{ATOM}name").text == "Skillo editorial"


def test_the_author_feeds_hold_only_their_published_articles(client, ada):
    ArticleFactory(title="Hers", authors=[ada])
    ArticleFactory(title="Her draft", authors=[ada], draft=True)
    ArticleFactory(title="Not hers")
    _, root = feed("/authors/ada-lovelace/feed/")
    assert [item.find("title").text for item in root.iter("item")] == ["Hers"]
    assert root.find("channel/title").text == "Skillo: Ada Lovelace"
    _, atom = feed("/authors/ada-lovelace/feed/atom/")
    assert [e.find(ATOM + "title").text for e in atom.findall(ATOM + "entry")] == ["Hers"]
    assert atom.find(ATOM + "id").text.endswith(f":author:{ada.pk}:atom")


# Structured data


def json_ld(page):
    (block,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    return json.loads(block)


def test_json_ld_names_each_author_as_a_person_with_url_and_same_as(client, ada):
    article = ArticleFactory(authors=[ada, "Grace Hopper"])
    data = json_ld(client.get(article.get_absolute_url()).content.decode())
    assert data["author"] == [
        {
            "@type": "Person",
            "name": "Ada Lovelace",
            "url": "http://testserver/authors/ada-lovelace/",
            "sameAs": ["https://ada.example/", "https://mastodon.example/@ada"],
        },
        {
            "@type": "Person",
            "name": "Grace Hopper",
            "url": "http://testserver/authors/grace-hopper/",
        },
    ]
    assert data["publisher"]["name"] == "Skillo"


def test_json_ld_without_authors_names_skillo_editorial_as_the_organization(client):
    article = ArticleFactory()
    data = json_ld(client.get(article.get_absolute_url()).content.decode())
    assert data["author"] == {
        "@type": "Organization",
        "name": "Skillo editorial",
        "url": "http://testserver/about/editorial/",
    }


# Sitemap


def test_the_sitemap_lists_author_pages_with_their_latest_change(client, ada):
    article = ArticleFactory(authors=[ada])
    Article.objects.filter(pk=article.pk).update(updated_at=ada.updated_at.replace(year=2099))
    quiet = AuthorFactory(name="Quiet Author")
    index = ET.fromstring(client.get("/sitemap.xml").content)
    assert any(loc.text.endswith("/sitemaps/authors.xml") for loc in index.iter(SM + "loc"))
    root = ET.fromstring(client.get("/sitemaps/authors.xml").content)
    lastmods = {url.findtext(SM + "loc"): url.findtext(SM + "lastmod") for url in root}
    assert lastmods["http://testserver/authors/ada-lovelace/"].startswith("2099-")
    assert lastmods["http://testserver/authors/quiet-author/"] == (
        quiet.updated_at.replace(microsecond=0).isoformat()
    )


def test_the_sitemap_index_leaves_out_authors_while_there_are_none(client):
    ArticleFactory()
    index = client.get("/sitemap.xml").content.decode()
    assert "/sitemaps/articles.xml" in index and "/sitemaps/authors.xml" not in index


# Admin


@pytest.fixture
def writer(django_user_model):
    user = django_user_model.objects.create_user("writer", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    client = Client()
    client.force_login(user)
    return client, user


def test_a_writers_new_article_names_them_as_its_author(writer):
    client, user = writer
    mine = AuthorFactory(name="Wendy Writer", user=user)
    form = client.get(reverse("admin:news_article_add")).content.decode()
    selected = re.search(r'name="authorships-0-author".*?</select>', form, re.S)[0]
    assert f'<option value="{mine.pk}" selected>' in selected
    assert 'name="authorships-0-position" value="0"' in form


def test_a_writer_without_an_author_profile_gets_an_empty_byline(writer):
    client, _ = writer
    AuthorFactory(name="Somebody Else")
    form = client.get(reverse("admin:news_article_add")).content.decode()
    assert " selected>" not in re.search(r'name="authorships-0-author".*?</select>', form, re.S)[0]


def test_an_admin_save_keeps_the_byline_order_and_its_revision_holds_it(writer):
    client, _ = writer
    first, second = AuthorFactory(name="Ada Lovelace"), AuthorFactory(name="Grace Hopper")
    response = client.post(
        reverse("admin:news_article_add"),
        form_data(
            status="draft",
            authors=[
                {"position": "1", "author": str(first.pk)},
                {"position": "0", "author": str(second.pk)},
            ],
        ),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    article = Article.objects.get()
    assert [a.name for a in article.byline] == ["Grace Hopper", "Ada Lovelace"]
    (version,) = Version.objects.get_for_object(article)
    kept = [
        v for v in version.revision.version_set.all() if v.content_type.model == "articleauthor"
    ]
    assert sorted(v.field_dict["author_id"] for v in kept) == [first.pk, second.pk]


def test_the_same_author_twice_is_refused_and_nothing_saved(writer):
    client, _ = writer
    ada = AuthorFactory(name="Ada Lovelace")
    response = client.post(
        reverse("admin:news_article_add"),
        form_data(
            status="draft",
            authors=[
                {"position": "0", "author": str(ada.pk)},
                {"position": "1", "author": str(ada.pk)},
            ],
        ),
    )
    assert response.status_code == 200
    assert "Please correct the duplicate data for author" in response.content.decode()
    assert not Article.objects.exists()


def test_an_editor_adds_an_author_whose_slug_is_made_from_the_name(admin_client):
    response = admin_client.post(
        reverse("admin:people_author_add"),
        {
            "name": "Zoë Ünïcode",
            "slug": "",
            "role": "",
            "bio": "",
            "user": "",
            "links-TOTAL_FORMS": "1",
            "links-INITIAL_FORMS": "0",
            "links-0-position": "0",
            "links-0-label": "GitHub",
            "links-0-url": "https://github.com/zoe",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    author = Author.objects.get()
    assert author.slug == "zoe-unicode"
    assert [link.url for link in author.links.all()] == ["https://github.com/zoe"]


def test_an_author_with_articles_cannot_be_deleted(admin_client):
    ada = AuthorFactory(name="Ada Lovelace")
    ArticleFactory(authors=[ada])
    page = admin_client.get(reverse("admin:people_author_delete", args=[ada.pk]))
    assert "would require deleting the following protected related objects" in (
        page.content.decode()
    )


# The plain-text format


def test_an_article_with_authors_exports_them_and_imports_back_unchanged(tmp_path):
    article = ArticleFactory(title="Signed", authors=["Grace Hopper", "Ada Lovelace"])
    text = format_article(Article.objects.get(pk=article.pk))
    assert text.startswith(
        "Signed\n\nFormat: plain text\nSummary: A release shipped.\n"
        "Authors: grace-hopper, ada-lovelace\n\n"
    )
    ArticleAuthor.objects.all().delete()
    path = tmp_path / "signed.txt"
    path.write_text(text)
    call_command("import_articles", str(path), stdout=StringIO())
    assert [a.slug for a in Article.objects.get().byline] == ["grace-hopper", "ada-lovelace"]
    assert format_article(Article.objects.get()) == text


def test_a_file_without_an_authors_line_leaves_the_article_without_a_byline(tmp_path):
    # A file describes the whole article: what it leaves out is not kept.
    article = ArticleFactory(title="Signed", authors=["Ada Lovelace"])
    path = tmp_path / "signed.txt"
    path.write_text(format_article(article).replace("Authors: ada-lovelace\n", ""))
    call_command("import_articles", str(path), stdout=StringIO())
    assert Article.objects.get().byline == []


def test_an_empty_authors_line_clears_the_byline(tmp_path):
    article = ArticleFactory(title="Signed", authors=["Ada Lovelace"])
    path = tmp_path / "signed.txt"
    path.write_text(format_article(article).replace("Authors: ada-lovelace", "Authors:"))
    call_command("import_articles", str(path), stdout=StringIO())
    assert Article.objects.get().byline == []


def test_an_unknown_author_names_file_and_line_and_imports_nothing(tmp_path):
    article = ArticleFactory(title="Signed", authors=["Ada Lovelace"])
    text = format_article(article).replace("ada-lovelace", "ada-lovelace, nobody")
    (tmp_path / "a.txt").write_text(text.replace("Signed", "Another", 1))
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_articles", str(tmp_path), stdout=StringIO(), stderr=err)
    assert f"{tmp_path / 'a.txt'}:5: authors: no author has the slug 'nobody'" in err.getvalue()
    assert Article.objects.count() == 1


def test_a_writer_sees_an_authors_profile_read_only(writer, ada):
    """Writers may not change authors' profiles (editors keep them) but may open one."""
    client, _ = writer
    response = client.get(reverse("admin:people_author_change", args=[ada.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Ada Lovelace" in page and "ada-lovelace" in page
    assert 'name="slug"' not in page and 'name="name"' not in page


def profile_data(author, **fields):
    data = {"name": author.name, "bio": author.bio, "photo": author.photo_id or ""}
    links = author.links.all()
    data.update(
        {
            "links-TOTAL_FORMS": str(len(links)), "links-INITIAL_FORMS": str(len(links)),
            "links-MIN_NUM_FORMS": "0", "links-MAX_NUM_FORMS": "1000",
        }
    )  # fmt: skip
    for i, link in enumerate(links):
        data.update({f"links-{i}-id": link.pk, f"links-{i}-author": author.pk})
    data.update(fields)
    return data


def test_a_writer_changes_their_own_profiles_name_bio_and_photo(writer):
    client, user = writer
    mine = AuthorFactory(name="Wendy", slug="wendy", role="Staff writer", user=user)
    AuthorLinkFactory(author=mine, label="Website", url="https://wendy.example/")
    portrait = ImageFactory()
    url = reverse("admin:people_author_change", args=[mine.pk])
    response = client.post(
        url, profile_data(mine, name="Wendy Writer", bio="Writes about Go.", photo=portrait.pk)
    )
    assert response.status_code == 302, response.content.decode()[-3000:]
    mine.refresh_from_db()
    assert (mine.name, mine.bio, mine.photo) == ("Wendy Writer", "Writes about Go.", portrait)
    # What the desk decides stays the desk's: the address, the role, whose profile it is.
    page = client.get(url).content.decode()
    assert 'name="name"' in page
    assert 'name="slug"' not in page and 'name="role"' not in page and 'name="user"' not in page
    assert (mine.slug, mine.role, mine.user) == ("wendy", "Staff writer", user)


def test_a_writer_cannot_change_another_authors_profile(writer, ada):
    client, user = writer
    AuthorFactory(name="Wendy", user=user)
    url = reverse("admin:people_author_change", args=[ada.pk])
    assert client.post(url, profile_data(ada, name="Not Ada")).status_code == 403
    ada.refresh_from_db()
    assert ada.name == "Ada Lovelace"


def structured_blocks(page):
    return [
        json.loads(b)
        for b in re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    ]


def test_the_author_page_is_a_profile_page_about_the_person(client, ada):
    ada.photo = ImageFactory()
    ada.save()
    blocks = structured_blocks(client.get("/authors/ada-lovelace/").content.decode())
    (profile,) = [block for block in blocks if block.get("@type") == "ProfilePage"]
    person = profile["mainEntity"]
    assert profile["url"] == "http://testserver/authors/ada-lovelace/"
    assert (person["@type"], person["name"], person["jobTitle"]) == (
        "Person",
        "Ada Lovelace",
        "Analyst",
    )
    assert person["url"] == "http://testserver/authors/ada-lovelace/"
    assert person["image"].startswith("http://testserver/media/")
    assert person["sameAs"] == ["https://ada.example/", "https://mastodon.example/@ada"]


def test_the_profile_page_names_the_site_address_whatever_host_it_was_asked_on(
    client, ada, settings
):
    settings.ALLOWED_HOSTS = ["testserver", "internal.example"]
    page = client.get("/authors/ada-lovelace/", HTTP_HOST="internal.example").content.decode()
    (profile,) = [b for b in structured_blocks(page) if b.get("@type") == "ProfilePage"]
    assert profile["mainEntity"]["url"] == "http://testserver/authors/ada-lovelace/"


def test_the_profile_page_names_a_new_site_address_at_once(client, ada, settings):
    client.get("/authors/ada-lovelace/")  # its header kept under the first address
    settings.SKILLO_SITE_URL = "https://news.example"
    page = client.get("/authors/ada-lovelace/").content.decode()
    (profile,) = [b for b in structured_blocks(page) if b.get("@type") == "ProfilePage"]
    assert profile["mainEntity"]["url"] == "https://news.example/authors/ada-lovelace/"
