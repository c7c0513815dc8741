from datetime import date, timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models.deletion import Collector
from django.utils import timezone

from news.models import Article, RelatedLink, Source, Tag
from news.slugs import slug_from_title

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


def test_published_excludes_drafts_and_scheduled():
    public = ArticleFactory()
    ArticleFactory(draft=True)
    ArticleFactory(scheduled=True)
    ArticleFactory(draft=True, published_at=timezone.now() - timedelta(days=5))
    assert list(Article.objects.published()) == [public]


def test_is_published_matches_the_queryset():
    assert ArticleFactory().is_published()
    assert not ArticleFactory(draft=True).is_published()
    scheduled = ArticleFactory(scheduled=True)
    assert not scheduled.is_published() and scheduled.is_scheduled


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("PyTorch 2.4 Released: Python 3.12", "pytorch-2-4-released-python-3-12"),
        ("Node.js 22 is out", "node-js-22-is-out"),
        ("Привет, мир", "privet-mir"),
        ("東京オリンピック", "dongjingorinpitku"),
        ("🚀🔥", "rocket-fire"),
        ("???", "article"),
    ],
)
def test_slug_is_readable_and_never_empty(title, slug):
    assert slug_from_title(title) == slug


def test_long_titles_get_slugs_cut_at_a_word():
    slug = slug_from_title("word " * 60)
    assert len(slug) <= 80 and not slug.endswith("-") and slug.endswith("word")


def test_slug_is_made_unique():
    first = ArticleFactory(title="Same title", slug="")
    second = ArticleFactory(title="Same title", slug="")
    assert (first.slug, second.slug) == ("same-title", "same-title-2")


def test_many_articles_of_one_title_each_get_a_slug_of_their_own():
    # Past the first twenty, looked for by prefix (news.models.Article.unique_slug).
    slugs = [ArticleFactory(title="Weekly notes", slug="").slug for _ in range(23)]
    assert slugs == ["weekly-notes", *(f"weekly-notes-{n}" for n in range(2, 24))]


def test_duplicate_slug_is_refused_by_the_database():
    ArticleFactory(slug="taken")
    with pytest.raises(IntegrityError), transaction.atomic():
        ArticleFactory(slug="taken")


def test_body_is_rendered_and_sanitised_on_save():
    article = ArticleFactory(
        body="## What happened\n\nA [link](javascript:alert(1)) and <script>x()</script>"
        "<img src=x onerror=alert(1)> [ok](https://python.org).\n\n# Top"
    )
    html = article.body_html
    assert '<h2 id="what-happened">What happened</h2>' in html
    assert "<script" not in html and "onerror" not in html and "javascript:" not in html
    assert '<a href="https://python.org" rel="noopener noreferrer nofollow">ok</a>' in html
    assert '<h2 id="top">Top</h2>' in html and "<h1" not in html


def test_heading_ids_are_stable_and_unique():
    html = ArticleFactory(body="## Notes\n\nA.\n\n## Notes\n\nB.").body_html
    assert 'id="notes"' in html and 'id="notes_1"' in html


def test_facts_verified_is_stored_as_a_month():
    article = ArticleFactory(facts_verified=date(2026, 9, 17))
    article.refresh_from_db()
    assert article.facts_verified == date(2026, 9, 1)
    assert article.facts_verified_label == "September 2026"


def test_facts_verified_in_a_future_month_is_invalid():
    article = ArticleFactory.build(facts_verified=timezone.localdate() + timedelta(days=40))
    with pytest.raises(ValidationError) as error:
        article.full_clean()
    assert "facts_verified" in error.value.message_dict


def test_source_url_must_be_http_or_https():
    article = ArticleFactory()
    for url in ["javascript:alert(1)", "ftp://example.org/", "data:text/html,x"]:
        with pytest.raises(ValidationError):
            Source(article=article, title="T", publisher="P", url=url).full_clean()
    Source(article=article, title="T", publisher="P", url="https://example.org/").full_clean()


def test_related_link_to_itself_is_invalid_and_refused_by_the_database():
    article = ArticleFactory()
    link = RelatedLink(article=article, target=article)
    with pytest.raises(ValidationError):
        link.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        link.save()


def test_related_link_needs_a_target_or_a_title():
    with pytest.raises(ValidationError):
        RelatedLink(article=ArticleFactory(), title="  ").full_clean()


def test_deleting_a_target_keeps_the_link_as_a_title():
    target = ArticleFactory(title="Going away")
    link = RelatedLink.objects.create(article=ArticleFactory(), target=target)
    target.delete()
    link.refresh_from_db()
    assert (link.target, link.title) == (None, "Going away")


@pytest.mark.parametrize(
    ("name", "slug"),
    [("機械学習", "jixiexuexi"), ("Ünïcode", "unicode"), ("🚀", "rocket"), ("???", "tag")],
)
def test_tags_in_any_script_get_ascii_slugs_and_pages(client, name, slug):
    ArticleFactory(tags=[name])
    assert Tag.objects.get(name=name).slug == slug
    assert client.get("/").status_code == 200
    page = client.get(f"/tags/{slug}/")
    assert page.status_code == 200 and name in page.content.decode()


def test_tags_with_the_same_slug_stay_apart():
    ArticleFactory(tags=["C++", "C#"])
    assert sorted(Tag.objects.values_list("slug", flat=True)) == ["c", "c-2"]


def test_a_slug_taken_between_choosing_and_saving_is_chosen_again(monkeypatch):
    ArticleFactory(title="Same title", slug="")
    stale = iter(["same-title"])
    original = Article.unique_slug
    monkeypatch.setattr(Article, "unique_slug", lambda self: next(stale, None) or original(self))
    second = ArticleFactory(title="Same title", slug="")
    assert second.slug == "same-title-2"


