"""A poll that stops short (a worker stopped or killed mid-run, an error): the sources
it read are marked read, the ones it did not are due again soon, their health as it
was, never "OK" for a read that did not happen."""

from datetime import timedelta

import pytest

from releases.admin import health
from releases.models import READ_EVERY, ReleaseSource
from releases.polling import CLAIM, Pace, read_due

from .conftest import NOW
from .release_server import Route
from .test_polling import JULY_24, pypi_route

pytestmark = pytest.mark.django_db


class StoppedAfterFirstRequest(Pace):
    """The worker is told to stop (SIGTERM's SystemExit) as it starts its second request."""

    def wait(self, url):
        if self.requests == 1:
            raise SystemExit("worker stopped")
        super().wait(url)


def test_a_poll_stopped_after_its_first_fetch_leaves_the_unread_sources_due_and_not_ok(
    remote, watch
):
    sources = [
        watch(
            "pypi",
            remote.serve(f"/rss/project/p{n}/releases.xml", pypi_route([("2.4.0", JULY_24)])),
        )
        for n in range(3)
    ]
    with pytest.raises(SystemExit):
        read_due(now=NOW, pace=StoppedAfterFirstRequest(per_host=0))
    assert len(remote.requests) == 1
    read, *unread = (ReleaseSource.objects.get(pk=source.pk) for source in sources)
    assert read.checked_at == NOW and read.next_attempt_at == NOW + READ_EVERY
    assert health(read).startswith("OK")
    for source in unread:
        assert source.checked_at is None
        assert health(source) == "Not read yet"
        assert source.next_attempt_at == NOW + CLAIM
    later = NOW + CLAIM + timedelta(seconds=1)
    assert set(ReleaseSource.objects.due(later)) == set(unread)


def test_a_source_read_before_keeps_its_last_read_when_a_poll_stops_before_it(remote, watch):
    first = watch("pypi", remote.serve("/a", Route(status=200, body=b"", content_type="text/xml")))
    second = watch(
        "pypi", remote.serve("/rss/project/torch/releases.xml", pypi_route([("2.4.0", JULY_24)]))
    )
    read_due(now=NOW, pace=Pace(per_host=0))
    second.refresh_from_db()
    assert second.checked_at == NOW
    ReleaseSource.objects.update(next_attempt_at=None)
    later = NOW + timedelta(hours=1)
    with pytest.raises(SystemExit):
        read_due(now=later, pace=StoppedAfterFirstRequest(per_host=0))
    second.refresh_from_db()
    first.refresh_from_db()
    assert first.checked_at == later  # read (and failing: not a feed)
    assert second.checked_at == NOW
    assert health(second).startswith("OK, read")
    assert second.next_attempt_at == later + CLAIM
