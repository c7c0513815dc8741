"""The newsletter's web archive, kept whole by the page cache: a newly sent issue is
listed at once (newsletters.issues.finish purges the archive's key)."""

import pytest

from newsletters.models import Subscriber

from ..background_tasks import run_queued
from ..factories import ArticleFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.page_cache, pytest.mark.django_db]

ARCHIVE = "/newsletter/archive/"


def test_the_cached_archive_lists_an_issue_once_it_is_sent(reader, committed, later, mail_server):  # noqa: F811
    Subscriber.objects.create(email="all@example.org", state=Subscriber.State.ACTIVE)
    with committed():
        ArticleFactory(title="Kept pages learn of it")
    later()
    assert b"Kept pages learn of it" not in reader.get(ARCHIVE).content
    assert reader.cached(ARCHIVE)
    run_queued()
    assert b"Kept pages learn of it" in reader.get(ARCHIVE).content
