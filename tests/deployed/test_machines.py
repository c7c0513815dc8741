"""Two app machines behind one Varnish (tests/deployed/stack.py, set up as docs/scaling.md
says): what an editor does on one machine, readers see through the other and through
Varnish at once; a form or a link made by one machine is taken by the other; media made
on one are served by the other; losing a machine costs readers nothing."""

import os
import re
import signal
import uuid
from urllib.parse import urlsplit

import pytest

from tests.conftest import SHARED_SLUG
from tests.deployed.stack import SITE_URL
from tests.deployed.test_deploy import Readers
from tests.deployed.test_journeys import mail_to, shell
from tests.waiting import poll

pytestmark = pytest.mark.deployed

ARTICLE = f"/articles/{SHARED_SLUG}/"

# A public story leading with a picture, uploaded and its renditions made by machine A's
# code (as its admin and worker do); prints the story's slug.
STORY_WITH_A_PICTURE = (
    "from tests.factories import ArticleFactory; "
    "print(ArticleFactory(title='Launch day on two machines', illustrated=True).slug)"
)


def machines(deployed):
    """Browsers reaching machine A and machine B directly, as Varnish does."""
    return deployed.machine(deployed.backend_port), deployed.machine(deployed.second_port)


def test_varnish_sends_readers_to_both_machines(deployed):
    reader, marker = deployed.reader(), uuid.uuid4().hex[:10]
    words = [f"machines{marker}n{number}" for number in range(6)]
    for word in words:
        assert reader.get(f"/search/?q={word}").status == 200
    assert any(word in deployed.log("serve.log") for word in words), "machine A answered none"
    assert any(word in deployed.log("serve-b.log") for word in words), "machine B answered none"


def test_an_edit_made_on_machine_a_is_read_on_machine_b_at_once(deployed, tmp_path):
    _, b = machines(deployed)
    assert b.get(ARTICLE).status == 200
    kept = poll(lambda: b.get(ARTICLE).headers.get("Last-Modified"), 20, 0.1)
    assert kept, "machine B never kept the article in the shared cache"
    sentence = "Machine B read this sentence the moment machine A saved it."
    exported = deployed.manage("export_articles", SHARED_SLUG)  # machine A's checkout
    (tmp_path / "article.txt").write_text(exported.replace("\n\n", f"\n\n{sentence}\n\n", 1))
    deployed.manage("import_articles", str(tmp_path / "article.txt"))
    # No waiting: the purge is in the cache both share, and B reads the replica only once
    # it has replayed the change.
    assert sentence in b.get(ARTICLE).text


def test_a_form_from_one_machine_and_the_link_it_mails_work_on_the_other(deployed):
    a, b = machines(deployed)
    form = a.get("/newsletter/")
    b.cookies = a.cookies  # One browser: the balancer sent its next request to B.
    sent = b.submit(form, "/newsletter/", email="two-machines@example.org")
    assert (sent.status, sent.url) == (200, f"{SITE_URL}/newsletter/sent/"), sent.text[:1000]
    text = mail_to(deployed, "two-machines@example.org")
    [link, *_] = re.findall(r"https?://\S+/newsletter/confirm/\S+/", text)
    page = a.get(link)
    confirmed = b.submit(page)
    assert confirmed.status == 200
    assert "You are subscribed" in confirmed.text


def test_an_editor_signed_in_on_one_machine_works_on_the_other(deployed):
    a, b = machines(deployed)
    signed_in = a.submit(a.get("/admin/login/"), username="editor", password="editor")
    assert signed_in.url == f"{SITE_URL}/admin/", signed_in.text[:500]
    b.cookies = a.cookies
    page = b.get("/admin/news/article/")
    assert page.status == 200 and page.url == f"{SITE_URL}/admin/news/article/"
    assert "Select article to change" in page.text or "PyTorch 2.4" in page.text


def test_a_picture_saved_on_machine_a_is_served_by_machine_b_and_varnish(deployed):
    slug = shell(deployed, STORY_WITH_A_PICTURE).strip()
    _, b = machines(deployed)
    page = b.get(f"/articles/{slug}/")
    assert page.status == 200
    pictures = {
        urlsplit(address).path
        for address in re.findall(r'(?:src|content)="([^"]+\.(?:jpg|avif))"', page.text)
    }
    renditions = {path for path in pictures if path.startswith("/media/renditions/")}
    assert renditions, pictures
    for path in renditions:
        for answer in (b.get(path), deployed.reader().get(path)):
            assert answer.status == 200, path
            assert answer.headers["Content-Type"].startswith("image/")
    # Nothing on either machine's disk: the bucket holds them.
    assert not (deployed.folder / "media").exists()
    assert deployed.s3.keys(deployed.bucket, "renditions/")


