from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from news.models import Tag
from releases.models import ReleaseSource, WatchedProject

from .release_server import ReleaseServer

# The runs' "now": the fixtures' releases are a few days older.
NOW = datetime(2024, 7, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def remote(settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    with ReleaseServer(hosts=2) as server:
        yield server


@pytest.fixture
def project(db):
    return WatchedProject.objects.create(name="PyTorch", slug="pytorch")


@pytest.fixture
def watch(project):
    def watch(kind, address, include=ReleaseSource.Include.STABLE, of=None):
        return ReleaseSource.objects.create(
            project=of or project, kind=kind, identifier=address, include=include
        )

    return watch


def person(django_user_model, name, group):
    user = django_user_model.objects.create_user(name, f"{name}@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def editor(django_user_model):
    return person(django_user_model, "eddie", "Editors")


@pytest.fixture
def writer(django_user_model):
    return person(django_user_model, "wanda", "Writers")


@pytest.fixture
def torch(db):
    project = WatchedProject.objects.create(name="PyTorch", slug="pytorch")
    project.topics.add(
        Tag.objects.create(name="Machine learning"), Tag.objects.create(name="Python")
    )
    return project
