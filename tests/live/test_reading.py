"""The reader's side without JavaScript: the story's page, its other pages of entries,
its updates for open pages, its structured data and its feeds."""

import json
import re
from datetime import timedelta

import feedparser
import pytest
from django.utils import timezone

from live import desk
from live.models import Entry, LiveCoverage
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def page_of(client, story):
    response = client.get(story.article.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def json_ld_of(page, kind):
    for block in re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S):
        data = json.loads(block)
        if data.get("@type") == kind:
            return data
    raise AssertionError(f"no {kind} on the page")


def many_entries(story, count):
    start = timezone.now() - timedelta(hours=5)
    Entry.objects.bulk_create(
        Entry(
            coverage=story,
            body=f"Entry number {n}.",
            body_html=f"<p>Entry number {n}.</p>",
            body_text=f"Entry number {n}.",
            posted_at=start + timedelta(minutes=n),
            version=n,
        )
        for n in range(count)
    )


def test_a_live_story_says_live_with_entries_newest_first(client, story, editor):
    desk.post_entry(story, editor, body="First, the doors open.")
    desk.post_entry(story, editor, body="Then the CEO walks on.")
    page = page_of(client, story)
    assert ">Live</strong>" in page
    assert page.index("Then the CEO walks on.") < page.index("First, the doors open.")


def test_the_summary_shows_at_the_top_of_the_coverage(client, story, editor):
    story.summary = "- **Version 5** ships today."
    desk.save_settings(story, editor)
    desk.post_entry(story, editor, body="An entry.")
    page = page_of(client, story)
    assert "What we know" in page
    assert "<strong>Version 5</strong>" in page
    assert page.index("What we know") < page.index("An entry.")


def test_a_key_event_is_marked_and_listed(client, story, editor):
    entry = desk.post_entry(story, editor, headline="It ships", body="Now.", key_event=True)
    desk.post_entry(story, editor, body="Ordinary.")
    page = page_of(client, story)
    assert "Key event</strong>" in page
    assert f'<a href="#entry-{entry.pk}">' in page.split("Key events", 1)[1]


def test_an_edited_entry_says_updated(client, story, editor):
    entry = desk.post_entry(story, editor, body="Version 17.")
    desk.edit_entry(entry, editor, body="Version 18.")
    page = page_of(client, story)
    assert "Version 18." in page
    assert "Updated <time" in page


def test_a_deleted_entry_leaves_no_trace_for_readers(client, story, editor):
    entry = desk.post_entry(story, editor, headline="A wrong rumour", body="Retracted text.")
    desk.delete_entry(entry, editor)
    page = page_of(client, story)
    assert "A wrong rumour" not in page
    assert "Retracted text." not in page
    assert f"entry-{entry.pk}" not in page


def test_an_entry_awaiting_approval_is_not_shown(client, story, writer):
    story.approval_required = True
    story.save()
    desk.post_entry(story, writer, body="Not approved yet.")
    assert "Not approved yet." not in page_of(client, story)


def test_an_ended_story_says_when_and_loads_no_script(client, story, editor):
    desk.post_entry(story, editor, body="The end.")
    desk.end_coverage(story, editor)
    page = page_of(client, story)
    assert "Ended at <time" in page
    assert "live.js" not in page
    assert "data-live-updates" not in page


def test_an_upcoming_story_says_when_it_starts(client):
    starts = timezone.now() + timedelta(hours=2)
    coverage = LiveCoverage.objects.create(article=ArticleFactory(), starts_at=starts)
    assert "Live coverage starts at <time" in page_of(client, coverage)


def test_an_article_without_coverage_shows_none(client):
    article = ArticleFactory()
    assert 'class="live"' not in client.get(article.get_absolute_url()).content.decode()


def test_fifty_entries_on_the_story_page_the_rest_on_the_next(client, story):
    many_entries(story, 60)
    page = page_of(client, story)
    assert page.count('<li class="live-entry') == 50
    assert "Entry number 59." in page
    assert "Entry number 9." not in page
    assert f'href="/live/{story.pk}/?page=2"' in page
    second = client.get(f"/live/{story.pk}/?page=2").content.decode()
    assert second.count('<li class="live-entry') == 10
    assert "Entry number 9." in second


def test_oldest_first_reads_from_the_start(client, story):
    many_entries(story, 60)
    page = page_of(client, story)
    assert f'href="/live/{story.pk}/?order=oldest"' in page
    oldest = client.get(f"/live/{story.pk}/?order=oldest").content.decode()
    assert oldest.index("Entry number 0.") < oldest.index("Entry number 1.")
    assert "Entry number 50." not in oldest


def test_a_page_past_the_last_is_not_found(client, story):
    many_entries(story, 3)
    assert client.get(f"/live/{story.pk}/?page=2").status_code == 404
    assert client.get(f"/live/{story.pk}/?page=x").status_code == 404