def test_an_article_unpublished_on_machine_b_is_gone_through_varnish_at_once(deployed):
    pk, slug = shell(
        deployed,
        "from tests.factories import ArticleFactory; "
        "a = ArticleFactory(title='Withdrawn on two machines'); print(a.pk, a.slug)",
    ).split()
    reader, paths = deployed.reader(), [f"/articles/{slug}/", f"/articles/{slug}/?utm_source=1"]
    for path in paths:
        held = poll(lambda path=path: reader.get(path).cache == "HIT", 20, 0.1)
        assert held, f"Varnish never held {path}"
    _, b = machines(deployed)
    b.submit(b.get("/admin/login/"), username="editor", password="editor")
    listing = b.get("/admin/news/article/?q=Withdrawn")
    version = re.search(rf'name="_version_{pk}" value="(\d+)"', listing.text)
    assert version, listing.text[:3000]
    done = b.post(
        "/admin/news/article/",
        {
            "csrfmiddlewaretoken": re.search(
                r'name="csrfmiddlewaretoken" value="([^"]+)"', listing.text
            )[1],
            "action": "unpublish_selected",
            "_selected_action": pk,
            f"_version_{pk}": version[1],
            "index": "0",
        },
        headers={"Referer": f"{SITE_URL}/admin/news/article/"},
    )
    assert done.status == 200
    # The first request after the action: no copy from grace.
    for path in paths:
        answer = reader.get(path)
        assert answer.status == 404, (path, answer.status, answer.cache)


def test_losing_machine_b_costs_readers_nothing(deployed, capsys):
    try:
        with Readers(deployed) as readers:
            assert poll(lambda: readers.total() >= 20, 60, 0.1), "the readers never read"
            lost_at = readers.total()
            deployed.stop_second()
            read_on = poll(lambda: readers.total() >= lost_at + 200, 120, 0.1)
        with capsys.disabled():
            print(
                f"\nmachine B lost: {readers.total() - lost_at} reader requests through "
                f"Varnish after, {len(readers.failures)} errors"
            )
        assert read_on, "the readers stopped reading when machine B was lost"
        assert readers.failures == []
    finally:
        deployed.start_second()


def test_machine_bs_app_server_is_started_again_when_its_master_dies(deployed):
    """make serve without Varnish (machine B's) watches gunicorn as serve.sh does with it."""
    pid_file = deployed.second / ".run" / f"127.0.0.1_{deployed.second_port}" / "gunicorn.pid"
    master = int(pid_file.read_text())
    os.kill(master, signal.SIGKILL)
    b = deployed.machine(deployed.second_port)

    def serving_again():
        try:
            return int(pid_file.read_text()) != master and b.get("/robots.txt").status == 200
        except (OSError, ValueError):
            return False

    assert poll(serving_again, 120, 0.2), deployed.log("serve-b.log")[-3000:]
    assert deployed.second_process.poll() is None
    assert f"the app server (pid {master}) exited" in deployed.log("serve-b.log")


def test_a_page_kept_on_one_machine_is_not_modified_when_asked_of_the_other(deployed):
    """One stored copy in the shared cache, one Last-Modified: a browser's revalidation
    gets a 304 whichever machine answers (each process stamped its own before). The
    worker may purge the page between two requests (a fold of views, a publication):
    then B's 200 is a newer copy, with another date, and the pair is asked again."""
    a, b = machines(deployed)

    def revalidated(validator, header):
        kept = a.get(ARTICLE)
        if not kept.headers.get(validator):
            return False
        answer = b.get(ARTICLE, headers={header: kept.headers[validator]})
        if answer.status == 304:
            return True
        assert answer.headers.get(validator) != kept.headers[validator], (
            f"machine B sent the copy machine A kept in full ({validator})"
        )
        return False

    assert poll(lambda: revalidated("Last-Modified", "If-Modified-Since"), 30, 0.2)
    assert poll(lambda: revalidated("ETag", "If-None-Match"), 30, 0.2)
