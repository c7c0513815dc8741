"""JSON Feed 1.1 (https://jsonfeed.org/version/1.1) beside the RSS and Atom feeds.

A feed generator for Django's syndication framework, so the JSON feeds are the RSS
feeds of news.feeds with another ``feed_type``: the same articles, ids (the permanent
``tag:`` URIs), full text with absolute image URLs, authors and cached-page purges.
"""

import json

from django.utils.feedgenerator import SyndicationFeed

from news.feeds import AuthorFeed, LatestArticlesFeed, TagFeed, browser_note
from news.templatetags.news import EDITORIAL_NAME

VERSION = "https://jsonfeed.org/version/1.1"


def rfc3339(moment):
    return moment.replace(microsecond=0).isoformat() if moment else None


def drop_empty(data):
    # The specification's optional fields are left out rather than sent empty.
    return {key: value for key, value in data.items() if value not in (None, "", [], {})}


class JsonFeed11(SyndicationFeed):
    content_type = "application/feed+json; charset=utf-8"

    def write(self, outfile, encoding):
        outfile.write(json.dumps(self.document(), ensure_ascii=False, indent=1).encode(encoding))

    def document(self):
        feed = self.feed
        header = drop_empty(
            {
                "version": VERSION,
                # "For the use of people looking at the raw JSON": a browser shows it so.
                "user_comment": browser_note(feed["about_url"]) if feed.get("about_url") else None,
                "title": feed["title"],
                "home_page_url": feed["link"],
                "feed_url": feed["feed_url"],
                "description": feed["description"],
                "language": feed["language"],
                # Inherited by items without authors of their own: the desk.
                "authors": [{"name": feed["author_name"] or EDITORIAL_NAME}],
            }
        )
        # Items are required, even when there are none.
        return {**header, "items": [self.item(item) for item in self.items]}

    def item(self, item):
        return drop_empty(
            {
                "id": item["unique_id"],
                "url": item["link"],
                "title": item["title"],
                "content_html": item["description"],
                "summary": item.get("summary"),
                "image": item["enclosures"][0].url if item["enclosures"] else None,
                "date_published": rfc3339(item["pubdate"]),
                "date_modified": rfc3339(item["updateddate"]),
                "authors": [{"name": name, "url": url} for name, url in item["authors"]],
                "tags": list(item["categories"]),
            }
        )


class JsonFeedMixin:
    feed_type = JsonFeed11

    def item_extra_kwargs(self, item):
        # JSON Feed has room for the teaser beside the whole text.
        return {**super().item_extra_kwargs(item), "summary": item.teaser}


class LatestArticlesJsonFeed(JsonFeedMixin, LatestArticlesFeed):
    pass


class TagJsonFeed(JsonFeedMixin, TagFeed):
    pass


class AuthorJsonFeed(JsonFeedMixin, AuthorFeed):
    pass
