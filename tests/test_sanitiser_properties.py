"""Property tests of the one sanitiser policy (news.rendering.render_markdown): whatever
Markdown and HTML an editor types, the rendered body holds only allow-listed tags and
attributes, links only to http, https, mailto or relative addresses, rel="noopener
noreferrer nofollow" on external links, and no inline styles, event handlers or comments.

The forbidden things are also listed here, independently of the allow-list in
news/rendering.py, so that widening that allow-list to something dangerous fails too.
"""

import re
from html.parser import HTMLParser

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from news.rendering import ALLOWED_ATTRIBUTES, ALLOWED_CLASSES, ALLOWED_TAGS, render_markdown

# The policy, stated independently of news/rendering.py.
LINK_SCHEMES = {"http", "https", "mailto"}
REQUIRED_REL = {"noopener", "noreferrer", "nofollow"}
NEVER_TAGS = {
    "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "svg",
    "math", "form", "input", "button", "textarea", "select", "base", "meta", "link", "img",
    "video", "audio", "source", "template", "noscript", "xmp", "plaintext", "details",
}  # fmt: skip
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "background"}
# How a browser reads a URL's scheme: trimmed of C0 controls and spaces, tabs and newlines
# removed anywhere, then letters up to the first colon.
SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):")

PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, database=None)


def url_scheme(value):
    url = re.sub(r"[\t\n\r]", "", value.strip("".join(map(chr, range(0x21))))).lower()
    match = SCHEME.match(url)
    return match.group(1) if match else None


def is_external(value):
    scheme = url_scheme(value)
    if scheme is not None:
        return scheme in {"http", "https"}
    return re.sub(r"[\t\n\r]", "", value).strip().replace("\\", "/").startswith("//")


