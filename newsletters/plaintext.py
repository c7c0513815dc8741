"""The plain-text part of a story's e-mail, from the same HTML as its HTML part (the body
with its pictures placed, news.templatetags.news.with_images): what a reader of text
mail needs to follow it. A footnote's number is ``[1]`` in the text and its note is
listed at the end; a picture is ``[Picture: its alt text]`` with its caption and credit,
where the HTML part shows it. Links keep their words only, as before.

Article.body_text is the search index's text (no pictures, numbers glued to words); it
is not made for reading."""

import re
from html.parser import HTMLParser

BLOCKS = {
    "blockquote", "div", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "li", "ol", "p", "pre", "table", "tbody", "thead", "tr", "ul",
}  # fmt: skip
VOID = {"br", "hr", "img", "wbr"}
SPACES = re.compile(r"[ \t\r\n\f]+")
DOUBLED = re.compile(r"  +")
# Stripped at the ends of a line: a footnote's text ends with a no-break space before
# the link back to the text, which the plain text has no use for.
EDGES = " \xa0"


def picture(alt, caption=""):
    """A picture where the HTML part shows one; a picture without alt text (decorative,
    or not yet described in the library) is still there, with its caption if any."""
    alt = SPACES.sub(" ", alt or "").strip(EDGES)
    line = f"[Picture: {alt}]" if alt else "[Picture]"
    return f"{line}\n{caption}" if caption else line


class Node:
    __slots__ = ("attrs", "children", "tag")

    def __init__(self, tag, attrs=None):
        self.tag, self.attrs, self.children = tag, dict(attrs or {}), []

    @property
    def classes(self):
        return set((self.attrs.get("class") or "").split())


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("")
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs)
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag, attrs):
        self.open[-1].children.append(Node(tag, attrs))

    def handle_endtag(self, tag):
        # Closes the nearest open element of that name (and any left open inside it).
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data):
        self.open[-1].children.append(data)


def parse(fragment):
    tree = Tree()
    tree.feed(fragment)
    tree.close()
    return tree.root


def text(fragment):
    """The plain text of a story's body HTML, paragraphs apart by a blank line and its
    footnotes at the end."""
    writer = Writer()
    paragraphs = writer.blocks(parse(str(fragment)))
    if writer.notes:
        paragraphs.append("Notes")
        for number, note in enumerate(writer.notes, start=1):
            mark = f"[{number}] "
            paragraphs.append(indent(mark, "\n\n".join(note) or "…"))
    return "\n\n".join(paragraphs)


def indent(first, block):
    """``block`` with ``first`` before its first line and the others under it."""
    pad = " " * len(first)
    lines = block.split("\n")
    return "\n".join([first + lines[0]] + [pad + line if line else "" for line in lines[1:]])


class Writer:
    def __init__(self):
        self.notes = []  # each a list of paragraphs

    def blocks(self, node):
        """The paragraphs of ``node``'s children: runs of inline content and blocks."""
        paragraphs, run = [], []

        def flush():
            words = tidy("".join(run))
            if words:
                paragraphs.append(words)
            run.clear()

        for child in node.children:
            if isinstance(child, Node) and child.tag in BLOCKS:
                flush()
                paragraphs.extend(self.block(child))
            else:
                run.append(self.inline(child))
        flush()
        return paragraphs

    def block(self, node):
        tag = node.tag
        if tag == "div" and "footnote" in node.classes:
            for item in (li for ol in elements(node, "ol") for li in elements(ol, "li")):
                self.notes.append(self.blocks(item))
            return []
        if tag == "figure":
            images = [child for child in node.children if isinstance(child, Node)]
            alt = next((image.attrs.get("alt", "") for image in images if image.tag == "img"), "")
            caption = "".join(
                tidy(self.inline(child)) for child in images if child.tag == "figcaption"
            )
            return [picture(alt, caption)]
        if tag in ("ul", "ol"):
            items = []
            start = int(node.attrs["start"]) if (node.attrs.get("start") or "").isdigit() else 1
            for number, item in enumerate(elements(node, "li"), start=start):
                mark = f"{number}. " if tag == "ol" else "- "
                items.append(indent(mark, "\n".join(self.blocks(item)) or ""))
            return ["\n".join(items)] if items else []
        if tag == "pre":
            code = verbatim(node).strip("\n")
            return [code] if code.strip() else []
        if tag == "blockquote":
            inner = "\n\n".join(self.blocks(node))
            return ["\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))]
        if tag == "table":
            rows = [
                " | ".join(tidy(self.inline(cell)) for cell in elements(row, "td", "th"))
                for row in rows_of(node)
            ]
            return ["\n".join(row for row in rows if row.strip(" |"))]
        if tag == "hr":
            return ["* * *"]
        return self.blocks(node)

    def inline(self, node):
        if isinstance(node, str):
            return SPACES.sub(" ", node)
        if node.tag == "br":
            return "\n"
        if node.tag == "a" and "footnote-backref" in node.classes:
            return ""
        words = "".join(self.inline(child) for child in node.children)
        if node.tag == "a" and "footnote-ref" in node.classes:
            return f"[{words.strip()}]"
        return words


def elements(node, *tags):
    return [child for child in node.children if isinstance(child, Node) and child.tag in tags]


def rows_of(table):
    for child in elements(table, "thead", "tbody", "tr"):
        yield from ([child] if child.tag == "tr" else elements(child, "tr"))


def verbatim(node):
    if isinstance(node, str):
        return node
    if node.tag == "br":
        return "\n"
    return "".join(verbatim(child) for child in node.children)


def tidy(words):
    """Lines without spaces at their ends; no blank lines."""
    lines = (DOUBLED.sub(" ", line).strip(EDGES) for line in words.split("\n"))
    return "\n".join(line for line in lines if line)