def test_a_draft_storys_pages_are_not_found(client, editor):
    coverage = LiveCoverage.objects.create(
        article=ArticleFactory(draft=True), state=LiveCoverage.State.LIVE
    )
    desk.post_entry(coverage, editor, body="Secret.")
    for url in [
        f"/live/{coverage.pk}/",
        f"/live/{coverage.pk}/updates/?since=0",
        f"/live/{coverage.pk}/feed/",
        f"/live/{coverage.pk}/feed.json",
    ]:
        assert client.get(url).status_code == 404, url


def test_the_page_describes_a_live_blog_posting(client, story, editor):
    entry = desk.post_entry(story, editor, headline="On stage", body="The CEO walks on.")
    desk.post_entry(story, editor, body="A long entry without a headline. " * 10)
    desk.end_coverage(story, editor)
    story.refresh_from_db()
    data = json_ld_of(page_of(client, story), "LiveBlogPosting")
    assert data["headline"] == story.article.title
    assert data["coverageStartTime"] == story.starts_at.replace(microsecond=0).isoformat()
    assert data["coverageEndTime"] == story.ended_at.replace(microsecond=0).isoformat()
    updates = data["liveBlogUpdate"]
    assert [update["@type"] for update in updates] == ["BlogPosting", "BlogPosting"]
    newest, oldest = updates
    assert oldest["headline"] == "On stage"
    assert oldest["articleBody"] == "The CEO walks on."
    assert oldest["url"].endswith(f"{story.article.get_absolute_url()}#entry-{entry.pk}")
    assert len(newest["headline"]) <= 110


# What schema.org's vocabulary says of the properties used (schema.org/LiveBlogPosting,
# /BlogPosting and their parents Article and CreativeWork): each is defined on the type
# or a parent, and takes the kind of value given.
DATE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d")
VOCABULARY = {
    "LiveBlogPosting": {
        "coverageStartTime": DATE_TIME,
        "coverageEndTime": DATE_TIME,
        "liveBlogUpdate": "BlogPosting",
        "headline": str,
        "description": str,
        "url": str,
        "datePublished": DATE_TIME,
        "dateModified": DATE_TIME,
        "author": (dict, list),
        "publisher": dict,
        "image": list,
    },
    "BlogPosting": {
        "headline": str,
        "url": str,
        "datePublished": DATE_TIME,
        "dateModified": DATE_TIME,
        "articleBody": str,
        "author": list,
    },
}


def check_against_vocabulary(node):
    kind = node["@type"]
    for name, value in node.items():
        if name.startswith("@"):
            continue
        assert name in VOCABULARY[kind], f"{kind} has no property {name}"
        expected = VOCABULARY[kind][name]
        if isinstance(expected, str):
            for item in value:
                assert item["@type"] == expected
                check_against_vocabulary(item)
        elif isinstance(expected, re.Pattern):
            assert expected.fullmatch(value), f"{name}: {value}"
        else:
            assert isinstance(value, expected), name


def test_the_live_blog_posting_keeps_to_the_vocabulary(client, story, editor):
    desk.post_entry(story, editor, headline="On stage", body="The CEO walks on.")
    entry = desk.post_entry(story, editor, body="Edited soon.")
    desk.edit_entry(entry, editor, body="Edited now.")
    desk.end_coverage(story, editor)
    check_against_vocabulary(json_ld_of(page_of(client, story), "LiveBlogPosting"))


def test_while_live_no_end_time_is_guessed(client, story, editor):
    desk.post_entry(story, editor, body="Going on.")
    assert "coverageEndTime" not in json_ld_of(page_of(client, story), "LiveBlogPosting")


def updates_of(client, story, since=None):
    url = f"/live/{story.pk}/updates/" + ("" if since is None else f"?since={since}")
    response = client.get(url)
    assert response.status_code == 200
    return response.json()


def test_an_upcoming_story_asks_for_updates_too(client):
    coverage = LiveCoverage.objects.create(article=ArticleFactory())
    page = page_of(client, coverage)
    assert f'data-live-updates="/live/{coverage.pk}/updates/"' in page
    assert "live.js" in page


def test_updates_say_when_coverage_started(client, editor):
    coverage = LiveCoverage.objects.create(article=ArticleFactory())
    since = coverage.version
    desk.start_coverage(coverage, editor)
    answer = updates_of(client, coverage, since=since)
    assert answer["state"] == "live"
    assert answer["status"].startswith('<strong class="live__badge">Live</strong>')


def test_updates_at_the_current_version_say_only_the_version(client, story):
    answer = updates_of(client, story, since=story.version)
    assert answer == {"version": story.version, "state": "live"}


def test_updates_bring_new_and_edited_entries_and_removed_numbers(client, story, editor):
    kept = desk.post_entry(story, editor, body="Kept.")
    gone = desk.post_entry(story, editor, body="Gone soon.")
    since = LiveCoverage.objects.get().version
    desk.edit_entry(kept, editor, body="Kept, edited.")
    new = desk.post_entry(story, editor, body="New.")
    desk.delete_entry(gone, editor)
    answer = updates_of(client, story, since=since)
    assert answer["version"] == LiveCoverage.objects.get().version
    assert [entry["id"] for entry in answer["entries"]] == [kept.pk, new.pk]
    assert "Kept, edited." in answer["entries"][0]["html"]
    assert "Updated" in answer["entries"][0]["html"]
    assert answer["removed"] == [gone.pk]


