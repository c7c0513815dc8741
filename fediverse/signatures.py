"""HTTP signatures: Skillo signs what it sends, and checks what its inboxes receive.

Sent: draft-cavage ``rsa-sha256`` over ``(request-target) host date digest``, what
Mastodon sends and every server accepts. Received: draft-cavage (``rsa-sha256`` and
``hs2019``, Mastodon's) and RFC 9421 HTTP Message Signatures (with RFC 9530's
Content-Digest), checked by http-message-signatures. Either way the body's digest, the
date (``SKILLO_FEDIVERSE_SIGNATURE_WINDOW`` seconds either side of now) and the key are
checked; whose key it is, is the caller's concern (fediverse.inbox)."""

import base64
import hashlib
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.conf import settings
from django.utils.http import http_date
from http_message_signatures import HTTPMessageVerifier, algorithms
from http_message_signatures.digests import ContentDigest
from http_message_signatures.exceptions import HTTPMessageSignaturesException
from http_message_signatures.resolvers import HTTPSignatureKeyResolver
from http_sf.compat import InnerList

from .keys import load_private, load_public

PARAMETER = re.compile(r'(\w+)="([^"]*)"|(\w+)=(\d+)')


class Refused(Exception):
    """The request's signature does not hold; ``status`` is the answer's status code."""

    def __init__(self, message, status=401):
        super().__init__(message)
        self.status = status


def load_public_or_none(pem):
    try:
        return load_public(pem)
    except (ValueError, TypeError):
        return None


def body_digest(body):
    return "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()


def sign(method, url, private_key_pem, key_id, body=None, headers=None):
    """The headers of a signed request (draft-cavage rsa-sha256), ``headers`` included."""
    parts = urlsplit(url)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    signed = {"(request-target)": f"{method.lower()} {target}", "host": parts.netloc}
    out = dict(headers or {})
    out["Host"] = parts.netloc
    out["Date"] = signed["date"] = http_date()
    if body is not None:
        out["Digest"] = signed["digest"] = body_digest(body)
    text = "\n".join(f"{name}: {value}" for name, value in signed.items())
    signature = load_private(private_key_pem).sign(
        text.encode(), padding.PKCS1v15(), hashes.SHA256()
    )
    out["Signature"] = (
        f'keyId="{key_id}",algorithm="rsa-sha256",headers="{" ".join(signed)}",'
        f'signature="{base64.b64encode(signature).decode()}"'
    )
    return out


def within_window(moment, what, now=None):
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # "-0000": UTC, of unknown origin (RFC 5322)
    window = settings.SKILLO_FEDIVERSE_SIGNATURE_WINDOW
    skew = abs(((now or datetime.now(UTC)) - moment).total_seconds())
    if skew > window:
        raise Refused(f"The {what} is {int(skew)} s away from now; at most {window} s is accepted.")


def check_digest_header(value, body):
    """Digest: SHA-256=... (draft-cavage's companion, RFC 3230)."""
    for part in value.split(","):
        name, _, encoded = part.strip().partition("=")
        if name.lower() == "sha-256":
            if encoded != base64.b64encode(hashlib.sha256(body).digest()).decode():
                raise Refused("The Digest header does not match the body.")
            return
        if name.lower() == "sha-512":
            if encoded != base64.b64encode(hashlib.sha512(body).digest()).decode():
                raise Refused("The Digest header does not match the body.")
            return
    raise Refused("The Digest header names no SHA-256 or SHA-512 digest.")


def parse_cavage(value):
    params = {}
    for match in PARAMETER.finditer(value):
        if match.group(1):
            params[match.group(1)] = match.group(2)
        else:
            params[match.group(3)] = match.group(4)
    return params


