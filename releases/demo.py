"""The demo's release desk (load_demo, through textfiles' demo_loaded signal): PyTorch
and Django watched, their releases read from local copies of their feeds (demo_feeds/,
in GitHub's and PyPI's formats) by the same parsers the worker uses, the releases the
demo articles cover written up, the newest ones waiting on the desk. No network."""

from pathlib import Path

from django.db.models import Q
from django.utils import timezone

from news.models import Article, Tag

from . import parsers, versions
from .models import READ_EVERY, ReleaseSource, Tip, TipLink, WatchedProject

FEEDS = Path(__file__).resolve().parent / "demo_feeds"
# (name, slug, topics, public page, kind, identifier, the feed's local copy)
PROJECTS = [
    ("PyTorch", "pytorch", ["Machine learning", "Python", "PyTorch", "Release"], True,
     "github", "pytorch/pytorch", "pytorch-releases.atom"),
    ("Django", "django", ["Django", "Python", "Release", "Web"], True,
     "pypi", "Django", "django-releases.xml"),
]  # fmt: skip


def story_on(slug, version):
    """The demo article on ``version`` ("2.4.0" -> the article whose slug starts with
    "pytorch-2-4-"), or None."""
    parts = version.split(".")
    if any(part != "0" for part in parts[2:]):
        return None  # a patch release: the demo has no story on it
    major_minor = "-".join(parts[:2])
    return Article.objects.filter(slug__startswith=f"{slug}-{major_minor}-").first()


def load(sender=None, **kwargs):
    """Watch the demo projects, once; returns how many tips were made."""
    if WatchedProject.objects.exists():
        return 0
    made = 0
    for name, slug, topics, public, kind, identifier, copy in PROJECTS:
        project = WatchedProject.objects.create(name=name, slug=slug, public_page=public)
        project.topics.set(Tag.objects.filter(Q(name__in=topics)))
        # As read from the local copy just now: the worker reads the real feed when it
        # is next due (half an hour on), not the moment make run starts.
        now = timezone.now()
        source = ReleaseSource.objects.create(
            project=project,
            kind=kind,
            identifier=identifier,
            checked_at=now,
            next_attempt_at=now + READ_EVERY,
        )
        read = parsers.parse(kind, (FEEDS / copy).read_bytes())
        for release in read.releases:
            if release.prerelease:
                continue  # the source takes stable releases only, as by default
            article = story_on(slug, release.version)
            tip = Tip.objects.create(
                project=project,
                version=release.version,
                version_key=versions.key(release.version),
                released_at=release.released_at,
                release_url=release.url,
                notes_url=release.notes_url,
                summary=release.summary,
                article=article,
                state=Tip.State.WRITTEN if article else Tip.State.NEW,
            )
            TipLink.objects.create(
                tip=tip, source=source, url=release.url, notes_url=release.notes_url
            )
            made += 1
    return made
