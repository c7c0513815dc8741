"""Keeping SQLite's full-text index in one piece (PostgreSQL's GIN index needs no help).

FTS5 writes each transaction's changes to the index as a new segment and merges segments
only a little at a time, and a lookup reads every segment. At 100,000 articles a seeded
index had 13 segments: checking two words in the newest articles, as a search does,
took six times as long as once they were merged into one, and 500 single edits later
there were 13 to 21 segments again. tidy() merges them all, run by
maintenance.statistics.refresh (after migrate, the demo content and imports, and nightly
from ``manage.py tidy_database``).

Merging a little after each save instead was tried at 100,000 articles: an incremental
'optimize' between writes left hundreds of segments; two merge steps per save once 6
segments had piled up kept 5 to 9, with lookups still three to four times slower, and
made one save in ten wait for a merge. Once a night does better for less.
"""

from django.db import connections

FTS_TABLE = "news_article_fts"
# FTS5's structure record: where it is kept, and the mark of its second version.
STRUCTURE_ROWID = 10
STRUCTURE_V2 = b"\xff\x00\x00\x01"
# Pages written per merge step, each step its own transaction: short, since an editor's
# save waits for the step under way.
MERGE_PAGES = 200


def tidy(using="default"):
    """Merge the index's segments into one; the number of merge steps it took (none when
    the index is already one segment, which costs a millisecond to find out)."""
    connection = connections[using]
    if segments(using) is None:  # PostgreSQL, or search's migrations undone or not run
        return 0
    connection.ensure_connection()
    database = connection.connection
    steps = 0
    with connection.cursor() as cursor:
        while True:
            before = database.total_changes
            # A negative size merges every segment into one, as 'optimize' does, a step
            # at a time; fewer than two changes mean there was nothing left to merge.
            cursor.execute(
                f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('merge', %s)", [-MERGE_PAGES]
            )
            if database.total_changes - before < 2:
                return steps
            steps += 1


def upkeep(using="default"):
    """tidy(), for maintenance.statistics.refresh: what it did, in words."""
    before = segments(using)
    if before is None:
        return "No search index to merge."
    steps = tidy(using)
    if not steps:
        return f"Search index: {before} segment(s), nothing to merge."
    return f"Search index: {before} segments merged into {segments(using)} in {steps} steps."


def segments(using="default"):
    """How many segments a lookup in the index reads (None without the index), from
    FTS5's structure record: a 4-byte cookie, then varints for the number of levels and
    of segments."""
    connection = connections[using]
    if connection.vendor != "sqlite":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM sqlite_master WHERE name = %s", [f"{FTS_TABLE}_data"])
        if cursor.fetchone() is None:
            return None
        cursor.execute(f"SELECT block FROM {FTS_TABLE}_data WHERE id = %s", [STRUCTURE_ROWID])
        row = cursor.fetchone()
    if row is None:  # an index that was never written to
        return 0
    record = bytes(row[0])
    at = 8 if record[4:8] == STRUCTURE_V2 else 4
    _levels, at = _varint(record, at)
    count, _ = _varint(record, at)
    return count


def _varint(data, at):
    # SQLite's varint: 7 bits a byte, high bit set on all but the last, the ninth byte whole.
    value = 0
    for position in range(9):
        byte = data[at]
        at += 1
        if position == 8:
            return (value << 8) | byte, at
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, at
    return value, at