class Signed:
    """A request's signature, parsed and checked except for the key's verification.
    ``key_id`` names the key; ``verify(public_key_pem)`` says if it signed."""

    def __init__(self, request, body, received_at=None):
        """``received_at``: when the request arrived, for one checked later (a key fetched
        in the background): its dates are judged against that moment, not now."""
        self.request, self.body = request, body
        self.received_at = received_at
        headers = request.headers
        try:
            if "Signature-Input" in headers:
                self.kind = "rfc9421"
                self._parse_rfc9421()
            elif "Signature" in headers:
                self.kind = "cavage"
                self._parse_cavage()
            else:
                raise Refused("The request is not signed (no Signature header).")
        except (ValueError, TypeError, OverflowError, KeyError):
            # Numbers that are not numbers, times beyond any calendar, values of the
            # wrong shape: a malformed signature, never a 500.
            raise Refused("The signature is malformed.") from None
        # What a replay would repeat: the key and the signature's bytes (not the header's
        # text, which a replay could reword: another label, an extra parameter).
        self.fingerprint = hashlib.sha256(self.key_id.encode() + b"\0" + self.signature).hexdigest()

    # draft-cavage
    def _parse_cavage(self):
        params = parse_cavage(self.request.headers["Signature"])
        for required in ("keyId", "signature"):
            if required not in params:
                raise Refused(f"The Signature header has no {required}.")
        algorithm = params.get("algorithm", "hs2019").lower()
        if algorithm not in {"rsa-sha256", "hs2019"}:
            raise Refused(f"Signatures with {algorithm} are not accepted.")
        self.key_id = params["keyId"]
        self.names = params.get("headers", "date").lower().split()
        if "(request-target)" not in self.names:
            raise Refused("The signature must cover (request-target).")
        if "date" in self.names:
            try:
                moment = parsedate_to_datetime(self.request.headers.get("Date", ""))
            except (TypeError, ValueError):
                raise Refused("The Date header is missing or not a date.") from None
            within_window(moment, "Date header", self.received_at)
        elif "(created)" in self.names and "created" in params:
            within_window(
                datetime.fromtimestamp(int(params["created"]), UTC), "signature", self.received_at
            )
        else:
            raise Refused("The signature must cover the Date header (or (created)).")
        if self.body:
            if "digest" not in self.names:
                raise Refused("The signature must cover the Digest of the body.")
            check_digest_header(self.request.headers.get("Digest", ""), self.body)
        self.params = params
        try:
            self.signature = base64.b64decode(params["signature"], validate=True)
        except ValueError:
            raise Refused("The signature is not base64.") from None

    def _cavage_text(self):
        lines = []
        for name in self.names:
            if name == "(request-target)":
                value = f"{self.request.method.lower()} {self.request.get_full_path()}"
            elif name == "(created)":
                value = self.params.get("created", "")
            elif name == "(expires)":
                value = self.params.get("expires", "")
            elif name == "host":
                value = self.request.get_host()
            else:
                value = self.request.headers.get(name)
                if value is None:
                    raise Refused(f"The signed header {name} is missing.")
            lines.append(f"{name}: {value}")
        return "\n".join(lines)

    # RFC 9421
    def _parse_rfc9421(self):
        try:
            labels = HTTPMessageVerifier._parse_signature_dictionary(
                self.request.headers["Signature-Input"]
            )
        except Exception:
            raise Refused("The Signature-Input header is malformed.") from None
        if len(labels) != 1:
            raise Refused("Exactly one signature is accepted.")
        ((label, node),) = labels.items()
        if not isinstance(node, InnerList):
            raise Refused("The Signature-Input member must be a list of components.")
        params = node.params
        covered = {str(item.value) for item in node}
        if "keyid" not in params:
            raise Refused("The signature names no keyid.")
        if "created" not in params:
            raise Refused("The signature has no created time.")
        within_window(
            datetime.fromtimestamp(int(params["created"]), UTC), "signature", self.received_at
        )
        if "@method" not in covered or not (
            "@target-uri" in covered or {"@path", "@authority"} <= covered
        ):
            raise Refused("The signature must cover the method and the target URI.")
        if self.body:
            if "content-digest" not in covered:
                raise Refused("The signature must cover the Content-Digest of the body.")
            try:
                ContentDigest.verify(self.request.headers.get("Content-Digest", ""), self.body)
            except HTTPMessageSignaturesException:
                raise Refused("The Content-Digest header does not match the body.") from None
        self.key_id = str(params["keyid"])
        try:
            signatures = HTTPMessageVerifier._parse_signature_dictionary(
                self.request.headers.get("Signature", "")
            )
            self.signature = signatures[label].value
        except Exception:
            raise Refused("The Signature header is malformed or names another label.") from None
        if not isinstance(self.signature, bytes):
            raise Refused("The signature is not a byte sequence.")

    def verify(self, public_key_pem):
        """True if the key of ``public_key_pem`` made this signature."""
        if self.kind == "cavage":
            key = load_public_or_none(public_key_pem)
            if not isinstance(key, rsa.RSAPublicKey):
                return False  # only RSA keys sign rsa-sha256 and hs2019 as Mastodon does
            try:
                key.verify(
                    self.signature,
                    self._cavage_text().encode(),
                    padding.PKCS1v15(),
                    hashes.SHA256(),
                )
            except (InvalidSignature, ValueError):
                return False
            return True
        return self._verify_rfc9421(public_key_pem)

    def _verify_rfc9421(self, public_key_pem):
        class Resolver(HTTPSignatureKeyResolver):
            def resolve_public_key(self, key_id):
                return public_key_pem.encode()

        message = _Message(self.request)
        verifier = HTTPMessageVerifier(
            signature_algorithm=algorithms.RSA_V1_5_SHA256, key_resolver=Resolver()
        )
        # The library judges `created` against now: a request kept for later gets the
        # window plus the time it waited.
        waited = 0
        if self.received_at is not None:
            waited = max(0, (datetime.now(UTC) - self.received_at).total_seconds())
        verifier.max_clock_skew = _seconds(settings.SKILLO_FEDIVERSE_SIGNATURE_WINDOW + waited)
        try:
            verifier.verify(message)
        except (HTTPMessageSignaturesException, ValueError, TypeError):
            return False
        return True


def _seconds(n):
    from datetime import timedelta

    return timedelta(seconds=n)


class _Message:
    """A Django request as http-message-signatures reads a message."""

    def __init__(self, request):
        self.method = request.method
        self.url = request.build_absolute_uri()
        self.headers = dict(request.headers.items())
