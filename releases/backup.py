"""The release desk in the whole-site backup (textfiles' export_site and import_site,
through their site_exporting and site_restoring signals): releases.json in the backup's
folder, written only when the desk watches a project. What it holds: each project with
its topics (by address) and whether its page is public, its sources, and its tips with
where each source reported them and the story written (by address). What it leaves
out: who a tip was assigned to (the backup holds no staff accounts) and each source's
reading state (ETag, failures, next read): a restored desk reads every source afresh."""

import json

from django.utils.dateparse import parse_datetime

from news.models import Article, Tag
from textfiles.signals import restore_part

from .models import ReleaseSource, Tip, TipLink, WatchedProject

BACKUP_RELEASES = "releases.json"
FORMAT = 1
TIP_FIELDS = ("version", "version_key", "prerelease", "release_url", "notes_url", "summary")


def sources_of(project):
    return sorted(project.sources.all(), key=lambda source: source.pk)


def export(sender=None, folder=None, **kwargs):
    if not WatchedProject.objects.exists():
        return
    slugs = dict(Article.objects.values_list("pk", "slug"))
    projects = WatchedProject.objects.order_by("pk").prefetch_related("topics", "sources")
    tips = Tip.objects.order_by("pk").prefetch_related("links")
    data = {
        "format": FORMAT,
        "projects": [
            {
                "name": project.name,
                "slug": project.slug,
                "public_page": project.public_page,
                "topics": sorted(tag.slug for tag in project.topics.all()),
                "sources": [
                    {"kind": s.kind, "identifier": s.identifier, "include": s.include}
                    for s in sources_of(project)
                ],
                "tips": [
                    {
                        **{name: getattr(tip, name) for name in TIP_FIELDS},
                        "released": tip.released_at.isoformat(),
                        "found": tip.found_at.isoformat(),
                        "state": tip.state,
                        "story": slugs.get(tip.article_id),
                        # Each link's source by its place in the project's list.
                        "links": [
                            {
                                "source": [s.pk for s in sources_of(project)].index(link.source_id),
                                "url": link.url,
                                "notes_url": link.notes_url,
                            }
                            for link in tip.links.all()
                        ],
                    }
                    for tip in tips
                    if tip.project_id == project.pk
                ],
            }
            for project in projects
        ],
    }
    (folder / BACKUP_RELEASES).write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n"
    )


def restore(sender=None, folder=None, **kwargs):
    """Restore releases.json if the backup has one; the problems found (nothing is
    restored unless there are none: the restore is one transaction)."""
    exists = WatchedProject.objects.exists() and "watches projects"
    path = folder / BACKUP_RELEASES
    return restore_part(path, FORMAT, "release desk backup", restore_data, exists)


def restore_data(path, data):
    articles = dict(Article.objects.values_list("slug", "pk"))
    tags = dict(Tag.objects.values_list("slug", "pk"))
    problems = [
        f"{path}: the project {project['name']!r} names the {what} {slug!r}, which is not "
        "in the backup."
        for project in data["projects"]
        for what, slug in [
            *(("topic", t) for t in project["topics"] if t not in tags),
            *(
                ("story", t["story"])
                for t in project["tips"]
                if t["story"] not in (None, *articles)
            ),
        ]
    ]
    if problems:
        return problems
    for row in data["projects"]:
        project = WatchedProject.objects.create(
            name=row["name"], slug=row["slug"], public_page=row["public_page"]
        )
        project.topics.set([tags[slug] for slug in row["topics"]])
        sources = [
            ReleaseSource.objects.create(
                project=project, kind=source["kind"], identifier=source["identifier"],
                include=source["include"],
            )
            for source in row["sources"]
        ]  # fmt: skip
        for tip_row in row["tips"]:
            tip = Tip.objects.create(
                project=project,
                **{name: tip_row[name] for name in TIP_FIELDS},
                released_at=parse_datetime(tip_row["released"]),
                state=tip_row["state"],
                article_id=articles.get(tip_row["story"]),
            )
            # found_at is auto_now_add: given back by an update.
            Tip.objects.filter(pk=tip.pk).update(found_at=parse_datetime(tip_row["found"]))
            TipLink.objects.bulk_create(
                TipLink(tip=tip, source=sources[link["source"]], url=link["url"],
                        notes_url=link["notes_url"])
                for link in tip_row["links"]
            )  # fmt: skip
    return []
