"""Members and their comments in the whole-site backup (textfiles' export_site and
import_site, through its site_exporting and site_restoring signals): members.json in the
backup's folder, written only when the site has members. What it holds: each member's
address, name, dates and block; their saved stories and comments, by the stories'
addresses; the editors' comment settings and closed stories. What it never holds:
sign-in links and sessions (tokens, even hashed), readers' reports (hashes of their
addresses) and the moderation log (it names staff accounts, which a backup does not
hold)."""

import json

from django.core.management.color import no_style
from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from news.models import Article
from textfiles.signals import restore_part

from .comments import render
from .models import ClosedStory, Comment, CommentSettings, Member, SavedStory

BACKUP_MEMBERS = "members.json"
FORMAT = 1


def when(value):
    return value.isoformat() if value else None


def export(sender=None, folder=None, **kwargs):
    if not (Member.objects.exists() or CommentSettings.objects.exists()):
        return
    slugs = dict(Article.objects.values_list("pk", "slug"))
    rules = CommentSettings.objects.order_by("pk").first()
    data = {
        "format": FORMAT,
        "comment_settings": {
            "first_comment_waits": rules.first_comment_waits,
            "close_after_days": rules.close_after_days,
        }
        if rules
        else None,
        "closed_stories": sorted(
            slugs[pk] for pk in ClosedStory.objects.values_list("article_id", flat=True)
        ),
        "members": [
            {
                "email": member.email,
                "name": member.name,
                "joined": when(member.created_at),
                "last_signed_in": when(member.last_signed_in_at),
                "blocked": when(member.blocked_at),
                "blocked_reason": member.blocked_reason,
                "saved": [
                    {"story": slugs[saved.article_id], "saved": when(saved.saved_at)}
                    for saved in member.saved.order_by("saved_at", "pk")
                ],
            }
            for member in Member.objects.order_by("pk").prefetch_related("saved")
        ],
        "comments": [
            {
                "id": comment.pk,
                "story": slugs[comment.article_id],
                "member": comment.member.email,
                "parent": comment.parent_id,
                "text": comment.body,
                "state": comment.state,
                "posted": when(comment.created_at),
                "edited": when(comment.edited_at),
            }
            for comment in Comment.objects.order_by("pk").select_related("member")
        ],
    }
    (folder / BACKUP_MEMBERS).write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n"
    )


def moment(value):
    return parse_datetime(value) if value else None


def restore(sender=None, folder=None, **kwargs):
    """Restore members.json if the backup has one; the problems found (nothing is
    restored unless there are none: the restore is one transaction)."""
    exists = Comment.objects.exists() and "has comments"
    return restore_part(folder / BACKUP_MEMBERS, FORMAT, "members backup", restore_data, exists)


def restore_data(path, data):
    articles = dict(Article.objects.values_list("slug", "pk"))
    problems = [
        f"{path}: {what} names the story {slug!r}, which is not in the backup."
        for what, slug in [
            *(("a closed story", s) for s in data["closed_stories"]),
            *(("a saved story", s["story"]) for m in data["members"] for s in m["saved"]),
            *((f"comment {c['id']}", c["story"]) for c in data["comments"]),
        ]
        if slug not in articles
    ]
    if problems:
        return problems
    if data["comment_settings"]:
        rules = CommentSettings.objects.order_by("pk").first() or CommentSettings()
        for name, value in data["comment_settings"].items():
            setattr(rules, name, value)
        rules.save()
    ClosedStory.objects.bulk_create(
        ClosedStory(article_id=articles[slug]) for slug in data["closed_stories"]
    )
    members = {}
    for row in data["members"]:
        # A member still in the database (the articles are restored into an empty site,
        # the readers' accounts may have stayed) is the same member: the backup's row
        # gives their name, dates and block back.
        member = Member.objects.with_address(row["email"]).first() or Member(email=row["email"])
        member.name = row["name"]
        member.created_at = moment(row["joined"]) or timezone.now()
        member.last_signed_in_at = moment(row["last_signed_in"])
        member.blocked_at = moment(row["blocked"])
        member.blocked_reason = row["blocked_reason"]
        member.save()
        members[member.email.lower()] = member
        SavedStory.objects.bulk_create(
            SavedStory(member=member, article_id=articles[s["story"]], saved_at=moment(s["saved"]))
            for s in row["saved"]
        )
    made = {}
    # In the order they were written: a reply's comment is made before it.
    for row in sorted(data["comments"], key=lambda c: c["id"]):
        made[row["id"]] = Comment.objects.create(
            # Its id kept: the conversation's anchors (#comment-12) name it.
            pk=row["id"],
            article_id=articles[row["story"]],
            member=members[row["member"].lower()],
            parent=made[row["parent"]] if row["parent"] is not None else None,
            body=row["text"],
            body_html=render(row["text"]),
            state=row["state"],
            created_at=moment(row["posted"]),
            edited_at=moment(row["edited"]),
        )
    # New comments get ids past the restored ones (PostgreSQL's sequence).
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [Comment]):
            cursor.execute(sql)
    return []
