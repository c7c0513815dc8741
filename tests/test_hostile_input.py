"""Every hostile payload (tests/payloads.py) in every field a person can type, checked on
every page, feed and admin screen that shows it: no executable markup, marker visible.

The articles are built once for the module, through the admin (as an editor would) and
through the plain-text importer, inside one transaction that is rolled back at the end:
for every payload the selected tests read (``payloads_in_use``), and a few holding many
payloads at once. Pages are fetched lazily and once each, so a run of a single output
stays quick.

The grid runs in full in make test's SQLite pass; its PostgreSQL pass runs a sample (see
``sample_on_postgres``): one payload for each test and output.
"""

import itertools
import json
import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from html.parser import HTMLParser
from unittest import mock

import pytest
import reversion
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from news import feeds
from news.models import MONTH_NAMES, Article, Source
from textfiles.importer import ImportFailed, import_articles

from .factories import ArticleFactory
from .payloads import HOSTILE_URLS, PAYLOADS, TRICKY_VALID_URL

# Also makes pytest-django create the test database before the module fixture needs it.
pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
NEWS = "{http://www.google.com/schemas/sitemap-news/0.9}"

# An attribute read the way a browser's URL parser reads it: entities decoded (html.parser
# does that), C0 controls and spaces stripped at both ends, tabs and newlines removed
# anywhere. Other spaces stay ("jav    ascript:" is a relative path), and percent-escapes
# are not decoded ("%6A%61vascript:" has no scheme to a browser either).
URL_ATTRIBUTES = {
    "href", "src", "action", "formaction", "xlink:href", "data", "poster", "background",
    "codebase", "cite", "ping", "lowsrc", "dynsrc", "srcset", "srcdoc",
}  # fmt: skip
BAD_SCHEMES = ("javascript:", "vbscript:", "data:", "livescript:", "mocha:")
ACTIVE_ELEMENTS = {
    "iframe", "frame", "frameset", "object", "embed", "applet", "base", "svg", "math",
    "style", "portal", "template",
}  # fmt: skip
# The admin's own inline drawings (the theme switcher's icons, the Readers panel's chart
# drawn on the server from counts), not anything an editor typed.
ADMIN_SVG_CLASSES = {
    "base-svgs", "theme-icon-when-auto", "theme-icon-when-dark", "theme-icon-when-light",
    "readers-chart__svg",
}  # fmt: skip
DATA_SCRIPT_TYPES = {"application/ld+json", "application/json"}
VOID_ELEMENTS = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
    "track", "wbr",
}  # fmt: skip
# What XML 1.0 cannot carry at all (https://www.w3.org/TR/xml/#charsets).
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# The PostgreSQL sample. Escaping happens in templates, feeds and the admin, the same on
# both databases; what differs is how the text is stored and searched (each database has
# its own full-text search). So on PostgreSQL every test runs with one payload per output,
# feed or refused address: every output, the search pages included, and every field, since
# each payload is typed into all of them. The payload is a different one each time (a
# stride through the catalogue), so the sample goes through every kind of payload, and
# only those get articles of their own there (payloads_in_use); every payload the admin
# accepts is still stored in PostgreSQL, in the articles holding many at once. The rest
# is marked ``sqlite_only`` (tests/conftest.py) and runs in the SQLite pass.
ON_SQLITE_ONLY = pytest.mark.sqlite_only(
    reason="hostile-input grid: one payload per output on PostgreSQL"
)
SAMPLE_STRIDE = 5  # coprime with the catalogue's size: successive picks stay apart
_samples = itertools.count()


def sample_on_postgres(cases, group=lambda case: None, skip=lambda case: False):
    """``cases`` (pytest.param) with all but one of each ``group`` marked sqlite_only.

    The one kept is chosen by a stride through the group, so that successive groups (and
    tests) keep different payloads; cases that ``skip`` would only skip are passed over.
    """
    groups = {}
    for case in cases:
        groups.setdefault(group(case), []).append(case)
    kept = []
    for members in groups.values():
        start = next(_samples) * SAMPLE_STRIDE
        ordered = [members[(start + i) % len(members)] for i in range(len(members))]
        kept.append(next((case for case in ordered if not skip(case)), ordered[0]))
    return [
        case
        if any(case is k for k in kept)
        else pytest.param(*case.values, id=case.id, marks=[*case.marks, ON_SQLITE_ONLY])
        for case in cases
    ]


