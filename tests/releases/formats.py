"""Release documents as each service writes them, for the loopback server: the shapes
follow the services' documented formats (GitHub's releases.atom and tags.atom, PyPI's
per-project release RSS, the npm registry's package document, crates.io's
/api/v1/crates/NAME/versions, RSS 2.0 and JSON Feed 1.1), with the fields Skillo reads
and a few it does not, as the real ones carry them."""

import json
from email.utils import format_datetime
from html import escape


def iso(when):
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def github_atom(repo, releases, tags=False):
    """``releases``: (tag, datetime, notes HTML) newest first."""
    page = "tags" if tags else "releases"
    entries = "".join(
        f"""
  <entry>
    <id>tag:github.com,2008:Repository/65600975/{escape(tag)}</id>
    <updated>{iso(when)}</updated>
    <link rel="alternate" type="text/html" href="https://github.com/{repo}/releases/tag/{escape(tag)}"/>
    <title>{escape(tag)}</title>
    <content type="html">{escape(notes)}</content>
    <author><name>octocat</name></author>
    <media:thumbnail height="30" width="30" url="https://avatars.githubusercontent.com/u/1?s=60&amp;v=4"/>
  </entry>"""
        for tag, when, notes in releases
    )
    updated = iso(releases[0][1]) if releases else "2024-01-01T00:00:00Z"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"
 xmlns:media="http://search.yahoo.com/mrss/" xml:lang="en-US">
  <id>tag:github.com,2008:https://github.com/{repo}/{page}</id>
  <link type="text/html" rel="alternate" href="https://github.com/{repo}/{page}"/>
  <link type="application/atom+xml" rel="self" href="https://github.com/{repo}/{page}.atom"/>
  <title>{"Tags" if tags else "Release notes"} from {repo.split("/")[-1]}</title>
  <updated>{updated}</updated>{entries}
</feed>
""".encode()


def pypi_rss(name, releases):
    """``releases``: (version, datetime) newest first; pubDate in RFC 822, GMT."""
    items = "".join(
        f"""
    <item>
      <title>{escape(version)}</title>
      <link>https://pypi.org/project/{name}/{escape(version)}/</link>
      <description>Tensors and dynamic neural networks in Python</description>
      <author>packages@example.org</author>
      <pubDate>{format_datetime(when, usegmt=True)}</pubDate>
    </item>"""
        for version, when in releases
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">
  <channel>
    <title>PyPI recent updates for {name}</title>
    <link>https://pypi.org/project/{name}/</link>
    <description>Recent updates to the Python Package Index for {name}</description>
    <language>en</language>{items}
  </channel>
</rss>
""".encode()


def npm_document(name, releases):
    """``releases``: (version, datetime); "time" holds created, modified and each version."""
    times = {"created": "2015-01-01T00:00:00.000Z"}
    versions = {}
    for version, when in releases:
        times[version] = when.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        versions[version] = {
            "name": name,
            "version": version,
            "dist": {"tarball": f"https://registry.npmjs.org/{name}/-/{name}-{version}.tgz"},
        }
    times["modified"] = max(times.values())
    stable = [v for v, _ in releases if "-" not in v]
    return json.dumps(
        {
            "_id": name,
            "name": name,
            "dist-tags": {"latest": stable[0] if stable else ""},
            "versions": versions,
            "time": times,
            "description": "A package",
        }
    ).encode()


def crates_versions(crate, releases, yanked=()):
    """``releases``: (num, datetime); created_at with microseconds and +00:00."""
    rows = [
        {
            "id": 1000 + n,
            "crate": crate,
            "num": num,
            "created_at": when.strftime("%Y-%m-%dT%H:%M:%S.123456+00:00"),
            "updated_at": when.strftime("%Y-%m-%dT%H:%M:%S.123456+00:00"),
            "yanked": num in yanked,
            "downloads": 10,
            "license": "MIT OR Apache-2.0",
        }
        for n, (num, when) in enumerate(releases)
    ]
    return json.dumps({"versions": rows, "meta": {"total": len(rows), "next_page": None}}).encode()


def rss_blog(title, posts):
    """``posts``: (title, link, datetime, HTML)."""
    items = "".join(
        f"""
    <item>
      <title>{escape(headline)}</title>
      <link>{escape(link)}</link>
      <guid>{escape(link)}</guid>
      <pubDate>{format_datetime(when, usegmt=True)}</pubDate>
      <description>{escape(text)}</description>
    </item>"""
        for headline, link, when, text in posts
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>{escape(title)}</title><link>https://example.org/</link>
<description>News</description>{items}
</channel></rss>
""".encode()


def json_feed(title, posts):
    """``posts``: (title, link, ISO date as written, HTML)."""
    return json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": title,
            "home_page_url": "https://example.org/",
            "items": [
                {"id": link, "url": link, "title": headline, "date_published": date,
                 "content_html": text}
                for headline, link, date, text in posts
            ],
        }
    ).encode()  # fmt: skip
