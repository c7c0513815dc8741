"""Version numbers as each ecosystem writes them: which are pre-releases, and one key per
release whatever the source ("v2.4.0" on GitHub, "2.4.0" on PyPI, "2.4" in a blog's
headline are one release)."""

import re

import semver
from packaging.version import InvalidVersion, Version

# Tags and feed titles follow no rule: a conservative one, where a word that marks a
# test build makes it a pre-release ("2.0-rc1", "3.1.0b2", "nightly-2024-07-01").
PRE_WORDS = re.compile(
    # Whole words, or beside digits and signs ("2.0rc1", "1.0.0-rc.1"): not the "rc" of
    # "PyTorch" or the "pre" of "Express".
    r"(?<![a-z])(alpha|beta|rc|candidate|nightly|dev|preview|pre|canary|snapshot)(?![a-z])"
    r"|(\d(a|b)\d)",
    re.IGNORECASE,
)
PRE_SHORT = {"alpha": "a", "beta": "b", "rc": "rc", "candidate": "rc"}
# A version inside a tag or a headline: digits and dots, and a pre-release suffix.
IN_TEXT = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+(?:[-.]?(?:alpha|beta|rc|a|b|dev|pre|preview|post)\.?\d*)?)"
    r"(?![\w.]*\d)",
    re.IGNORECASE,
)
# A tag that is a version and nothing else: a digit, then anything but a space.
PLAIN = re.compile(r"v?(\d\S*)", re.IGNORECASE)
# Where a title's version is looked for: headlines put it near the start, and a longer
# text (a feed's title can be megabytes) would only cost time.
LONGEST_TITLE = 300


class BadVersion(ValueError):
    """Not a version by the source's rules."""


def pep440(text):
    try:
        return Version(text)
    except InvalidVersion as error:
        raise BadVersion(f"“{text[:60]}” is not a PEP 440 version") from error


def semantic(text):
    try:
        return semver.Version.parse(text.removeprefix("v"))
    except (ValueError, TypeError) as error:
        raise BadVersion(f"“{text[:60]}” is not a semantic version") from error


def from_tag(text):
    """The version in a tag or a title ("v2.4.0", "release-1.2", "Django 5.1 released"),
    or BadVersion."""
    text = text.strip()[:LONGEST_TITLE]
    if match := PLAIN.fullmatch(text):
        return match.group(1)
    if match := IN_TEXT.search(text):
        return match.group(1)
    raise BadVersion(f"no version in “{text[:60]}”")


def is_prerelease(kind, version):
    """By the ecosystem's rule: PEP 440 for PyPI, semver for npm and crates.io, the
    conservative word rule for tags and feeds."""
    if kind == "pypi":
        return pep440(version).is_prerelease
    if kind in {"npm", "crates"}:
        return semantic(version).prerelease is not None
    return bool(PRE_WORDS.search(version))


def key(version):
    """One spelling per release: PEP 440's normal form without trailing zeros ("2.4.0",
    "v2.4" and "2.4" are "2.4"; semver's "1.0.0-rc.1" is PEP 440's "1rc1"), else the
    text lower-cased."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return version.strip().lower().removeprefix("v")[:100]
    release = list(parsed.release)
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    text = ".".join(map(str, release))
    if parsed.epoch:
        text = f"{parsed.epoch}!{text}"
    if parsed.pre:
        text += f"{parsed.pre[0]}{parsed.pre[1]}"
    if parsed.post is not None:
        text += f".post{parsed.post}"
    if parsed.dev is not None:
        text += f".dev{parsed.dev}"
    if parsed.local:
        text += f"+{parsed.local}"
    return text[:100]


def from_title(title):
    """(version, pre-release) of a post's title ("Django 5.1 released"). A title that
    marks a test build its number does not ("Django 5.1 release candidate 1") gives
    that build's PEP 440 version ("5.1rc1"): not the final release's tip, and the same
    tip as PyPI's "5.1rc1"."""
    title = title[:LONGEST_TITLE]
    version = from_tag(title)
    marked = PRE_WORDS.search(title)
    if marked and not PRE_WORDS.search(version):
        word = marked.group(0).lower()
        number = re.match(r"\s*(\d+)", title[marked.end() :])
        count = number.group(1) if number else "0"
        version += f"{PRE_SHORT[word]}{count}" if word in PRE_SHORT else f".dev{count}"
    return version, bool(marked)
