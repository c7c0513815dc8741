"""What live pages are built from, named once for the views and for the purges."""

from pagecache.dependencies import Dependency

LIVE = Dependency(
    "live",
    doc="A page shows this story's live coverage: its entries, state and summary (the "
    "article page, the story's updates, its feeds).",
)
LIVE_STORIES = Dependency("live-stories", doc="Which articles have live coverage.")
