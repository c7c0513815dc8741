"""Mutation check of the purge rules: remove each kind of purge in turn and show that
its test (in test_purge_dependencies.py, unless named) fails.

    .venv/bin/python -m tests.pagecache.purge_mutations

Prints one line per kind and exits 1 if a mutation survives (its test still passes).
The source files are restored after each run, also on Ctrl-C.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = "tests/pagecache/test_purge_dependencies.py"

# kind: (file, text to remove or replace, replacement, test name[, test file])
MUTATIONS = {
    "article": ("news/purge.py", "keys = {ARTICLE(pk)}", "keys = set()", "test_article_"),
    "tag": ("news/purge.py", "        *TAG.each(fp.tags),\n", "", "test_tag_"),
    "referenced-by": (
        "news/purge.py", "        *REFERENCED_BY.each(fp.link_targets),\n", "",
        "test_referenced_by_",
    ),
    "related title": ("news/purge.py", "        title_key(fp.title),\n", "", "test_related_title_"),
    "lists": ("news/purge.py", "        LATEST(),\n", "", "test_lists_"),
    "topic counts": ("news/purge.py", "        TOPICS(),\n", "", "test_topics_"),
    "re-tagged counts": (
        "news/purge.py", "keys |= (before ^ after) | {TOPICS()}", "keys |= before ^ after",
        "test_retag_",
    ),
    "picks by title": (
        "news/asides.py", "if not link.target_id and link.title_match_slug", "if False",
        "test_more_on_these_topics_leaves_out_the_articles_linked_by_title",
        "tests/test_discovery.py",
    ),
    "feeds": ("news/purge.py", "keys.add(FEEDS())", "pass", "test_feeds_"),
    "navigation": ("news/purge.py", "purges.purge({NAV()})", "pass", "test_navigation_"),
    "author": ("news/purge.py", "        AUTHOR(author_pk),\n", "", "test_author_a_"),
    "author index": ("news/purge.py", "        AUTHORS(),\n", "", "test_authors_"),
    "author feeds": ("news/purge.py", "        FEEDS(),\n", "", "test_author_feeds_"),
    "author articles": (
        "news/purge.py", "        *AUTHOR_ARTICLES.each(fp.authors),\n", "",
        "test_author_articles_",
    ),
    "schedule": (
        "news/purge.py",
        "keys |= keys_to_purge(pk, replace(now, public=False, scheduled=True), now)",
        "pass",
        "test_schedule_",
    ),
    "image": (
        "news/purge.py", "keys = {*ARTICLE.each(article_ids), *AUTHOR.each(author_ids)}",
        "keys = set()", "test_image_",
    ),
    "correction's article": (
        "news/purge.py", "        ARTICLE(article_pk),  # its page shows it\n", "",
        "test_correction_article_",
    ),
    "corrections": ("news/purge.py", "        CORRECTIONS(),\n", "", "test_corrections_"),
    "correction feeds": (
        "news/purge.py",
        "        FEEDS(),  # and the sitemap lists /corrections/ with its lastmod\n", "",
        "test_correction_feeds_",
    ),
    "source": ("news/purge.py", "keys = {SOURCE(url)}", "keys = set()", "test_source_"),
    "front page": (
        "news/purge.py", "on_commit(lambda: purges.purge({FRONT()}))", "pass", "test_front_",
    ),
}  # fmt: skip


def main():
    survived = []
    for kind, (name, old, new, test, *tests) in MUTATIONS.items():
        path = ROOT / name
        original = path.read_text()
        assert original.count(old) == 1, f"{kind}: the text to mutate is not in {name} once"
        try:
            path.write_text(original.replace(old, new))
            result = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly",
                 *(tests or [TESTS]), "-k", test],
                cwd=ROOT, capture_output=True, text=True,
            )  # fmt: skip
        finally:
            path.write_text(original)
        caught = result.returncode == 1
        print(f"{kind:15} {'caught' if caught else 'SURVIVED'} ({test}*)")
        if not caught:
            survived.append(kind)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
