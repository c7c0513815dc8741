"""What the desk does to live coverage, and its rules, whatever calls it (the admin's
desk, an import, a test).

Each change runs in one transaction that first moves the coverage's version on (an
UPDATE, which holds the story's row until the commit): changes to one story are taken
in turn, so two entries posted at the same moment both land, each with its own version.
After the commit only what shows the coverage is purged (LIVE): the article page, the
story's updates and feeds, never the lists the article is on.
"""

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from news import purge as news_purge
from news.models import Article
from news.purge import email_choice_changed
from pagecache import purges
from people.models import Author

from .dependencies import LIVE
from .models import Entry, LiveCoverage, RemovedEntry
from .search import index_entries

NOT_LIVE = "This story is not live: start its coverage before posting."
ENDED = "Coverage of this story has ended."

# After the commit, with ``coverage`` and ``entry``: an entry readers can now see (posted
# by an editor, or approved). Apps above (the fediverse) act on key events.
entry_published = Signal()
# After the commit, with ``coverage``: coverage started or ended (coverage.state).
state_changed = Signal()
# Inside the transaction that ends coverage (each time it ends), with ``coverage``: the
# newsletter plans its "Coverage ended" e-mail in it, so that the e-mail is planned with
# the end or not at all.
coverage_ends = Signal()

# Writers post; editors (who may publish articles) also approve, start and end coverage,
# change its settings and change anyone's entry.
POST_PERMISSION = "news.change_article"
RUN_PERMISSION = "news.publish_article"


def can_post(user):
    return user.has_perm(POST_PERMISSION)


def can_run(user):
    return user.has_perm(RUN_PERMISSION)


def can_change(user, entry):
    return can_run(user) or (can_post(user) and entry.posted_by_id == user.pk)


def _take(coverage_pk):
    """The coverage, its version moved on, held until the transaction ends. Raises
    LiveCoverage.DoesNotExist."""
    LiveCoverage.objects.filter(pk=coverage_pk).update(
        version=F("version") + 1, changed_at=timezone.now()
    )
    return LiveCoverage.objects.get(pk=coverage_pk)


def _purge(coverage_pk, hard=False):
    keys = {LIVE(coverage_pk)}
    news_purge.on_commit(lambda: purges.purge(keys, hard=hard))


def _entries_changed(coverage_pk, hard=False):
    """What readers see of the entries changed: purge (``hard`` when one was withdrawn:
    no cache may serve it again), and index them for search."""
    _purge(coverage_pk, hard)
    index_entries.enqueue(coverage_pk)


def _announce(signal, **kwargs):
    news_purge.on_commit(lambda: signal.send(sender=LiveCoverage, **kwargs))


def post_entry(coverage, user, *, body, headline="", key_event=False, authors=None):
    """A new entry on a live story, by ``user``: shown at once, or awaiting an editor
    when the story asks it of writers. ``authors``: the entry's, else the user's own
    author profile, if any. Raises ValidationError (the story not live, the text)."""
    if not can_post(user):
        raise PermissionDenied
    entry = Entry(
        coverage_id=coverage.pk,
        body=body,
        headline=headline,
        key_event=key_event,
        posted_by=user,
    )
    # The story and the user are known (and checked under the lock below).
    entry.full_clean(exclude=["coverage", "posted_at", "posted_by"])
    with transaction.atomic():
        coverage = _take(coverage.pk)
        if not coverage.is_live:
            raise ValidationError(NOT_LIVE, code="not_live")
        waits = coverage.approval_required and not can_run(user)
        entry.status = Entry.Status.AWAITING if waits else Entry.Status.PUBLISHED
        entry.version = coverage.version
        entry.posted_at = timezone.now()
        entry.save()
        entry.authors.add(*(Author.objects.filter(user=user) if authors is None else authors))
        if not waits:
            _entries_changed(coverage.pk)
            _announce(entry_published, coverage=coverage, entry=entry)
    return entry


EDITABLE = ("headline", "body", "key_event")
GONE = "This entry was deleted meanwhile."


def _current(entry):
    """The entry as stored now, under the story's lock: another editor may have deleted
    it since the desk showed it."""
    found = Entry.objects.filter(pk=entry.pk).first()
    if found is None:
        raise ValidationError(GONE, code="gone")
    return found