def sampled_payloads(skip=lambda payload: False):
    """Every payload, one of them kept for the PostgreSQL pass."""
    cases = [pytest.param(payload, id=payload.name) for payload in PAYLOADS]
    return sample_on_postgres(cases, skip=lambda case: skip(case.values[0]))


def on_sqlite_only(cases, reason):
    return [
        pytest.param(
            *case.values, id=case.id, marks=[*case.marks, pytest.mark.sqlite_only(reason=reason)]
        )
        for case in cases
    ]


def normalised_url(value):
    return re.sub(r"[\t\n\r]", "", value.strip("".join(map(chr, range(0x21))))).lower()


class Scan(HTMLParser):
    """What a page would run, and what it shows: the parts this module asserts on."""

    def __init__(self, html, admin=False):
        super().__init__(convert_charrefs=True)
        self.admin = admin
        self.problems, self.text, self.scripts, self.meta = [], [], [], {}
        self.stack, self.title, self.h1 = [], "", ""
        self.feed(html)
        self.close()
        self.visible = "".join(self.text)

    def handle_starttag(self, tag, attrs):
        self.check(tag, attrs)
        if tag == "script":
            self.scripts.append({"attrs": dict(attrs), "content": ""})
        if tag == "meta":
            attributes = dict(attrs)
            key = attributes.get("property") or attributes.get("name")
            if key:
                self.meta.setdefault(key, []).append(attributes.get("content") or "")
        if tag == "input" and dict(attrs).get("value"):
            # Form fields show what the editor typed.
            self.text.append(dict(attrs)["value"] + " ")
        if tag not in VOID_ELEMENTS:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.check(tag, attrs)
        if tag == "input" and dict(attrs).get("value"):
            self.text.append(dict(attrs)["value"] + " ")

    def handle_endtag(self, tag):
        if tag == "script" and self.scripts:
            self.check_script(self.scripts[-1])
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        current = self.stack[-1] if self.stack else ""
        if current == "script" and self.scripts:
            self.scripts[-1]["content"] += data
        elif current == "title":
            self.title += data
        elif current != "style":
            self.text.append(data)
            if "h1" in self.stack:
                self.h1 += data

    def check(self, tag, attrs):
        where = f"<{tag} {attrs}>"
        admin_icon = self.admin and tag == "svg" and dict(attrs).get("class") in ADMIN_SVG_CLASSES
        if tag in ACTIVE_ELEMENTS and not admin_icon:
            self.problems.append(f"active element {where}")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.problems.append(f"event handler {where}")
            if name == "style":
                self.problems.append(f"inline style {where}")
            if name == "srcdoc":
                self.problems.append(f"srcdoc {where}")
            if name in URL_ATTRIBUTES and normalised_url(value).startswith(BAD_SCHEMES):
                self.problems.append(f"dangerous URL {where}")
        if tag == "meta" and (dict(attrs).get("http-equiv") or "").lower() == "refresh":
            self.problems.append(f"meta refresh {where}")

    def check_script(self, script):
        attributes, content = script["attrs"], script["content"]
        kind = (attributes.get("type") or "").lower()
        if kind in DATA_SCRIPT_TYPES:
            try:
                json.loads(content)
            except ValueError:
                self.problems.append(f"data block that is not JSON: {content[:200]!r}")
            return
        src = attributes.get("src") or ""
        same_origin = src.startswith("/") and not src.startswith("//")
        # The admin's scripts, and on public pages the site's own (static/js), from this
        # origin and empty: nothing typed can be in them.
        ours = self.admin or src.startswith("/static/js/")
        if not (ours and same_origin and not content.strip()):
            self.problems.append(f"script element {attributes} {content[:200]!r}")

    def data_blocks(self, kind="application/ld+json"):
        return [s["content"] for s in self.scripts if s["attrs"].get("type") == kind]


