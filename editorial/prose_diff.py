"""Revisions compared as an editor reads prose: paragraph by paragraph, word by word,
wrapped, with what was taken out struck through and what was put in marked."""

import difflib
import re

from django.utils.html import escape, format_html, format_html_join
from django.utils.safestring import mark_safe

_WORDS = re.compile(r"\s+|[^\s]+")


def _paragraphs(text):
    return [block for block in re.split(r"\r?\n\s*\r?\n", text or "") if block.strip()]


def _word_diff(old, new):
    before, after = _WORDS.findall(old), _WORDS.findall(new)
    parts = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            parts.append(escape("".join(before[a1:a2])))
            continue
        if a2 > a1:
            parts.append(f"<del>{escape(''.join(before[a1:a2]))}</del>")
        if b2 > b1:
            parts.append(f"<ins>{escape(''.join(after[b1:b2]))}</ins>")
    return mark_safe("".join(parts))


def prose_diff(old, new):
    """HTML: each paragraph that changed, its words marked; unchanged paragraphs are
    summarised by their count, so a one-letter fix in a long article is found at once."""
    old_blocks, new_blocks = _paragraphs(old), _paragraphs(new)
    matcher = difflib.SequenceMatcher(a=old_blocks, b=new_blocks, autojunk=False)
    rows = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            count = a2 - a1
            rows.append(
                format_html(
                    '<p class="prose-diff__same">{} unchanged paragraph{}</p>',
                    count,
                    "" if count == 1 else "s",
                )
            )
        elif op == "replace" and a2 - a1 == b2 - b1:
            rows += [
                format_html('<p class="prose-diff__changed">{}</p>', _word_diff(o, n))
                for o, n in zip(old_blocks[a1:a2], new_blocks[b1:b2], strict=True)
            ]
        else:
            rows += [
                format_html('<p class="prose-diff__changed"><del>{}</del></p>', block)
                for block in old_blocks[a1:a2]
            ]
            rows += [
                format_html('<p class="prose-diff__changed"><ins>{}</ins></p>', block)
                for block in new_blocks[b1:b2]
            ]
    if not any("prose-diff__changed" in row for row in rows):
        return mark_safe('<p class="prose-diff__same">No change.</p>')
    return format_html(
        '<div class="prose-diff">{}</div>', format_html_join("", "{}", ((r,) for r in rows))
    )
