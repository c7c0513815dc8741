"""The migration to one lead story (news 0029) on a site with several: the lead readers
see stays, the others become features.

In a module of its own that runs before tests/test_topic_names.py: after that module's
migrations back and forth, moving news back here left SQLite's shared-cache in-memory test
database "malformed" at the next flush (a file database migrated the same way passes
PRAGMA integrity_check).
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from .factories import ArticleFactory


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_lead_readers_see_and_makes_the_others_features():
    from django.core.management import call_command

    from news.models import FrontPin

    # The articles first, by today's model: the table lacks later columns after the move
    # back (news 0030's email_subscribers).
    articles = [ArticleFactory(), ArticleFactory(draft=True), ArticleFactory(), ArticleFactory()]
    call_command("migrate", "news", "0028", verbosity=0)  # before one_lead_story
    now = timezone.now()
    pins = {
        "ran out": FrontPin.objects.create(
            article=articles[0], lead=True, until=now - timedelta(hours=1)
        ),
        "draft": FrontPin.objects.create(article=articles[1], lead=True),
        "shown": FrontPin.objects.create(article=articles[2], lead=True),
        "later in the order": FrontPin.objects.create(article=articles[3], lead=True, position=3),
    }
    call_command("migrate", verbosity=0)
    leads = {name for name, pin in pins.items() if FrontPin.objects.get(pk=pin.pk).lead}
    assert leads == {"shown"}
    assert FrontPin.objects.count() == 4
