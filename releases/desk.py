"""The desk's side of the tips: what the dashboard shows (editorial.sites asks), and what
an editor or a writer does with a tip: write it up, say it is not news, give it to
someone."""

from datetime import UTC

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Prefetch
from django.dispatch import Signal
from django.utils import timezone
from django.utils.formats import date_format
from packaging.version import InvalidVersion, Version

from news.models import Article, ArticleAuthor, RelatedLink, Source
from people.models import Author

from . import versions
from .models import ReleaseSource, Tip, TipLink, publisher_of

SHOWN = 8
PUBLISH = "news.publish_article"
WRITE = "news.add_article"
# Sent when a tip becomes a draft (tip, article, user): the newsroom's conversation says
# where the draft came from (editorial connects to it; releases knows nothing of it).
written_up = Signal()


def may_assign(user):
    """Editors give tips out and say which are not news."""
    return user.has_perm(PUBLISH)


def may_write_up(user, tip):
    return user.has_perm(PUBLISH) or (tip.assignee_id == user.pk and user.has_perm(WRITE))


def with_links(tips):
    return tips.select_related("project", "assignee", "article").prefetch_related(
        Prefetch("links", queryset=TipLink.objects.select_related("source"))
    )


def assignable_users():
    """Who a tip may be given to: the active users who may write articles."""
    return (
        get_user_model()
        .objects.with_perm(WRITE, backend="django.contrib.auth.backends.ModelBackend")
        .filter(is_active=True)
        .order_by("username")
    )


def dashboard(user):
    """The dashboard's release desk: for an editor the Releases column (the tips waiting,
    newest release first) and who may be given one; for anyone, the tips given to them
    (in "For you")."""
    context = {
        "tips_for_you": list(
            with_links(Tip.objects.filter(assignee=user, state=Tip.State.ASSIGNED)).order_by(
                "-released_at"
            )[:SHOWN]
        ),
        "release_tips": None,
    }
    if may_assign(user):
        waiting = Tip.objects.on_desk()
        context.update(
            release_tips=list(with_links(waiting)[:SHOWN]),
            release_tips_count=waiting.count(),
            tip_assignees=list(assignable_users()),
            failing_release_sources=ReleaseSource.objects.filter(failures__gt=0).count(),
        )
    return context


def dismiss(tip):
    """Not news: off the desk for good (a source reporting it again changes nothing)."""
    Tip.objects.filter(pk=tip.pk, article=None).update(state=Tip.State.DISMISSED, assignee=None)


def assign(tip, user):
    Tip.objects.filter(pk=tip.pk, article=None).update(state=Tip.State.ASSIGNED, assignee=user)


def release_day(tip):
    return tip.released_at.astimezone(UTC).date()


# At most this many stories on earlier versions in a draft's "Related on Skillo".
EARLIER_SHOWN = 5


def version_of(text):
    """The version a title or a tip names, comparable; None if it names none."""
    try:
        return Version(versions.key(versions.from_tag(text)))
    except (versions.BadVersion, InvalidVersion):
        return None


def earlier_stories(tip):
    """The published stories on the project's earlier versions, newest version first:
    those written from its earlier tips, and those on one of its topics whose title
    names the project and an earlier version (coverage from before the desk watched it,
    "NumPy 2.0 released")."""
    from_tips = [
        (earlier.released_at, earlier.article)
        for earlier in Tip.objects.filter(
            project=tip.project_id,
            released_at__lt=tip.released_at,
            article__in=Article.objects.published(),
        ).select_related("article")
    ]
    current = version_of(tip.version)
    by_title = []
    if current is not None:
        candidates = (
            Article.objects.published()
            .filter(tags__in=tip.project.topics.all(), title__icontains=tip.project.name)
            .distinct()
            .order_by("-published_at")[:50]
        )
        by_title = [
            (version, article)
            for article in candidates
            if (version := version_of(article.title)) is not None and version < current
        ]
    # Newest first: tips by release time, titles by version, merged by each story's
    # version where it has one.
    ranked = {}
    for when, article in from_tips:
        ranked.setdefault(article.pk, (version_of(article.title), when, article))
    for version, article in by_title:
        ranked.setdefault(article.pk, (version, article.published_at, article))
    ordered = sorted(
        ranked.values(), key=lambda row: (row[0] or Version("0"), row[1]), reverse=True
    )
    return [article for _, _, article in ordered[:EARLIER_SHOWN]]


def draft_body(tip):
    day = date_format(release_day(tip), "j F Y")
    lines = [f"{tip.project.name} {tip.version} was released on {day}."]
    if tip.summary:
        lines.append("> " + tip.summary)
    return "\n\n".join(lines)


def write_up(tip, user):
    """The tip's draft, made once: (article, whether it was made now). The title says
    "PROJECT VERSION released", the event date is the release's day (UTC), the sources
    are the release pages and the notes with their publishers, the tags the project's
    topics, and "Related on Skillo" the stories on its earlier versions."""
    with transaction.atomic():
        # Two presses at once make one draft: the second waits here, then finds it.
        tip = Tip.objects.select_for_update(of=("self",)).select_related("project").get(pk=tip.pk)
        if tip.article_id is not None:
            return Article.objects.get(pk=tip.article_id), False
        article = Article.objects.create(
            title=tip.headline[:200],
            body=draft_body(tip),
            event_date=release_day(tip),
            facts_verified=timezone.localdate(),
            status=Article.Status.DRAFT,
            updated_by=user,
        )
        cited, position = set(), 0
        pages = [link.url for link in tip.links.order_by("pk")] or [tip.release_url]
        for url in pages:
            if url not in cited:
                cited.add(url)
                Source.objects.create(
                    article=article,
                    position=position,
                    title=f"{tip.project.name} {tip.version}",
                    publisher=publisher_of(url),
                    url=url,
                )
                position += 1
        if tip.notes_url and tip.notes_url not in cited:
            Source.objects.create(
                article=article,
                position=position,
                title=f"{tip.project.name} {tip.version} release notes",
                publisher=publisher_of(tip.notes_url),
                url=tip.notes_url,
            )
        # The byline: whoever wrote it up, when they write as an author.
        author = Author.objects.filter(user=user).first() if user is not None else None
        if author is not None:
            ArticleAuthor.objects.create(article=article, author=author, position=0)
        topics = list(tip.project.topics.all())
        if topics:
            article.tags.add(*topics)
        RelatedLink.objects.bulk_create(
            RelatedLink(article=article, position=n, target=earlier, title=earlier.title)
            for n, earlier in enumerate(earlier_stories(tip))
        )
        tip.article = article
        tip.state = Tip.State.WRITTEN
        tip.assignee = tip.assignee or user
        tip.save(update_fields=["article", "state", "assignee"])
        written_up.send(sender=Tip, tip=tip, article=article, user=user)
    return article, True
