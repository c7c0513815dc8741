"""How far a story went beyond its page: each channel that carries stories (the
newsletter; the fediverse in time) registers a function giving its figures for an
article, and the readership figures show them beside the web's. Registered here, below
both, so that neither app imports the other."""

from dataclasses import dataclass

_channels = []


@dataclass(frozen=True)
class Figure:
    label: str
    value: int
    # A few words on what the value counts.
    note: str = ""


def channel(function):
    """Register ``function(article) -> [Figure]`` (an app's ready())."""
    _channels.append(function)
    return function


def of(article):
    """Every channel's figures for ``article``, in the order they registered."""
    return [figure for function in _channels for figure in function(article)]
