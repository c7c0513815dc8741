"""Every form a reader or an invited person sends works through Varnish, as a browser
sends it: the page's CSRF cookie goes back with the form. Varnish used to drop every
cookie but the session's, POSTs included, and each of these answered 403 "The form had
expired". Readers' GETs stay cookie-free and cached all the same.
"""

import json
import os
import sqlite3
from contextlib import closing

import pytest

from tests.conftest import SHARED_SLUG
from tests.reader import Reader
from tests.waiting import poll

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)

ARTICLE = f"/articles/{SHARED_SLUG}/"


def reader(site):
    return Reader(site.varnish.url)


def links(site, address):
    """The paths of the confirmation, preferences and unsubscribe links of ``address``
    (what its e-mails hold)."""
    code = (
        "import json; from urllib.parse import urlsplit as u; "
        "from newsletters import links as l; from newsletters.models import Subscriber as S; "
        f"s = S.objects.with_address({address!r}).get(); "
        "print(json.dumps({k: u(f(s)).path for k, f in [('confirm', l.confirm_url), "
        "('preferences', l.preferences_url), ('unsubscribe', l.unsubscribe_url)]}))"
    )
    return json.loads(site.manage("shell", "--no-imports", "-c", code))


def subscriber(site, address):
    with closing(sqlite3.connect(site.folder / "db.sqlite3")) as db:
        return db.execute(
            "SELECT state, frequency FROM newsletters_subscriber WHERE email = ?", [address]
        ).fetchone()


def signed_up(site, address):
    browser = reader(site)
    form = browser.get("/newsletter/")
    assert (form.status, form.cache) == (200, "PASS")
    sent = browser.submit(form, "/newsletter/", email=address)
    assert sent.status == 200, sent.text[:2000]
    assert sent.url.endswith("/newsletter/sent/")
    return browser


def test_a_reader_signs_up_through_varnish(site):
    signed_up(site, "signs-up@example.org")
    assert subscriber(site, "signs-up@example.org") == ("pending", "each")


def test_a_reader_confirms_through_varnish(site):
    browser = signed_up(site, "confirms@example.org")
    page = browser.get(links(site, "confirms@example.org")["confirm"])
    assert page.status == 200
    done = browser.submit(page)
    assert done.status == 200, done.text[:2000]
    assert subscriber(site, "confirms@example.org")[0] == "active"


def test_a_subscriber_changes_preferences_through_varnish(site):
    address = "chooses@example.org"
    signed_up(site, address)
    paths = links(site, address)
    browser = reader(site)  # another day, from the e-mail: a browser with no cookie yet
    browser.submit(browser.get(paths["confirm"]))
    page = browser.get(paths["preferences"])
    saved = browser.submit(page, frequency="weekly")
    assert saved.status == 200, saved.text[:2000]
    assert subscriber(site, address) == ("active", "weekly")


def test_a_subscriber_leaves_with_one_click_through_varnish(site):
    address = "leaves@example.org"
    signed_up(site, address)
    paths = links(site, address)
    browser = reader(site)
    browser.submit(browser.get(paths["confirm"]))
    left = browser.submit(browser.get(paths["unsubscribe"]))
    assert left.status == 200, left.text[:2000]
    assert subscriber(site, address)[0] == "unsubscribed"


def test_an_invited_writer_joins_through_varnish(site):
    # Invited by someone whose account has since been deleted (invited_by is NULL): the
    # page named the inviter through a filter argument, which answered 500 then.
    code = (
        "from datetime import timedelta; from django.utils import timezone; "
        "from editorial.models import Invitation; from editorial.tokens import new_token; "
        "token, digest = new_token(); "
        "Invitation.objects.create(email='ada@example.org', name='Ada', token_hash=digest, "
        "expires_at=timezone.now() + timedelta(days=7)); print(token)"
    )
    token = site.manage("shell", "--no-imports", "-c", code).strip()
    browser = reader(site)
    page = browser.get(f"/join/{token}/")
    assert page.status == 200
    password = "a long and unusual passphrase 7"
    joined = browser.submit(page, username="ada", password1=password, password2=password)
    assert joined.status == 200, joined.text[:2000]
    assert joined.url.endswith("/admin/")
    with closing(sqlite3.connect(site.folder / "db.sqlite3")) as db:
        staff = db.execute("SELECT is_staff FROM auth_user WHERE username = 'ada'").fetchone()
    assert staff == (1,)


def test_a_reader_who_sent_a_form_still_gets_the_cached_pages(site):
    browser = signed_up(site, "still-cached@example.org")
    assert "csrftoken" in browser.cookies
    hit = poll(lambda: (page := browser.get(ARTICLE)).cache == "HIT" and page, 10, 0.05)
    assert hit, "the article is never a hit for a reader with a form's cookie"
    assert "Set-Cookie" not in hit.headers
