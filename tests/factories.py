from datetime import timedelta

import factory
from django.utils import timezone

from news.models import Article, RelatedLink, Source


class ArticleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Article
        skip_postgeneration_save = True

    title = factory.Sequence(lambda n: f"Release {n} ships")
    summary = "A release shipped."
    body = "## What happened\n\nIt shipped.\n\n## Why it mattered\n\nPeople use it."
    event_date = factory.LazyFunction(lambda: timezone.localdate() - timedelta(days=2))
    published_at = factory.LazyFunction(lambda: timezone.now() - timedelta(days=1))
    # This month: never in the future, and never due for a check, whatever today is.
    facts_verified = factory.LazyFunction(lambda: timezone.localdate().replace(day=1))
    status = Article.Status.PUBLISHED

    class Params:
        draft = factory.Trait(status=Article.Status.DRAFT)
        scheduled = factory.Trait(
            published_at=factory.LazyFunction(lambda: timezone.now() + timedelta(days=1))
        )

    @factory.post_generation
    def tags(self, create, extracted, **kwargs):
        if create and extracted:
            self.tags.add(*extracted)


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    article = factory.SubFactory(ArticleFactory)
    position = factory.Sequence(int)
    title = factory.Sequence(lambda n: f"Release notes {n}")
    publisher = "GitHub"
    url = factory.Sequence(lambda n: f"https://example.org/notes/{n}")


class RelatedLinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = RelatedLink

    article = factory.SubFactory(ArticleFactory)
    position = factory.Sequence(int)
    target = factory.SubFactory(ArticleFactory)