def chunks(items, size=20):
    """``items`` in groups small enough for the admin's limits (50 sources, 30 tags)."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def form_data(title, summary, body, tags, sources=(), links=(), **fields):
    published = timezone.localtime(timezone.now() - timedelta(hours=1))
    data = {
        "title": title,
        "slug": "",
        "summary": summary,
        "body": body,
        "tags": tags,
        "status": "published",
        "event_date": (published.date() - timedelta(days=1)).isoformat(),
        "published_at_0": published.date().isoformat(),
        "published_at_1": published.strftime("%H:%M:%S"),
        "facts_verified": timezone.localdate().strftime("%Y-%m"),
        **fields,
    }
    for prefix, rows in (("sources", sources), ("related_links", links), ("authorships", ())):
        data |= {
            f"{prefix}-TOTAL_FORMS": str(len(rows)),
            f"{prefix}-INITIAL_FORMS": "0",
            f"{prefix}-MIN_NUM_FORMS": "0",
            f"{prefix}-MAX_NUM_FORMS": "1000",
        }
        for i, row in enumerate(rows):
            data |= {f"{prefix}-{i}-{key}": value for key, value in row.items()}
    return data


CONTROL_CHARACTER = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def stored_without_validation(payload):
    with reversion.create_revision():
        article = ArticleFactory(title=payload.text, summary=payload.text, body=payload.text)
        article.sources.create(title=payload.text, publisher=payload.text, url=TRICKY_VALID_URL)
        article.related_links.create(title=f"Also {payload.text}")
        article.tags.add(payload.text)
    return article


def payload_form(payload, **fields):
    """The add form with the payload typed into every field."""
    return form_data(
        payload.text,
        payload.text,
        payload.text,
        payload.text,
        sources=[
            {"position": "0", "title": payload.text, "publisher": payload.text,
             "url": TRICKY_VALID_URL}
        ],
        links=[{"position": "0", "target": "", "title": f"Also {payload.text}"}],
        **fields,
    )  # fmt: skip


def importable(payload):
    # The plain-text format is line based and separates related titles with "; ".
    # Control characters are refused by the model (news.models.no_control_characters).
    return (
        "\n" not in payload.text
        and "; " not in payload.text
        and not CONTROL_CHARACTER.search(payload.text)
    )


def import_text(payload):
    today = timezone.localdate()
    yesterday = today - timedelta(days=1)
    lines = [
        f"Imported {payload.text}",
        "What happened",
        payload.text,
        "Related on Skillo",
        f"See also: Also {payload.text}.",
        "Sources",
        f"• {payload.text} (Skillo Wire) <https://example.org/notes>",
        f"Published date reflects the original event date ({yesterday:%Y-%m-%d}). This "
        "article is original Skillo editorial written from the sources above; facts were "
        f"verified in {MONTH_NAMES[today.month - 1]} {today.year}.",
        f"Tags: {payload.text}",
    ]
    return "\n\n".join(lines) + "\n"


class Site:
    """The articles built from the catalogue, and each page fetched at most once."""

    def __init__(self, blocker, folder, payloads=PAYLOADS):
        self.blocker, self.folder, self.payloads = blocker, folder, payloads
        self.anonymous, self.editor = Client(), Client()
        self.articles, self.imported, self.errors, self.pages = {}, {}, {}, {}
        self.tag_slugs, self.source_titles, self.scans = {}, {}, {}

    def build(self):
        user = get_user_model().objects.create_superuser("hostile-editor", "e@example.org")
        self.editor.force_login(user)
        for payload in self.payloads:
            try:
                # A savepoint each: a payload that breaks a save leaves the others intact.
                with transaction.atomic():
                    self.add_through_admin(payload, user)
            except Exception as error:
                # Reported by each test of this payload rather than stopping the module.
                self.errors[payload.name] = f"admin: {error!r}"
            if importable(payload):
                self.add_through_importer(payload)
        self.add_everything_at_once(user)

    def add_everything_at_once(self, user):
        """Articles holding many payloads each in body, tags, sources and related links,
        with two revisions: the admin's slow change form and revision (restore) view are
        checked on these few instead of once per payload. (Titles go through the same
        form widgets as source titles; each title is checked on its own history page.)"""
        self.revision_urls, self.change_urls = {}, {}
        # Control characters are refused by the form (see add_through_admin); articles
        # holding them are checked on their own change pages instead.
        typable = [payload for payload in PAYLOADS if not CONTROL_CHARACTER.search(payload.text)]
        for number, chunk in enumerate(chunks(typable)):
            texts = [payload.text for payload in chunk]
            title = f"Many payloads at once, part {number + 1}"
            data = form_data(
                title,
                "",
                "\n\n".join(texts),
                "",
                sources=[
                    {"position": str(i), "title": t, "publisher": t, "url": TRICKY_VALID_URL}
                    for i, t in enumerate(texts)
                ],
                links=[{"position": str(i), "title": f"Also {t}"} for i, t in enumerate(texts)],
            )
            added = self.editor.post(reverse("admin:news_article_add"), data)
            assert added.status_code == 302, added.context["errors"]
            article = Article.objects.get(title=title)
            with reversion.create_revision():
                reversion.set_user(user)
                article.body += "\n\nUpdated."
                article.save()
                article.tags.add(*texts)
            older = Version.objects.get_for_object(article).order_by("pk").first()
            names = [payload.name for payload in chunk]
            revision = reverse("admin:news_article_revision", args=[article.pk, older.pk])
            self.revision_urls |= dict.fromkeys(names, revision)
            change = reverse("admin:news_article_change", args=[article.pk])
            self.change_urls |= dict.fromkeys(names, change)

    def add_through_admin(self, payload, user):
        added = self.editor.post(reverse("admin:news_article_add"), payload_form(payload))
        if CONTROL_CHARACTER.search(payload.text):
            # Refused by the admin, saying why; text stored before that rule (or by a bulk
            # tool) must still be shown safely, so it goes in through the ORM.
            assert added.status_code == 200
            assert "invisible control character" in added.text
            article = stored_without_validation(payload)
        elif added.status_code != 302:
            raise AssertionError(f"the admin refused the article: {added.context['errors']}")
        else:
            article = Article.objects.order_by("-pk").first()
        # The next admin page, its history, also shows the message about the save.
        history_url = reverse("admin:news_article_history", args=[article.pk])
        self.pages[("admin-history", payload.name)] = self.editor.get(history_url).text
        # A second revision for the compare view, with the tag named exactly as typed (the
        # admin's tag field splits on spaces and commas).
        with reversion.create_revision():
            reversion.set_user(user)
            article.summary = f"{payload.text} (updated)"
            article.body = f"{payload.text}\n\nUpdated."
            article.save()
            article.tags.add(payload.text)
        self.tag_slugs[payload.name] = article.tags.get(name=payload.text).slug
        self.source_titles[payload.name] = article.sources.get().title
        self.articles[payload.name] = Article.objects.get(pk=article.pk)

    def add_through_importer(self, payload):
        path = self.folder / f"{payload.name}.txt"
        path.write_text(import_text(payload), encoding="utf-8")
        try:
            (article,) = import_articles([path]).created
        except ImportFailed as error:
            self.errors[f"import:{payload.name}"] = f"import: {error.problems}"
            return
        self.imported[payload.name] = article

    def article(self, payload):
        if payload.name not in self.articles:
            pytest.fail(self.errors.get(payload.name, self.not_built(payload)))
        return self.articles[payload.name]

    def imported_article(self, payload):
        if payload.name not in self.imported:
            pytest.fail(self.errors.get(f"import:{payload.name}", self.not_built(payload)))
        return self.imported[payload.name]

    def not_built(self, payload):
        if payload in self.payloads:
            return "no article"
        return f"{payload.name} is not among the payloads built (see payloads_in_use)"

    def tag_slug(self, payload):
        self.article(payload)
        return self.tag_slugs[payload.name]

    def refused_form(self):
        """Add forms that the admin must send back: every hostile URL in a source row,
        every payload in every field (the title and summary also too long). In chunks that
        keep within the admin's limits on sources and related links."""
        if "refused" not in self.pages:
            refused = {"saved": 0, "pages": [], "source_errors": []}
            for chunk in chunks(REFUSED):
                data = form_data(
                    " ".join(chunk),
                    " ".join(chunk),
                    "\n\n".join(chunk),
                    "",
                    sources=[
                        {"position": str(i), "title": text, "publisher": text, "url": text}
                        for i, text in enumerate(chunk)
                    ],
                    links=[{"position": str(i), "title": f"Also {t}"} for i, t in enumerate(chunk)],
                )
                with self.blocker.unblock():
                    before = Article.objects.count()
                    response = self.editor.post(reverse("admin:news_article_add"), data)
                    refused["saved"] += Article.objects.count() - before
                assert response.status_code == 200
                inlines = response.context["inline_admin_formsets"]
                (sources,) = [i.formset for i in inlines if i.formset.prefix == "sources"]
                refused["source_errors"] += [form.errors for form in sources.forms]
                refused["pages"].append(response.text)
            self.pages["refused"] = refused
        return self.pages["refused"]

    def scan(self, document, admin=False):
        key = (document, admin)
        if key not in self.scans:
            self.scans[key] = Scan(document, admin=admin)
        return self.scans[key]

    def get(self, url, staff=False, **params):
        key = (url, staff, tuple(sorted(params.items())))
        if key not in self.pages:
            with self.blocker.unblock():
                response = (self.editor if staff else self.anonymous).get(url, params)
            assert response.status_code == 200, (url, response.status_code)
            self.pages[key] = response.text
        return self.pages[key]

    def all_pages(self, url, staff=False):
        """Every page of a paginated list."""
        pages, number = [], 1
        while True:
            page = self.get(url, staff, page=number) if number > 1 else self.get(url, staff)
            pages.append(page)
            if 'rel="next"' not in page:
                return pages
            number += 1