def test_updates_bring_a_changed_summary(client, story, editor):
    since = story.version
    story.summary = "Now we know more."
    desk.save_settings(story, editor)
    assert "Now we know more." in updates_of(client, story, since=since)["summary"]


def test_updates_say_when_coverage_ended(client, story, editor):
    since = story.version
    desk.end_coverage(story, editor)
    answer = updates_of(client, story, since=since)
    assert answer["state"] == "ended"
    assert answer["status"].startswith("Ended at <time")


def test_a_page_far_behind_is_told_to_reload(client, story, editor):
    for n in range(51):
        desk.post_entry(story, editor, body=f"Entry {n}.")
    assert updates_of(client, story, since=1)["reload"] is True


def test_the_atom_feed_of_the_entries(client, story, editor):
    first = desk.post_entry(story, editor, headline="On stage", body="The CEO walks on.")
    desk.post_entry(story, editor, body="**Bold** news.")
    feed = feedparser.parse(client.get(f"/live/{story.pk}/feed/").content)
    assert not feed.bozo, feed.bozo_exception
    assert feed.feed.title == f"{story.article.title}: live updates"
    assert [entry.title for entry in feed.entries] == ["Bold news.", "On stage"]
    assert feed.entries[1].link.endswith(f"#entry-{first.pk}")
    assert "<strong>Bold</strong>" in feed.entries[0].summary


def test_the_json_feed_of_the_entries(client, story, editor):
    # feedparser 6.0 reads no JSON Feed: its 1.1 version's rules, checked here.
    entry = desk.post_entry(
        story, editor, headline="On stage", body="The CEO walks on.", key_event=True
    )
    response = client.get(f"/live/{story.pk}/feed.json")
    assert response["Content-Type"] == "application/feed+json"
    feed = response.json()
    assert feed["version"] == "https://jsonfeed.org/version/1.1"
    assert feed["title"] == f"{story.article.title}: live updates"
    assert feed["home_page_url"].endswith(story.article.get_absolute_url())
    (item,) = feed["items"]
    assert item["title"] == "On stage"
    assert item["url"].endswith(f"#entry-{entry.pk}")
    assert item["content_html"] == "<p>The CEO walks on.</p>"
    assert DATE_TIME.fullmatch(item["date_published"])
    assert item["tags"] == ["key event"]


def test_feed_readers_find_the_story_feeds_in_the_pages_head(client, story):
    page = client.get(story.article.get_absolute_url()).content.decode()
    head = page.split("</head>")[0]
    assert (
        f'type="application/atom+xml" title="{story.article.title}: live updates (Atom)" '
        f'href="/live/{story.pk}/feed/"' in head
    )
    assert (
        f'type="application/feed+json" title="{story.article.title}: live updates '
        f'(JSON Feed)" href="/live/{story.pk}/feed.json"' in head
    )


def test_an_article_without_coverage_names_no_live_feed(client, db):
    article = ArticleFactory()
    assert "/live/" not in client.get(article.get_absolute_url()).content.decode()


def test_a_story_feed_opened_in_a_browser_says_it_is_a_feed_and_where_the_story_is(client, story):
    atom = client.get(f"/live/{story.pk}/feed/").content.decode()
    story_page = f"http://testserver{story.article.get_absolute_url()}"
    assert atom.split("\n")[1] == (
        "<!-- This is a feed, for feed readers: add its address to one to follow it. "
        f"To read it as a web page, with its addresses in every format, open {story_page} -->"
    )
    assert not feedparser.parse(atom).bozo
    json_feed = client.get(f"/live/{story.pk}/feed.json").json()
    assert json_feed["user_comment"].startswith("This is a feed, for feed readers")
    assert json_feed["user_comment"].endswith(f"open {story_page}")


def test_a_hostile_entry_cannot_break_out_of_the_json_ld(client, story, editor):
    hostile = "</script><script>alert(1)</script><!-- & \u2028"
    desk.post_entry(story, editor, headline=hostile, body=hostile)
    page = page_of(client, story)
    assert "<script>alert(1)" not in page
    data = json_ld_of(page, "LiveBlogPosting")
    assert data["liveBlogUpdate"][0]["headline"] == hostile


def test_text_that_looks_like_a_tag_is_shown_as_typed(client, story, editor):
    desk.post_entry(story, editor, body="Doors open <soon>; `List<T>` and <strong>now</strong>.")
    page = page_of(client, story)
    assert "Doors open &lt;soon&gt;;" in page
    assert "<code>List&lt;T&gt;</code>" in page  # In code, as always: not escaped twice.
    assert "<strong>now</strong>" in page  # An allowed tag is still HTML.


def test_a_script_typed_in_an_entry_is_shown_as_text_never_run(client, story, editor):
    desk.post_entry(story, editor, body="Before <script>alert(1)</script> after")
    page = page_of(client, story)
    assert "<script>alert(1)" not in page
    assert "Before &lt;script&gt;alert(1)&lt;/script&gt; after" in page