def edit_entry(entry, user, *, authors=None, **fields):
    """Change an entry's ``headline``, ``body`` or ``key_event`` (and ``authors``). Once
    readers have seen it, it says "Updated" with the time of the change. A writer's
    change to a shown entry on a story that asks for approval leaves readers' pages until
    an editor approves it again: readers see no text an editor has not approved."""
    if not can_change(user, entry):
        raise PermissionDenied
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise TypeError(f"Not an entry's field to edit: {', '.join(sorted(unknown))}")
    with transaction.atomic():
        coverage = _take(entry.coverage_id)
        entry = _current(entry)
        changed = {name: value for name, value in fields.items() if getattr(entry, name) != value}
        for name, value in changed.items():
            setattr(entry, name, value)
        entry.full_clean(exclude=["coverage", "posted_at", "posted_by"])
        if not changed and authors is None:
            transaction.set_rollback(True)
            return entry
        shown = entry.status == Entry.Status.PUBLISHED
        withdrawn = changed and shown and coverage.approval_required and not can_run(user)
        if changed and shown:
            entry.edited_at = timezone.now()
        if withdrawn:
            entry.status = Entry.Status.AWAITING
        entry.version = coverage.version
        entry.save()
        if authors is not None:
            entry.authors.set(authors)
        if withdrawn:
            RemovedEntry.objects.create(
                coverage=coverage, entry_id=entry.pk, version=coverage.version
            )
            _entries_changed(coverage.pk, hard=True)
        elif shown:
            _entries_changed(coverage.pk)
    return entry


def delete_entry(entry, user):
    """Delete an entry for good: readers' open pages drop it (RemovedEntry keeps its
    number only)."""
    if not can_change(user, entry):
        raise PermissionDenied
    with transaction.atomic():
        coverage = _take(entry.coverage_id)
        status = Entry.objects.filter(pk=entry.pk).values_list("status", flat=True).first()
        Entry.objects.filter(pk=entry.pk).delete()
        if status == Entry.Status.PUBLISHED:
            RemovedEntry.objects.create(
                coverage=coverage, entry_id=entry.pk, version=coverage.version
            )
            _entries_changed(coverage.pk, hard=True)


def approve_entry(entry, user):
    """An editor shows a writer's awaiting entry, at the top: its time is now. A change
    to an entry readers had seen goes back in its place, "Updated" now."""
    if not can_run(user):
        raise PermissionDenied
    with transaction.atomic():
        coverage = _take(entry.coverage_id)
        entry = _current(entry)
        if entry.status == Entry.Status.PUBLISHED:
            transaction.set_rollback(True)
            return entry
        if coverage.has_ended:
            raise ValidationError(ENDED, code="ended")
        entry.status = Entry.Status.PUBLISHED
        first = entry.edited_at is None
        if first:
            entry.posted_at = timezone.now()
        else:
            entry.edited_at = timezone.now()
        entry.version = coverage.version
        entry.save()
        _entries_changed(coverage.pk)
        if first:  # Followers were told of it already.
            _announce(entry_published, coverage=coverage, entry=entry)
    return entry


def start_coverage(coverage, user, *, email=False):
    """Go live (again, after an end): entries may be posted. ``email``: the editor chose
    to e-mail the story to the newsletter's subscribers as coverage starts, which the
    newsletter does once per story, ever (as "Publish and send" does). The coverage
    returned says in ``email_planned`` whether this start planned the e-mail: None when
    not asked (or coverage was live already), False when the story went out before or is
    not public yet (it goes when it is published)."""
    return _set_state(coverage, user, LiveCoverage.State.LIVE, email=email)


def end_coverage(coverage, user):
    """Freeze the story: no new entries, open pages stop asking, the page says when."""
    return _set_state(coverage, user, LiveCoverage.State.ENDED)


def _set_state(coverage, user, state, email=False):
    if not can_run(user):
        raise PermissionDenied
    with transaction.atomic():
        coverage = _take(coverage.pk)
        coverage.email_planned = None
        if coverage.state == state:
            transaction.set_rollback(True)
            return coverage
        now = timezone.now()
        coverage.state = state
        if state == LiveCoverage.State.LIVE:
            if coverage.starts_at is None or coverage.starts_at > now:
                coverage.starts_at = now
            coverage.ended_at = None
        else:
            coverage.ended_at = now
        coverage.save(update_fields=["state", "starts_at", "ended_at", "changed_at"])
        if state == LiveCoverage.State.LIVE and email:
            coverage.email_planned = _email_story(coverage.pk)
        elif state == LiveCoverage.State.ENDED:
            coverage_ends.send(sender=LiveCoverage, coverage=coverage)
        _purge(coverage.pk)
        _announce(state_changed, coverage=coverage)
    return coverage


def _email_story(article_pk):
    """The story to be e-mailed, as the article form's "Send to subscribers" does: its
    choice stored, and the newsletter told inside this transaction. True if it planned
    the e-mail."""
    Article.objects.filter(pk=article_pk).update(email_subscribers=True)
    article = Article.objects.get(pk=article_pk)
    answers = email_choice_changed.send(sender=Article, article=article)
    return any(answer for _, answer in answers)


def save_settings(coverage, user):
    """Save what an editor set on the coverage (its summary, start time, whether writers'
    entries wait) with a new version, the summary's too when it changed."""
    if not can_run(user):
        raise PermissionDenied
    with transaction.atomic():
        if coverage._state.adding:
            coverage.save()
            return coverage
        current = _take(coverage.pk)
        coverage.version = current.version
        if coverage.summary != current.summary:
            coverage.summary_version = current.version
        coverage.state, coverage.ended_at = current.state, current.ended_at
        coverage.save()
        _purge(coverage.pk)
    return coverage
