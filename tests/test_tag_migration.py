"""Tags moved from taggit's generic tables to news.Tag / news.TaggedArticle by a
migration: an existing database keeps every article's tags and its revisions."""

import pytest
import reversion
from django.core.management import call_command
from reversion.models import Version

from news.models import Article
from tests.factories import ArticleFactory


@pytest.mark.django_db(transaction=True)
def test_tags_and_their_revisions_survive_the_move_back_and_forth():
    article = ArticleFactory(title="Tagged story")
    with reversion.create_revision():
        article.tags.set(["Python", "Ünïcode"])
        article.save()
    call_command("migrate", "news", "0010", verbosity=0)
    call_command("migrate", verbosity=0)

    article = Article.objects.get(pk=article.pk)
    assert sorted(article.tags.names()) == ["Python", "Ünïcode"]
    assert sorted(tag.slug for tag in article.tags.all()) == ["python", "unicode"]
    # The revision still holds the tags and restores them.
    article.tags.set(["Rust"])
    Version.objects.get_for_object(article).first().revision.revert(delete=True)
    assert sorted(Article.objects.get(pk=article.pk).tags.names()) == ["Python", "Ünïcode"]
    # New tags get ids past the copied ones (PostgreSQL's sequences were moved on).
    article.tags.add("Go")
    assert sorted(Article.objects.get(pk=article.pk).tags.names()) == ["Go", "Python", "Ünïcode"]