class Elements(HTMLParser):
    """Each element of the rendered HTML with its attributes, and whether any comment
    survived."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.elements, self.comments = [], []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_comment(self, data):
        self.comments.append(data)


def assert_policy(source):
    html = render_markdown(source)
    parsed = Elements(html)
    assert parsed.comments == [], html
    for tag, attrs in parsed.elements:
        assert tag in ALLOWED_TAGS, html
        assert tag not in NEVER_TAGS, html
        allowed = ALLOWED_ATTRIBUTES.get(tag, set()) | ALLOWED_ATTRIBUTES.get("*", set())
        allowed |= {"rel"} if tag == "a" else set()
        # Code blocks: focusable (they may scroll), highlighted with our classes only.
        allowed |= {"tabindex"} if tag == "pre" else set()
        allowed |= {"class"} if tag in ALLOWED_CLASSES else set()
        for name, value in attrs.items():
            assert name in allowed, html
            if name == "tabindex":
                assert value == "0", html
            if name == "class":
                assert set((value or "").split()) <= ALLOWED_CLASSES[tag], html
            assert not name.startswith("on"), html
            assert name != "style", html
            if name in URL_ATTRIBUTES:
                scheme = url_scheme(value or "")
                assert scheme is None or scheme in LINK_SCHEMES, html
        if tag == "a" and is_external(attrs.get("href") or ""):
            assert set((attrs.get("rel") or "").split()) >= REQUIRED_REL, html


# Strategies: fragments of text, URLs in every disguise, HTML elements and Markdown.

words = st.text(
    alphabet=st.sampled_from(list("abcXYZ019 .,;:!?-_*`#[]()<>/\\\"'=&%{}$\t")),
    max_size=12,
)
TAGS = sorted(ALLOWED_TAGS | NEVER_TAGS | {"a", "div", "span", "body", "html", "title", "p"})
ATTRIBUTES = [
    "href", "src", "title", "id", "style", "onclick", "onerror", "onload", "onmouseover",
    "OnFocus", "align", "start", "class", "srcdoc", "formaction", "action", "xlink:href",
    "data", "rel", "target", "name", "background",
]  # fmt: skip
RISKY = ["href", "style", "onclick", "onmouseover", "src"]
SCHEMES = [
    "javascript", "JaVaScRiPt", "vbscript", "VBScript", "data", "livescript", "http",
    "https", "mailto", "ftp", "file", "tel", "",
]  # fmt: skip


@st.composite
def disguised(draw, text):
    """``text`` with entities, tabs, newlines and controls slipped in, as an attacker would."""
    out = []
    for char in text:
        out.append(
            draw(
                st.sampled_from(
                    [char, char.upper(), f"&#{ord(char)};", f"&#x{ord(char):x};",
                     f"&#000{ord(char)}", "\t" + char, "\n" + char, "&Tab;" + char,
                     "&NewLine;" + char, "\x01" + char]
                )
            )
        )  # fmt: skip
    return "".join(out)


@st.composite
def urls(draw):
    scheme = draw(st.sampled_from(SCHEMES))
    colon = draw(st.sampled_from([":", "&colon;", "&#58;", "&#x3a;", "%3A"]))
    prefix = draw(st.sampled_from(["", " ", "\x00", "\x1f ", "  \t"]))
    rest = draw(
        st.sampled_from(
            ["alert(1)", "//example.org/x", "x@example.org", "text/html;base64,PHNjcmlwdD4=",
             "//evil.example/%0aalert(1)", ""]
        )
    )  # fmt: skip
    head = draw(disguised(scheme)) if draw(st.booleans()) else scheme
    if not scheme:
        return prefix + draw(st.sampled_from(["/relative", "#fragment", "//evil.example/", ""]))
    return prefix + head + colon + rest


attribute_values = st.one_of(words, urls())


@st.composite
def attributes(draw):
    names = st.one_of(st.sampled_from(RISKY), st.sampled_from(ATTRIBUTES))
    pairs = draw(st.lists(st.tuples(names, attribute_values), max_size=3))
    rendered = []
    for name, value in pairs:
        quote = draw(st.sampled_from(['"', "'", ""]))
        if not quote:
            value = re.sub(r"[\s>]", "", value) or "x"
        rendered.append(f" {name}={quote}{value}{quote}")
    return "".join(rendered)


@st.composite
def element(draw, children):
    # Weighted towards tags the policy keeps: their attributes are what must be filtered.
    tag = draw(
        st.one_of(st.just("a"), st.sampled_from(sorted(ALLOWED_TAGS)), st.sampled_from(TAGS))
    )
    tag = draw(st.sampled_from([tag, tag.upper(), tag.capitalize()]))
    inner = "".join(draw(st.lists(children, max_size=3)))
    closing = draw(st.sampled_from([f"</{tag}>", "", f"</{tag} >", "/>"]))
    return f"<{tag}{draw(attributes())}>{inner}{closing}"


html_fragments = st.recursive(words, lambda children: element(children), max_leaves=8)


@st.composite
def markdown_fragments(draw):
    text, url = draw(words), draw(urls())
    title = draw(words).replace('"', "")
    return draw(
        st.sampled_from(
            [
                f"[{text}]({url})",
                f'[{text}]({url} "{title}")',
                f"[{text}](<{url}>)",
                f"![{text}]({url})",
                f"<{url}>",
                f"[{text}][ref]\n\n[ref]: {url}",
                f"## {text} {{#{title}}}",
                f"* {text}\n* [{text}]({url})",
                f"`{text}` and ```\n{text}\n```",
                f"> {text}",
                f"| a | b |\n|---|---|\n| {text} | [x]({url}) |",
                f"<!-- {text} -->",
                f"<div>\n\n{text}\n\n</div>",
            ]
        )
    )


documents = st.lists(
    st.one_of(html_fragments, markdown_fragments(), words), min_size=1, max_size=6
).flatmap(
    lambda parts: st.lists(
        st.sampled_from(["", " ", "\n", "\n\n"]), min_size=len(parts), max_size=len(parts)
    ).map(lambda seps: "".join(sep + part for sep, part in zip(seps, parts, strict=True)))
)


@PROPERTY_SETTINGS
@given(html_fragments)
@example('<a href="jav&#x09;ascript:alert(1)" onclick="x" style="color:red">x</a>')
@example("<svg><script>alert(1)</script></svg><math><mtext><table><mglyph><style><img>")
@example('<noscript><p title="</noscript><img src=x onerror=alert(1)>">')
def test_raw_html_keeps_to_the_policy(fragment):
    assert_policy(fragment)


@PROPERTY_SETTINGS
@given(markdown_fragments())
@example("[x](javascript:alert(1))")
@example("[x](<JaVaScRiPt&#58;alert(1)>)")
@example("[x][r]\n\n[r]: vbscript:msgbox(1)")
@example("<data:text/html;base64,PHNjcmlwdD4=>")
def test_markdown_keeps_to_the_policy(fragment):
    assert_policy(fragment)


@PROPERTY_SETTINGS
@given(documents)
def test_mixed_markdown_and_html_keeps_to_the_policy(document):
    assert_policy(document)


@pytest.mark.parametrize("url", ["https://example.org/a", "http://example.org/", "//example.org/"])
def test_external_links_keep_their_address_with_the_rel_policy(url):
    (element,) = [e for e in Elements(render_markdown(f"[x]({url})")).elements if e[0] == "a"]
    assert element[1]["href"] == url
    assert set(element[1]["rel"].split()) == REQUIRED_REL
