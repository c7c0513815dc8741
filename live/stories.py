"""Which articles have live coverage, remembered until coverage is turned on or off
(LIVE_STORIES): article pages and the article form ask it at no query."""

from pagecache.remembered import remember

from .dependencies import LIVE_STORIES
from .models import LiveCoverage


def live_story_ids():
    return frozenset(
        remember(
            "live:stories",
            [LIVE_STORIES()],
            lambda: list(LiveCoverage.objects.values_list("pk", flat=True)),
        )
    )
