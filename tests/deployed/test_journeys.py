"""Journeys of readers and editors on the production stack (tests/deployed/stack.py):
https://news.example.test through Varnish, several gunicorn processes, a worker,
PostgreSQL and Redis. What the development server cannot show: the site's public
address in everything it sends, forms through the edge, purges across processes.
"""

import json
import re
import time
from datetime import date

import pytest

from tests.conftest import SHARED_SLUG
from tests.deployed.stack import BEACONS_PER_MINUTE, HOST, SITE_URL
from tests.fediverse_server import RemoteServer
from tests.waiting import poll, until

# Its own PostgreSQL cluster, whatever the suite's database: make test runs it once, in
# the PostgreSQL servers' run (the SQLite one has more to do).
pytestmark = pytest.mark.deployed

ARTICLE = f"/articles/{SHARED_SLUG}/"


def mail_to(deployed, address):
    """The text of the first e-mail ``address`` received (waits for the worker)."""
    found = until(lambda: deployed.mail.to(address), f"an e-mail to {address}", 90)
    return text_of(found[0])


def text_of(message):
    part = message.get_body(("plain",)) if hasattr(message, "get_body") else None
    if part is None:
        for each in message.walk():
            if each.get_content_type() == "text/plain":
                part = each
                break
    return part.get_payload(decode=True).decode()


def test_a_reader_signs_up_and_confirms_from_the_link_in_the_mail(deployed):
    reader = deployed.reader()
    form = reader.get("/newsletter/")
    sent = reader.submit(form, "/newsletter/", email="reader@example.org")
    assert (sent.status, sent.url) == (200, f"{SITE_URL}/newsletter/sent/"), sent.text[:1000]
    text = mail_to(deployed, "reader@example.org")
    links = re.findall(r"https?://\S+/newsletter/confirm/\S+/", text)
    assert links and all(link.startswith(f"{SITE_URL}/") for link in links), text
    page = reader.get(links[0])
    confirmed = reader.submit(page)
    assert confirmed.status == 200
    assert "You are subscribed" in confirmed.text


def shell(deployed, code):
    return deployed.manage("shell", "--no-imports", "-c", code)


def subscriber(deployed, address):
    """(state, frequency) of the subscriber ``address`` and the paths of its e-mails'
    preferences and unsubscribe links."""
    code = (
        "import json; from urllib.parse import urlsplit as u; "
        "from newsletters import links as l; from newsletters.models import Subscriber as S; "
        f"s = S.objects.with_address({address!r}).get(); "
        "print(json.dumps([s.state, s.frequency, u(l.preferences_url(s)).path, "
        "u(l.unsubscribe_url(s)).path]))"
    )
    return json.loads(shell(deployed, code))


def subscribed(deployed, address):
    """Signed up and confirmed from the mail, as the journey above; a new browser."""
    reader = deployed.reader()
    reader.submit(reader.get("/newsletter/"), "/newsletter/", email=address)
    text = mail_to(deployed, address)
    link = re.search(r"https://\S+/newsletter/confirm/\S+/", text)[0]
    reader.submit(reader.get(link))
    return deployed.reader()


def test_a_confirmed_reader_is_welcomed_with_a_link_to_their_choices(deployed):
    reader = subscribed(deployed, "welcomed@example.org")
    welcome = until(
        lambda: [
            m for m in deployed.mail.to("welcomed@example.org")
            if m["Subject"] == "Welcome to Skillo's newsletter"
        ],
        "the welcome e-mail (the worker)",
        90,
    )[0]  # fmt: skip
    text = text_of(welcome)
    (link,) = re.findall(r"https?://\S+/newsletter/preferences/\S+/", text)
    assert link.startswith(f"{SITE_URL}/"), text
    page = reader.get(link)
    assert page.status == 200 and "Your newsletter" in page.text


