"""The whole-site backup keeps live stories: export_site writes FOLDER/live/<slug>.txt,
import_site restores them, and the story's pages come back the same."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from live import desk
from tests.test_site_backup import wipe

from .test_textformat import full_story, stored  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_a_restored_backup_gives_the_live_story_back(full_story, tmp_path):  # noqa: F811
    reader = Client()
    pages = [full_story.article.get_absolute_url(), f"/live/{full_story.pk}/?order=oldest"]
    before = [reader.get(url).content for url in pages], stored(full_story)
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    assert (tmp_path / "backup" / "live" / f"{full_story.article.slug}.txt").is_file()
    wipe()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    after = [reader.get(url).content for url in pages], stored(full_story)
    assert after == before


def test_a_restored_story_takes_new_entries(full_story, editor, tmp_path):  # noqa: F811
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    desk.start_coverage(full_story, editor)
    desk.post_entry(full_story, editor, body="After the restore.")
