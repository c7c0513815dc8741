"""ActivityStreams documents expanded as JSON-LD (pyld) against the contexts shipped in
fediverse/contexts: nothing is fetched from the network."""

import json
from pathlib import Path

from pyld import jsonld

CONTEXTS = Path(__file__).resolve().parents[2] / "fediverse" / "contexts"
LOCAL = {
    "https://www.w3.org/ns/activitystreams": CONTEXTS / "activitystreams.jsonld",
    "https://w3id.org/security/v1": CONTEXTS / "security-v1.jsonld",
}
AS = "https://www.w3.org/ns/activitystreams#"
SEC = "https://w3id.org/security#"
LDP = "http://www.w3.org/ns/ldp#"


def loader(url, options=None):
    path = LOCAL.get(url.rstrip("#"))
    if path is None:
        raise AssertionError(f"a context not shipped in the repository: {url}")
    return {
        "contextUrl": None,
        "documentUrl": url,
        "document": json.loads(path.read_text()),
        "contentType": "application/ld+json",
    }


def expand(document):
    """The document expanded; every term must be known to its contexts, else dropped
    terms show as missing keys in the tests' assertions."""
    (expanded,) = jsonld.expand(document, {"documentLoader": loader})
    return expanded


def ids(expanded, term):
    return [value.get("@id") for value in expanded.get(term, [])]


def values(expanded, term):
    return [value.get("@value") for value in expanded.get(term, [])]
