"""What a checkout leaves out of git: the files a run of the site makes beside it."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Made by make run, make serve and the tests in the project folder.
MADE_BY_A_RUN = [
    "db.sqlite3", "db.sqlite3-wal", "db.sqlite3-shm", "media/originals/x.jpg",
    "staticfiles/css/skillo.css", ".venv/bin/python",
]  # fmt: skip


def test_what_a_run_makes_is_ignored_by_git():
    if not (ROOT / ".git").exists() or not shutil.which("git"):
        pytest.skip("not a git checkout")
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", *MADE_BY_A_RUN],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.stdout.split() == MADE_BY_A_RUN
