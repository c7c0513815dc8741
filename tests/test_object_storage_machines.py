"""Two app "machines" in separate processes, sharing one database file and one bucket on
a real S3 API server on loopback, each with a media folder of its own: what an editor
uploads through machine A's admin, and what machine A's worker makes of it, a reader
gets from machine B. Nothing held in one process's memory can hide a file that only
one machine has."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from .pictures import picture
from .redis_server import free_port
from .test_admin import form_data
from .waiting import until

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "a-long-editor-password"


class Machine:
    """gunicorn (one worker) and manage.py with the development settings, as `make run`
    has them, plus the environment that puts media in the bucket."""

    def __init__(self, folder, name, environ):
        self.env = {
            **os.environ,
            **environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
            "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
            "MEDIA_ROOT": str(folder / name / "media"),
        }
        for variable in ("CACHE_URL", "TASKS_URL", "SITE_URL", "MEDIA_URL",
                         "DJANGO_ALLOW_ASYNC_UNSAFE"):  # fmt: skip
            self.env.pop(variable, None)
        self.media = folder / name / "media"
        self.log = open(folder / f"{name}.log", "wb")  # noqa: SIM115 (closed in close())
        self.port = free_port()
        self.process = None
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=120)

    def manage(self, *command):
        done = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=self.env,
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    def serve(self):
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "skillo.wsgi:application", "--bind",
                f"127.0.0.1:{self.port}", "--workers", "1", "--timeout", "120",
                "--no-control-socket",
            ],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        until(self.answers, f"gunicorn answers on port {self.port}", 120)
        return self

    def answers(self):
        try:
            return self.http.get("/robots.txt").status_code == 200
        except httpx.TransportError:
            return False

    def post_form(self, path, data, files=None):
        """Post ``data`` to the form at ``path`` as a browser would: with its CSRF token."""
        self.http.get(path)
        token = self.http.cookies["csrftoken"]
        return self.http.post(path, data={**data, "csrfmiddlewaretoken": token}, files=files)

    def close(self):
        self.http.close()
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)
        self.log.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory, demo_site, s3_server):
    """Machines A and B on a new database (the demo's, migrated, before its content) and a
    new bucket; an editor logged in to machine A's admin."""
    folder = tmp_path_factory.mktemp("machines")
    bucket = s3_server.new_bucket()
    shutil.copy(demo_site / "migrated.sqlite3", folder / "db.sqlite3")
    environ = s3_server.environ(bucket)
    a, b = Machine(folder, "a", environ), Machine(folder, "b", environ)
    try:
        a.env["DJANGO_SUPERUSER_PASSWORD"] = PASSWORD
        a.manage("createsuperuser", "--noinput", "--username", "chief", "--email", "c@x.org")
        a.serve()
        b.serve()
        login = a.post_form("/admin/login/", {"username": "chief", "password": PASSWORD})
        assert login.status_code == 302, login.text[:2000]
        yield a, b, bucket
    finally:
        a.close()
        b.close()


def add_through_the_admin(machine, path, data, files=None):
    """The new object's id, from the change page the admin sends the editor on to."""
    response = machine.post_form(path, {**data, "_continue": "Save"}, files)
    assert response.status_code == 302, response.text[:3000]
    return int(re.search(r"/(\d+)/change/", response.headers["location"])[1])


def sources_of(html):
    """The paths of every picture file the page names (src, srcset, og:image)."""
    found = set(re.findall(r'(?:src|content)="([^"]+\.(?:jpg|avif|png))"', html))
    for srcset in re.findall(r'srcset="([^"]+)"', html):
        found.update(part.split()[0] for part in srcset.split(","))
    return {urlsplit(address).path for address in found}


def test_a_picture_uploaded_on_machine_a_is_served_by_machine_b_in_every_size(site, s3_server):
    a, b, bucket = site
    image = add_through_the_admin(
        a,
        "/admin/images/image/add/",
        {"alt_text": "The launch", "credit": "Photo: Skillo", "licence": "own"},
        {"upload": ("launch.jpg", picture(1600, 900, seed=52), "image/jpeg")},
    )
    a.manage("make_renditions")  # machine A's worker
    data = form_data(title="Launch day", slug="launch-day", lead_image=str(image))
    add_through_the_admin(a, "/admin/news/article/add/", data)

    page = b.http.get("/articles/launch-day/")
    assert page.status_code == 200
    sources = sources_of(page.text)
    renditions = {path for path in sources if path.startswith("/media/renditions/")}
    # Every width in AVIF and JPEG, and the link previews' crop.
    assert len(renditions) >= 9, sources
    for path in renditions:
        response = b.http.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("image/")
        assert (
            response.content
            == s3_server.client.get_object(Bucket=bucket, Key=path.removeprefix("/media/"))[
                "Body"
            ].read()
        )
    assert not b.media.exists() and not a.media.exists()


def test_a_share_card_drawn_on_machine_a_is_served_by_machine_b(site, s3_server):
    a, b, bucket = site
    add_through_the_admin(a, "/admin/news/article/add/", form_data(title="No picture today"))
    page = a.http.get("/articles/go-1-22-released/").text
    [card] = [path for path in sources_of(page) if "/card-" in path]
    assert a.http.get(card).status_code == 200  # drawn on machine A
    [name] = s3_server.keys(bucket, "cards/")
    response = b.http.get(f"/media/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert not b.media.exists()