def payloads_in_use(session, module):
    """The payloads whose own articles the selected tests of ``module`` read: all of them
    in a full run; a few in the PostgreSQL pass's sample, or in a run of one test."""
    selected = [item for item in session.items if item.module is module]
    used = {item.callspec.params.get("payload") for item in selected if hasattr(item, "callspec")}
    return [payload for payload in PAYLOADS if payload in used]


@pytest.fixture(scope="module")
def site(request, django_db_setup, django_db_blocker, tmp_path_factory):
    # Feeds normally hold the newest 20; here every article must be in them.
    with mock.patch.object(feeds, "FEED_SIZE", 1000), django_db_blocker.unblock():
        outer = transaction.atomic()
        # As django.test.TestCase marks its own class-wide transaction, so that durable
        # atomic blocks in the code under test still run inside it.
        outer._from_testcase = True
        outer.__enter__()
        try:
            payloads = payloads_in_use(request.session, request.module)
            built = Site(django_db_blocker, tmp_path_factory.mktemp("import"), payloads)
            built.build()
            with django_db_blocker.block():
                yield built
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


# Outputs: each returns the HTML documents that show the payload.


def article_page(site, p):
    return [site.get(site.article(p).get_absolute_url())]


def imported_page(site, p):
    return [site.get(site.imported_article(p).get_absolute_url())]