@pytest.mark.parametrize("field", ["title", "summary", "body"])
def test_invisible_control_characters_are_refused_with_their_place(field):
    article = ArticleFactory.build(**{field: "Pasted\x0btext"})
    with pytest.raises(ValidationError) as refused:
        article.full_clean(exclude=["slug"])
    assert "U+000B (character 7)" in str(refused.value.message_dict[field])


def test_source_url_with_spaces_or_angle_brackets_is_refused():
    from news.models import http_url_validator

    for url in ["https://example.org/<x>", "https://example.org/a>b", "https://a.org/b c"]:
        with pytest.raises(ValidationError):
            http_url_validator(url)
    http_url_validator("https://example.org/a?b=c%22d")


def test_a_related_title_naming_its_own_article_is_invalid_before_either_is_saved():
    article = ArticleFactory.build(title="Go 1.22 released")
    with pytest.raises(ValidationError) as refused:
        RelatedLink(article=article, title=" GO 1.22 RELEASED").full_clean(exclude=["article"])
    assert refused.value.message_dict == {"title": ["An article cannot relate to itself."]}
    RelatedLink(article=article, title="Go 1.21 released").full_clean(exclude=["article"])


def test_validate_parts_allows_each_limit_and_names_each_part_over_it():
    article = ArticleFactory.build()
    article.validate_parts(
        tags=[f"topic{i}" for i in range(30)] + ["TOPIC0"],  # one tag, whatever its case
        sources=[Source()] * 50,
        related_links=[RelatedLink()] * 50,
    )
    with pytest.raises(ValidationError) as refused:
        article.validate_parts(
            tags=[f"topic{i}" for i in range(31)],
            sources=[Source()] * 51,
            related_links=[RelatedLink()] * 51,
        )
    assert refused.value.message_dict == {
        "tags": ["An article can have at most 30 tags; this one has 31."],
        "sources": ["An article can have at most 50 sources. This one has 51: remove some."],
        "related_links": [
            "An article can have at most 50 related links. This one has 51: remove some."
        ],
    }


def test_validate_parts_checks_each_tag_name_and_only_the_parts_given():
    article = ArticleFactory.build()
    with pytest.raises(ValidationError) as refused:
        article.validate_parts(tags=["go", "t" * 101, "pasted\x07"])
    assert refused.value.message_dict == {
        "tags": [
            f"A tag can be at most 100 characters long; “{'t' * 39}…” has 101.",
            "Remove the invisible control character U+0007 (character 7); it was probably "
            "pasted from another program.",
        ]
    }
    article.validate_parts(sources=[Source()] * 50)


@pytest.mark.parametrize("year", [1799, 2201])
def test_dates_out_of_range_are_invalid(year):
    article = ArticleFactory.build(
        event_date=date(year, 1, 1),
        published_at=timezone.now().replace(year=year),
        facts_verified=date(year, 1, 1),
    )
    with pytest.raises(ValidationError) as refused:
        article.full_clean(exclude=["slug"])
    message = f"Enter a date between the years 1800 and 2200; this one is in {year}."
    errors = refused.value.message_dict
    assert [errors[name] for name in ("event_date", "published_at")] == [[message]] * 2
    assert message in errors["facts_verified"]


def test_a_body_over_the_limit_is_invalid():
    article = ArticleFactory.build(body="B" * 100_001)
    with pytest.raises(ValidationError) as refused:
        article.full_clean(exclude=["slug"])
    assert refused.value.message_dict["body"] == [
        "The body can be at most 100,000 characters long; this one has 100,001. "
        "Split it into several articles."
    ]


def test_a_renamed_then_deleted_target_leaves_its_new_title_as_an_unwritten_link(client):
    target = ArticleFactory(title="Old name")
    article = ArticleFactory(title="Linking article")
    RelatedLink.objects.create(article=article, target=target)
    target.title = "New name"
    target.save()
    target.delete()
    page = client.get(article.get_absolute_url()).content.decode()
    assert '<span class="unwritten">New name</span>' in page
    assert "Old name" not in page


@pytest.mark.parametrize("batch_size", [None, 1])
def test_targets_renamed_by_any_path_and_deleted_together_leave_their_current_titles(
    monkeypatch, batch_size
):
    if batch_size:
        # As when deleting more articles than one query can name: every title is still
        # copied before any target is cleared.
        monkeypatch.setattr(
            Collector,
            "get_del_batches",
            lambda self, objs, fields: [objs[i : i + batch_size] for i in range(len(objs))],
        )
    targets = [ArticleFactory(title=f"Old {i}") for i in range(3)]
    article = ArticleFactory()
    for position, target in enumerate(targets):
        RelatedLink.objects.create(article=article, target=target, position=position)
    for number, target in enumerate(targets):
        # Bypasses Article.save(), as restoring a revision does.
        Article.objects.filter(pk=target.pk).update(title=f"New {number}")
    Article.objects.filter(pk__in=[target.pk for target in targets]).delete()
    assert list(article.related_links.values_list("target", "title")) == [
        (None, "New 0"),
        (None, "New 1"),
        (None, "New 2"),
    ]


def test_deleting_an_article_with_its_target_deletes_the_link_too():
    target = ArticleFactory()
    article = ArticleFactory()
    RelatedLink.objects.create(article=article, target=target)
    Article.objects.filter(pk__in=[article.pk, target.pk]).delete()
    assert not RelatedLink.objects.exists()
