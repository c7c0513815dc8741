from .models import public_tags
from .pagecache import cache_call

MAIN_TAGS_KEY = "news:main-tags"
MAIN_TAGS_COUNT = 6


def main_tags():
    """The topics with the most published articles, for the site header.

    Cached, since every page shows them; signals.py clears the entry whenever an
    article or its tags change. Without a cache (Redis down) they are counted afresh.
    """
    _, tags = cache_call("get", MAIN_TAGS_KEY)
    if tags is None:
        tags = list(public_tags().order_by("-article_count", "name")[:MAIN_TAGS_COUNT])
        cache_call("set", MAIN_TAGS_KEY, tags, 60)
    return tags


def navigation(request):
    # A callable: templates evaluate it only where the header is rendered.
    return {"main_tags": main_tags}