def tag_page(site, p):
    return [site.get(reverse("news:tag", args=[site.tag_slug(p)]))]


def tag_timeline(site, p):
    return [site.get(reverse("news:tag-timeline", args=[site.tag_slug(p)]))]


def tag_feed_page(site, p):
    return [site.get(reverse("news:tag-feed-page", args=[site.tag_slug(p)]))]


def follow_page(site, p):
    return [site.get(reverse("news:follow"))]


def search_page(site, p):
    return [site.get(reverse("search:results"), q=p.marker)]


def search_query(site, p):
    """The reader's own query, shown back in the title, heading and search box."""
    return [site.get(reverse("search:results"), q=p.text)]


def admin_preview(site, p):
    key = ("admin-preview", p.name)
    if key not in site.pages:
        with site.blocker.unblock():
            response = site.editor.post(reverse("admin:news_article_preview"), {"body": p.text})
        assert response.status_code == 200
        site.pages[key] = response.text
    return [site.pages[key]]


def home(site, p):
    return site.all_pages(reverse("news:index"))


def archive(site, p):
    day = site.article(p).event_date
    return site.all_pages(reverse("news:archive-month", args=[day.year, day.month]))


def tag_index(site, p):
    return site.all_pages(reverse("news:tags"))


def admin_changelist(site, p):
    return [site.get(reverse("admin:news_article_changelist"), staff=True, all="")]


def admin_change_form(site, p):
    url = site.change_urls.get(p.name) or reverse(
        "admin:news_article_change", args=[site.article(p).pk]
    )
    return [site.get(url, staff=True)]


