from datetime import timedelta

import factory
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from api.models import ApiToken, Event, Webhook, WebhookHost
from images.models import Image, Licence
from images.tasks import make_renditions
from images.uploads import check_upload
from news.models import Article, ArticleAuthor, Correction, RelatedLink, Source
from people.models import Author, AuthorLink

from .pictures import picture, upload


class OneTransaction:
    """Made with its parts (an article's tags and byline, the article a source needs) in
    one transaction, as the admin saves them: the purges of an article run once, when it
    ends (tests/conftest.py), instead of after each part."""

    @classmethod
    def _generate(cls, strategy, params):
        if strategy != factory.enums.CREATE_STRATEGY:
            return super()._generate(strategy, params)
        with transaction.atomic():
            return super()._generate(strategy, params)


class AuthorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Author
        django_get_or_create = ["slug"]

    name = factory.Sequence(lambda n: f"Writer {n}")
    slug = factory.LazyAttribute(lambda author: author.name.lower().replace(" ", "-"))
    role = "Staff writer"
    bio = "Writes about releases."


class AuthorLinkFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AuthorLink

    author = factory.SubFactory(AuthorFactory)
    position = factory.Sequence(int)
    label = "Mastodon"
    url = factory.Sequence(lambda n: f"https://mastodon.example/@writer{n}")


class ArticleFactory(OneTransaction, factory.django.DjangoModelFactory):
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
        # With a lead image from the library (which needs the media_root fixture).
        illustrated = factory.Trait(lead_image=factory.SubFactory("tests.factories.ImageFactory"))

    @factory.post_generation
    def tags(self, create, extracted, **kwargs):
        if create and extracted:
            self.tags.add(*extracted)

    @factory.post_generation
    def authors(self, create, extracted, **kwargs):
        """``authors=[author, "Name", ...]``: the byline in that order (a name is an
        author made, or found, by AuthorFactory)."""
        if create and extracted:
            for position, author in enumerate(extracted):
                if isinstance(author, str):
                    author = AuthorFactory(name=author)
                ArticleAuthor.objects.create(article=self, author=author, position=position)


class SourceFactory(OneTransaction, factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    article = factory.SubFactory(ArticleFactory)
    position = factory.Sequence(int)
    title = factory.Sequence(lambda n: f"Release notes {n}")
    publisher = "GitHub"
    url = factory.Sequence(lambda n: f"https://example.org/notes/{n}")


class CorrectionFactory(OneTransaction, factory.django.DjangoModelFactory):
    class Meta:
        model = Correction

    article = factory.SubFactory(ArticleFactory)
    kind = Correction.Kind.CORRECTION
    note = factory.Sequence(lambda n: f"An earlier version gave the wrong version number ({n}).")


class RelatedLinkFactory(OneTransaction, factory.django.DjangoModelFactory):
    class Meta:
        model = RelatedLink

    article = factory.SubFactory(ArticleFactory)
    position = factory.Sequence(int)
    target = factory.SubFactory(ArticleFactory)


class ImageFactory(factory.django.DjangoModelFactory):
    """A library image, uploaded through the same checks as the admin's."""

    class Meta:
        model = Image

    alt_text = "Engineers on stage at a release event"
    credit = "Photo: Skillo"
    licence = Licence.OWN
    seed = factory.Sequence(int)

    @classmethod
    def _create(
        cls, model_class, seed=0, content=None, width=1600, height=900, made=True, **kwargs
    ):
        """``made``: its renditions made, as the worker does soon after an upload
        (images.tasks); False leaves the task queued."""
        file = upload(content or picture(width, height, seed=seed))
        image = model_class(**kwargs)
        image.take(file, check_upload(file))
        image.save()
        if made:
            make_renditions.call(image.pk)
            image.refresh_from_db()
        return image


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    is_staff = True


class ApiTokenFactory(factory.django.DjangoModelFactory):
    """An API token; ``token.secret`` is what a client sends (stored only hashed)."""

    class Meta:
        model = ApiToken

    name = "Newsletter tool"
    user = factory.SubFactory(UserFactory)
    scopes = factory.LazyFunction(list)

    @classmethod
    def _create(cls, model_class, **kwargs):
        token = model_class(**kwargs)
        secret = token.issue()
        token.save()
        token.secret = secret
        return token


class WebhookHostFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = WebhookHost
        django_get_or_create = ["host"]

    host = "127.0.0.1"


class WebhookFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Webhook

    name = "Partner site"
    url = "http://127.0.0.1:9/hooks/"
    events = factory.LazyFunction(lambda: list(Event.values))
