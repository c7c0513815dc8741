"""Subscribers to and from CSV in the admin (issue 29): an import names the line of each
problem and imports nothing; addresses without a recorded opt-in wait for confirmation
and are sent only the link; export protects spreadsheets from formulas."""

import csv
import io

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from newsletters.models import Subscriber, Suppressed, digest

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

IMPORT = "/admin/newsletters/subscriber/import/"


@pytest.fixture
def admin_client_(django_user_model):
    user = django_user_model.objects.create_user("ada", "ada@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Admins"))
    client = Client()
    client.force_login(user)
    return client


def upload(client, text, confirm=True):
    data = {"file": SimpleUploadedFile("subscribers.csv", text.encode(), "text/csv")}
    if confirm:
        data["confirm"] = "on"
    return client.post(IMPORT, data)


GOOD = """email,opted_in,consent_date,source,frequency,topics
opted@example.org,yes,2026-05-31,conference sign-up sheet,weekly,
asked@example.org,no,,old list,each,rust
"""


def test_an_import_adds_opted_in_addresses_and_asks_the_others_to_confirm(
    admin_client_,
    mail_server,  # noqa: F811
):
    ArticleFactory(draft=True, tags=["rust"])
    response = upload(admin_client_, GOOD)
    assert response.status_code == 302
    opted = Subscriber.objects.get(email="opted@example.org")
    asked = Subscriber.objects.get(email="asked@example.org")
    assert (opted.state, opted.frequency) == (Subscriber.State.ACTIVE, "weekly")
    assert "consent 2026-05-31" in opted.source
    assert asked.state == Subscriber.State.PENDING
    assert [t.slug for t in asked.topics.all()] == ["rust"]
    run_queued()
    assert [m["To"] for m in mail_server.messages()] == ["asked@example.org"]
    assert mail_server.messages()[0]["Subject"] == "Confirm your Skillo newsletter"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("not-an-address,no,,,,", "Line 3: “not-an-address” is not an e-mail address."),
        ("x@example.org,maybe,,,,", "Line 3: opted_in is “maybe”; write yes or no."),
        ("x@example.org,yes,,,,", "Line 3: opted in, but no consent_date"),
        ("x@example.org,no,31/05/2026,,,", "is not a date like 2026-05-31"),
        ("x@example.org,no,,,hourly,", "Line 3: frequency “hourly”"),
        ("x@example.org,no,,,,cobol", "Line 3: no topic “cobol”."),
        ("first@example.org,no,,,,", "Line 3: first@example.org is also on line 2."),
    ],
    ids=["address", "opted_in", "no consent date", "date", "frequency", "topic", "twice"],
)
def test_a_bad_line_is_named_and_nothing_is_imported(admin_client_, line, problem):
    text = (
        f"email,opted_in,consent_date,source,frequency,topics\nfirst@example.org,no,,,,\n{line}\n"
    )
    response = upload(admin_client_, text)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page and problem in page
    assert not Subscriber.objects.exists()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("x@example.org,no,,fa\x00ir,,", "Line 3: a NUL character"),
        ('x@example.org,no,,"' + "y" * 140_000 + '",,', "Line 3: field larger than field limit"),
        ('x@example.org,no,,"' + "y" * 101 + '",,', "Line 3: source has at most 100 characters."),
    ],
    ids=["NUL", "a field over 128 KB", "a source over its column"],
)
def test_a_line_that_is_no_csv_text_is_named_and_nothing_is_imported(admin_client_, line, problem):
    text = f"email,opted_in,consent_date,source,frequency\nfirst@example.org,no,,,\n{line}\n"
    response = upload(admin_client_, text)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page and problem in page
    assert not Subscriber.objects.exists()


def test_a_file_without_an_email_column_is_refused_at_line_1(admin_client_):
    response = upload(admin_client_, "address,name\nx@example.org,X\n")
    assert "Line 1: the header must name an “email” column." in response.content.decode()


def test_addresses_already_there_or_suppressed_are_left_as_they_are(admin_client_):
    ArticleFactory(draft=True, tags=["rust"])
    Subscriber.objects.create(email="Opted@Example.org", state=Subscriber.State.UNSUBSCRIBED)
    Suppressed.objects.create(address=digest("asked@example.org"), reason="erased")
    response = upload(admin_client_, GOOD)
    assert response.status_code == 302
    assert Subscriber.objects.get().state == Subscriber.State.UNSUBSCRIBED
    page = admin_client_.get(response["Location"]).content.decode()
    assert "1 already subscribed and 1 suppressed" in page


def test_export_gives_a_csv_with_formulas_defused(admin_client_):
    Subscriber.objects.create(
        email="reader@example.org", state=Subscriber.State.ACTIVE, source="=HYPERLINK(1)"
    )
    response = admin_client_.post(
        "/admin/newsletters/subscriber/",
        {
            "action": "export_csv",
            "_selected_action": list(Subscriber.objects.values_list("pk", flat=True)),
        },
    )
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["email"] == "reader@example.org" and rows[0]["state"] == "active"
    assert rows[0]["source"] == "'=HYPERLINK(1)"
