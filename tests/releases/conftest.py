from datetime import UTC, datetime

import pytest

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