def admin_history(site, p):
    """The article's history, fetched right after the admin save: it shows the message."""
    site.article(p)
    return [site.pages[("admin-history", p.name)]]


def versions(site, p):
    with site.blocker.unblock():
        return list(Version.objects.get_for_object(site.article(p)).order_by("pk"))


def admin_compare(site, p):
    older, newer = versions(site, p)
    url = reverse("admin:news_article_compare", args=[site.article(p).pk])
    return [site.get(url, staff=True, version_id1=older.pk, version_id2=newer.pk)]


def admin_revision(site, p):
    if p.name not in site.revision_urls:
        pytest.skip("the admin refuses this payload, so it has no revision from a form")
    return [site.get(site.revision_urls[p.name], staff=True)]


def admin_wanted(site, p):
    return [site.get(reverse("admin:news_article_wanted"), staff=True)]


def bulk_action(site, name, stale=False, **extra):
    """A bulk action on every payload's article, from the article list."""
    key = ("action", name, stale)
    if key not in site.pages:
        articles = site.articles.values()
        data = {
            "action": name,
            "_selected_action": [str(a.pk) for a in articles],
            **{f"_version_{a.pk}": "0" if stale else str(a.version) for a in articles},
            **extra,
        }
        url = reverse("admin:news_article_changelist")
        with site.blocker.unblock():
            response = site.editor.post(url, data, follow=True)
        assert response.status_code == 200
        site.pages[key] = response.text
    return [site.pages[key]]


def admin_stale_message(site, p):
    """Refused because the list was stale: the message names each article's title."""
    site.article(p)
    return bulk_action(site, "publish_selected", stale=True)


def admin_schedule_page(site, p):
    site.article(p)
    return bulk_action(site, "schedule_selected")


def admin_delete_confirmation(site, p):
    """Lists each article with its sources and related links (their __str__)."""
    site.article(p)
    return bulk_action(site, "delete_selected")


PUBLIC_OUTPUTS = {
    "article": article_page,
    "imported-article": imported_page,
    "tag": tag_page,
    "tag-timeline": tag_timeline,
    "tag-feed-page": tag_feed_page,
    "follow": follow_page,
    "search": search_page,
    "search-query": search_query,
    # The editor's live preview: the public renderer's output, so checked as strictly.
    "admin-preview": admin_preview,
    "home": home,
    "archive": archive,
    "tag-index": tag_index,
}
ADMIN_OUTPUTS = {
    "admin-changelist": admin_changelist,
    "admin-change-form": admin_change_form,
    "admin-history": admin_history,
    "admin-compare": admin_compare,
    "admin-revision": admin_revision,
    "admin-wanted": admin_wanted,
    "admin-stale-message": admin_stale_message,
    "admin-schedule": admin_schedule_page,
    "admin-delete-confirmation": admin_delete_confirmation,
}
HTML_CASES = sample_on_postgres(
    [
        pytest.param(name, payload, id=f"{name}-{payload.name}")
        for name in [*PUBLIC_OUTPUTS, *ADMIN_OUTPUTS]
        for payload in PAYLOADS
        if name != "imported-article" or importable(payload)
    ],
    group=lambda case: case.values[0],  # the output
    # The admin has no revision from a form for a title it refuses.
    skip=lambda case: (
        case.values[0] == "admin-revision" and CONTROL_CHARACTER.search(case.values[1].text)
    ),
)


def scans(site, output, payload):
    admin = output in ADMIN_OUTPUTS
    documents = {**PUBLIC_OUTPUTS, **ADMIN_OUTPUTS}[output](site, payload)
    return [site.scan(document, admin=admin) for document in documents]


@pytest.mark.parametrize(("output", "payload"), HTML_CASES)
def test_payload_is_shown_as_text_and_never_run(site, output, payload):
    """No executable markup survives, and the payload's visible text is still there."""
    documents = scans(site, output, payload)
    assert [problem for scan in documents for problem in scan.problems] == []
    assert any(payload.marker in scan.visible for scan in documents)


@pytest.mark.parametrize(
    "payload", sampled_payloads(skip=lambda p: CONTROL_CHARACTER.search(p.text))
)
def test_admin_save_message_shows_the_title_as_typed(site, payload):
    if CONTROL_CHARACTER.search(payload.text):
        pytest.skip("the admin refuses this title, so there is no save message")
    article = site.article(payload)
    scan = site.scan(admin_history(site, payload)[0], admin=True)
    # Added as published: the message says so, with the title and its address.
    assert f"Published “{article.title}”: http://testserver/articles/" in scan.visible


