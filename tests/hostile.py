"""Hostile HTML at a given size: what makes a backtracking regular expression, a naive
parser or a recursive walk take time more than proportional to the size (repeated or
nested tags, unclosed ones, entities, unclosed comments, one long line)."""


def repeat(piece, size, start="", end=""):
    return start + piece * max((size - len(start) - len(end)) // len(piece), 1) + end


PIECES = {
    "repeated <p>": ("<p>",),
    "repeated <p> unclosed attributes": ("<p class=",),
    "deeply nested <div>": ("<div>",),
    "nested inline tags with attributes": ('<b id="x">',),
    "unknown end tags under nested spans": ("<span>" * 9 + "</x>" * 9,),
    "entities": ("&amp;", "<p>"),
    "unfinished entities": ("&#", "<p>"),
    "unclosed comment": ("a", "<!--"),
    "unclosed tags": ("<a ",),
    "unclosed iframes": ("<iframe ",),
    "unclosed titles": ("<title ",),
    "marked sections": ("<![",),
    "one long line": ("a", "<p>"),
    "version-like text": ("1.", "<p>v", "1x1"),
}


def document(name, size):
    """The hostile HTML ``name`` (one of PIECES), about ``size`` characters long."""
    return repeat(*PIECES[name][:1], size, *PIECES[name][1:])


def documents(size):
    """name: hostile HTML text of about ``size`` characters."""
    return {name: document(name, size) for name in PIECES}
