import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from live.models import LiveCoverage
from tests.factories import ArticleFactory, AuthorFactory


def member(django_user_model, username, group):
    user = django_user_model.objects.create_user(username, password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def writer(django_user_model):
    user = member(django_user_model, "writer", "Writers")
    AuthorFactory(name="Wanda Writer", user=user)
    return user


@pytest.fixture
def editor(django_user_model):
    return member(django_user_model, "editor", "Editors")


@pytest.fixture
def story(db):
    """A published article with live coverage on."""
    article = ArticleFactory(title="The keynote, live", body="We follow the keynote.")
    return LiveCoverage.objects.create(
        article=article, state=LiveCoverage.State.LIVE, starts_at=timezone.now()
    )
