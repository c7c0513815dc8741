"""Entries' text in the site's search: kept in the article's searchable text
(news.models.search_extra_sources), refreshed by a worker after each change readers see,
so a post does not wait for the story's text to be indexed again."""

from django.tasks import task

from news.models import Article

from .models import Entry
from .stories import live_story_ids


def entries_text(article_id):
    """The headlines and text of the story's entries readers see; "" for an article
    without coverage, at no query once the live stories are remembered."""
    if article_id not in live_story_ids():
        return ""
    rows = Entry.objects.published().filter(coverage_id=article_id).order_by("pk")
    return " ".join(
        f"{headline} {text}" for headline, text in rows.values_list("headline", "body_text")
    )


@task
def index_entries(article_id):
    """Index the story's entries again; safe to run twice (it writes what is stored)."""
    if Article.objects.filter(pk=article_id).exists():
        Article(pk=article_id).refresh_search_extra()