# The article page's head: <title>, meta tags and JSON-LD.


@pytest.mark.parametrize("payload", sampled_payloads())
def test_title_heading_and_meta_tags_show_the_title_exactly_as_typed(site, payload):
    article = site.article(payload)
    scan = site.scan(article_page(site, payload)[0])
    assert scan.h1 == article.title
    assert scan.title == f"{article.title} · Skillo"
    assert scan.meta["og:title"] == scan.meta["twitter:title"] == [article.title]
    assert payload.text in scan.meta["article:tag"]
    for key in ("description", "og:description", "twitter:description"):
        assert payload.marker in scan.meta[key][0], key


@pytest.mark.parametrize("payload", sampled_payloads())
def test_json_ld_cannot_end_its_script_element_and_keeps_the_values(site, payload):
    article = site.article(payload)
    scan = site.scan(article_page(site, payload)[0])
    (block,) = scan.data_blocks()
    assert "<" not in block and ">" not in block
    data = json.loads(block)
    assert data["headline"] == article.title
    assert data["description"] == article.summary
    assert payload.text in data["keywords"]
    assert data["citation"][0]["name"] == data["citation"][0]["publisher"]["name"]
    assert data["citation"][0]["name"] == site.source_titles[payload.name]
    assert data["citation"][0]["url"] == TRICKY_VALID_URL


@pytest.mark.parametrize("payload", [p for p in PAYLOADS if p.name == "script-tag"], ids=str)
def test_teaser_taken_from_the_body_shows_the_text_as_typed(site, payload):
    # Imported articles have no summary, so lists and meta tags show the first paragraph.
    scan = site.scan(imported_page(site, payload)[0])
    assert payload.text in scan.meta["description"][0]


