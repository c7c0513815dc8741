"""The README's map of the code names every app of the project, so that a reader finds
each on it."""

import re
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent


def mapped_folders():
    """The folders the map's table names (its rows start with | `folder/` |)."""
    readme = (ROOT / "README.md").read_text()
    return set(re.findall(r"^\| `([\w-]+)/` \|", readme, re.MULTILINE))


def test_the_readmes_map_names_every_app_of_the_project():
    ours = {
        Path(config.path).relative_to(ROOT).parts[0]
        for config in apps.get_app_configs()
        if Path(config.path).is_relative_to(ROOT) and ".venv" not in Path(config.path).parts
    }
    assert {"embeds", "readership", "news"} <= ours  # the apps are found
    assert ours - mapped_folders() == set()