def test_a_subscriber_changes_preferences(deployed):
    reader = subscribed(deployed, "chooses@example.org")
    *_, preferences, _ = subscriber(deployed, "chooses@example.org")
    saved = reader.submit(reader.get(preferences), frequency="weekly")
    assert saved.status == 200, saved.text[:1000]
    assert subscriber(deployed, "chooses@example.org")[:2] == ["active", "weekly"]


def test_a_subscriber_leaves_with_the_unsubscribe_pages_button(deployed):
    reader = subscribed(deployed, "leaves@example.org")
    *_, unsubscribe = subscriber(deployed, "leaves@example.org")
    left = reader.submit(reader.get(unsubscribe))
    assert left.status == 200, left.text[:1000]
    assert subscriber(deployed, "leaves@example.org")[0] == "unsubscribed"


def test_an_invited_writer_joins_and_arrives_in_the_admin(deployed):
    # Invited by someone whose account has since been deleted (invited_by is NULL): the
    # page named the inviter through a filter argument, which answered 500 then.
    token = shell(
        deployed,
        "from datetime import timedelta; from django.utils import timezone; "
        "from editorial.models import Invitation; from editorial.tokens import new_token; "
        "token, digest = new_token(); "
        "Invitation.objects.create(email='ada@example.org', name='Ada', token_hash=digest, "
        "expires_at=timezone.now() + timedelta(days=7)); print(token)",
    ).strip()
    reader = deployed.reader()
    page = reader.get(f"/join/{token}/")
    assert page.status == 200
    password = "a long and unusual passphrase 7"
    joined = reader.submit(page, username="ada", password1=password, password2=password)
    assert (joined.status, joined.url) == (200, f"{SITE_URL}/admin/"), joined.text[:1000]
    assert "Welcome to the newsroom, Ada" in joined.text


def test_a_reader_who_sent_a_form_still_gets_the_cached_pages(deployed):
    reader = deployed.reader()
    reader.submit(reader.get("/newsletter/"), "/newsletter/", email="cached@example.org")
    assert "csrftoken" in reader.cookies
    hit = poll(lambda: (page := reader.get(ARTICLE)).cache == "HIT" and page, 20, 0.1)
    assert hit, "the article is never a hit for a reader with a form's cookie"
    assert "Set-Cookie" not in hit.headers


def test_the_fediverse_account_is_on_the_public_host(deployed):
    reader = deployed.reader()
    finger = reader.get(f"/.well-known/webfinger?resource=acct:news@{HOST}")
    assert finger.status == 200, finger.text[:500]
    assert f'"acct:news@{HOST}"' in finger.text
    assert f"@news@{HOST}" in reader.get("/follow/").text


def test_the_feeds_ids_carry_the_public_host(deployed):
    feed = deployed.reader().get("/feed/atom/")
    assert feed.status == 200
    ids = re.findall(r"<id>([^<]+)</id>", feed.text)
    assert ids and all(i.startswith(f"tag:{HOST},") for i in ids), ids[:3]


def test_an_edit_reaches_readers_through_varnish_from_another_process(deployed, tmp_path):
    reader = deployed.reader()
    hit = poll(lambda: (page := reader.get(ARTICLE)).cache == "HIT" and page, 20, 0.1)
    assert hit, "the article is never a hit"
    assert f'<link rel="canonical" href="{SITE_URL}{ARTICLE}">' in hit.text
    sentence = "The deployed tier saw this sentence arrive."
    exported = deployed.manage("export_articles", SHARED_SLUG)
    changed = tmp_path / "article.txt"
    changed.write_text(exported.replace("\n\n", f"\n\n{sentence}\n\n", 1))
    deployed.manage("import_articles", str(changed))
    # Purged softly: the next reader may get the old copy once while Varnish refetches.
    seen = poll(lambda: sentence in reader.get(ARTICLE).text, 30, 0.1)
    assert seen, "the edit never reached readers through Varnish"


