import pytest

from ..fediverse_server import RemoteServer


@pytest.fixture(autouse=True)
def loopback_allowed(settings):
    # The remote servers of these tests are on this machine (the documented switch).
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    settings.SKILLO_SITE_URL = "http://127.0.0.1:8000"


@pytest.fixture
def remote():
    with RemoteServer("127.0.0.2") as server:
        yield server


@pytest.fixture
def other_remote():
    with RemoteServer("127.0.0.3") as server:
        yield server