@pytest.mark.parametrize("payload", sampled_payloads())
def test_source_link_keeps_its_tricky_address_inside_the_href(site, payload):
    page = article_page(site, payload)[0]

    hrefs = []

    class Links(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "a":
                hrefs.append(dict(attrs).get("href"))

    Links().feed(page)
    assert TRICKY_VALID_URL in hrefs


# Feeds and sitemaps: well-formed XML, and the HTML inside it safe.


def xml(site, url):
    key = ("xml", url)
    if key not in site.pages:
        try:
            site.pages[key] = ET.fromstring(site.get(url).encode())
        except ET.ParseError as error:
            pytest.fail(f"{url} is not well-formed XML: {error}")
    return site.pages[key]


def xml_text(value):
    # XML 1.0 cannot carry control characters; a feed may leave them out.
    return NOT_XML.sub("", value)


def rss_item(site, url, article):
    link = f"http://testserver{article.get_absolute_url()}"
    (item,) = [i for i in xml(site, url).iter("item") if i.findtext("link") == link]
    return item.findtext("title"), item.findtext("description")


def atom_entry(site, article):
    link = f"http://testserver{article.get_absolute_url()}"
    entries = xml(site, reverse("news:feed-atom")).iter(f"{ATOM}entry")
    (entry,) = [e for e in entries if e.find(f"{ATOM}link").get("href") == link]
    return entry.findtext(f"{ATOM}title"), entry.findtext(f"{ATOM}summary")


FEEDS = {
    "rss": lambda site, p, article: rss_item(site, reverse("news:feed"), article),
    "atom": lambda site, p, article: atom_entry(site, article),
    "tag-feed": lambda site, p, article: rss_item(
        site, reverse("news:tag-feed", args=[site.tag_slug(p)]), article
    ),
}


@pytest.mark.parametrize(
    ("payload", "feed"),
    sample_on_postgres(
        [
            pytest.param(payload, feed, id=f"{payload.name}-{feed}")
            for feed in FEEDS
            for payload in PAYLOADS
        ],
        group=lambda case: case.values[1],
    ),
)
def test_feed_item_is_well_formed_with_safe_html_and_the_title_as_typed(site, feed, payload):
    article = site.article(payload)
    title, description = FEEDS[feed](site, payload, article)
    assert title == xml_text(article.title)
    scan = site.scan(description)
    assert scan.problems == []
    assert payload.marker in scan.visible


@pytest.mark.parametrize("payload", sampled_payloads())
def test_sitemap_is_well_formed_and_lists_the_article(site, payload):
    article = site.article(payload)
    sections = [loc.text for loc in xml(site, reverse("sitemap")).iter(f"{SITEMAP}loc")]
    locations = [
        loc.text
        for section in sections
        for loc in xml(site, section.removeprefix("http://testserver")).iter(f"{SITEMAP}loc")
    ]
    assert f"http://testserver{article.get_absolute_url()}" in locations


@pytest.mark.parametrize("payload", sampled_payloads())
def test_news_sitemap_is_well_formed_with_the_title_as_typed(site, payload):
    article = site.article(payload)
    titles = {
        url.findtext(f"{SITEMAP}loc"): url.findtext(f"{NEWS}news/{NEWS}title")
        for url in xml(site, reverse("news:sitemap-news")).iter(f"{SITEMAP}url")
    }
    assert titles[f"http://testserver{article.get_absolute_url()}"] == xml_text(article.title)


# Source URLs: only http(s) gets in, through the admin, the model and the importer.

REFUSED = HOSTILE_URLS + [payload.text for payload in PAYLOADS]
REFUSED_URLS = [pytest.param(url, id=repr(url)) for url in HOSTILE_URLS] + [
    pytest.param(payload.text, id=payload.name) for payload in PAYLOADS
]


@pytest.mark.parametrize(
    "url", on_sqlite_only(REFUSED_URLS, reason="the model's validators, no query")
)
def test_source_model_refuses_non_http_urls(url):
    source = Source(title="Notes", publisher="Skillo", url=url)
    with pytest.raises(ValidationError) as refused:
        source.full_clean(exclude=["article"])
    assert "url" in refused.value.message_dict


# One request per chunk of addresses refuses them all: one case sends them on PostgreSQL.
@pytest.mark.parametrize("url", sample_on_postgres(REFUSED_URLS))
def test_admin_refuses_non_http_source_url_and_saves_nothing(site, url):
    refused = site.refused_form()
    assert refused["saved"] == 0
    assert "url" in refused["source_errors"][REFUSED.index(url)]


@pytest.mark.parametrize("payload", sampled_payloads())
def test_refused_form_shows_the_typed_text_safely(site, payload):
    """A form sent back with errors shows every field as typed, and runs none of it."""
    scans = [site.scan(page, admin=True) for page in site.refused_form()["pages"]]
    assert [problem for scan in scans for problem in scan.problems] == []
    assert any(payload.marker in scan.visible for scan in scans)


@pytest.mark.parametrize(
    "url",
    sample_on_postgres(
        [pytest.param(u, id=repr(u)) for u in HOSTILE_URLS if not re.search(r"[\s<>]", u)]
    ),
)
def test_importer_refuses_non_http_source_url_naming_file_and_line(site, url, tmp_path):
    payload = PAYLOADS[0]
    path = tmp_path / "hostile-url.txt"
    text = import_text(payload).replace("Imported ", "Refused ")
    path.write_text(text.replace("<https://example.org/notes>", f"<{url}>"), encoding="utf-8")
    with site.blocker.unblock(), pytest.raises(ImportFailed) as refused:
        import_articles([path])
    line = text.split("\n").index(f"• {payload.text} (Skillo Wire) <https://example.org/notes>")
    assert any(p.startswith(f"{path}:{line + 1}: source url") for p in refused.value.problems)


@pytest.mark.sqlite_only(reason="checks the catalogue itself, no query")
def test_catalogue_has_forty_payloads_each_with_a_visible_marker():
    markers = [p.marker.casefold() for p in PAYLOADS]
    assert len(PAYLOADS) >= 40
    assert len(set(markers)) == len(markers)
    assert len({p.name for p in PAYLOADS}) == len(PAYLOADS)
    for payload in PAYLOADS:
        assert payload.marker in payload.text
        assert len(payload.text) <= 100  # fits a tag name
        others = [p for p in PAYLOADS if p is not payload]
        assert not any(payload.marker.casefold() in p.text.casefold() for p in others)