def views_after_a_fold(deployed):
    """The views counted for the shared article, once every beacon sent is folded in
    (the worker folds each minute; this folds now, as it would)."""
    code = (
        "from django.db.models import Sum; from readership.folding import fold; "
        "from readership.models import ArticleHour; fold(); "
        f"print(ArticleHour.objects.filter(article__slug={SHARED_SLUG!r})"
        ".aggregate(n=Sum('views'))['n'] or 0)"
    )
    return int(shell(deployed, code))


def send_beacon(reader, agent="Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"):
    """A beacon as the article page's script sends it from a browser."""
    body = json.dumps({"p": ARTICLE, "r": "", "w": "l"}).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": agent,
        "Sec-Fetch-Site": "same-origin",
        "Sec-Fetch-Mode": "cors",
        "Origin": SITE_URL,
    }
    return reader.request("POST", "/readership/beacon/", body=body, headers=headers)


def test_a_readers_view_is_counted_once(deployed):
    before = views_after_a_fold(deployed)
    reader = deployed.reader(client="198.51.100.1")
    assert reader.get(ARTICLE).status == 200
    assert send_beacon(reader).status == 204
    assert views_after_a_fold(deployed) - before == 1


def test_the_beacons_limit_holds_across_the_processes(deployed):
    """BEACONS_PER_MINUTE from one address, whichever of the app's processes each one
    reaches (the limit counted in Redis, not in each process)."""
    for attempt in range(3):  # a flood that crosses a minute's end is sent again
        minute = int(time.time() // 60)
        before = views_after_a_fold(deployed)
        reader = deployed.reader(client=f"198.51.100.{10 + attempt}")
        statuses = {
            send_beacon(reader, agent=f"Mozilla/5.0 Chrome/131.0 reader{n}").status
            for n in range(2 * BEACONS_PER_MINUTE)
        }
        if int(time.time() // 60) == minute:
            break
    assert statuses == {204}
    assert views_after_a_fold(deployed) - before == BEACONS_PER_MINUTE


def test_an_editors_publication_reaches_readers_and_a_followers_server(deployed, tmp_path):
    with RemoteServer("127.0.0.2") as remote:
        alice = remote.add("alice")
        follow = {
            "@context": "https://www.w3.org/ns/activitystreams",
            "id": f"{alice}#follows/site",
            "type": "Follow",
            "actor": alice,
            "object": f"{SITE_URL}/ap/site",
        }
        body = json.dumps(follow).encode()
        headers = remote.cavage_headers("alice", f"{SITE_URL}/ap/inbox", body)
        headers["Content-Type"] = "application/activity+json"
        followed = deployed.reader().request("POST", "/ap/inbox", body=body, headers=headers)
        assert followed.status == 202, followed.text
        until(lambda: remote.activities("Accept"), "the follow's Accept", 90)

        title = "Deployed tier: PyTorch 2.4 told again"
        exported = deployed.manage("export_articles", SHARED_SLUG)
        story = exported.replace(exported.splitlines()[0], title, 1).replace(
            "Published date reflects the original event date (2024-07-24).",
            f"Published on {date.today():%Y-%m-%d}; the event took place on 2024-07-24.",
        )
        (tmp_path / "story.txt").write_text(story)
        deployed.manage("import_articles", str(tmp_path / "story.txt"))

        def created():
            return [
                activity for activity in remote.activities("Create")
                if activity["object"].get("name") == title
                or title in json.dumps(activity["object"])
            ]  # fmt: skip

        (create,) = until(created, "the story's Create at the follower's server", 90)
        url = create["object"]["url"]
        url = url if isinstance(url, str) else url[0]["href"]
        assert url.startswith(f"{SITE_URL}/articles/")
        path = url.removeprefix(SITE_URL)
        reader = deployed.reader()
        assert title in reader.get(path).text
        for page in ("/", "/tags/pytorch/", "/feed/"):
            seen = poll(lambda page=page: title in reader.get(page).text, 30, 0.2)
            assert seen, f"{page} never showed the new story through Varnish"
