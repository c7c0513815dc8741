"""Another fediverse server for the tests, on loopback: its accounts (each with its own
RSA key), their actor documents, and inboxes that keep what they receive.

It checks nothing itself; ``verify_cavage`` is an independent check of a draft-cavage
signature (not Skillo's code), for the tests to apply to what Skillo sent."""

import base64
import hashlib
import json
import socket
import threading
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def new_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key):
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


class RemoteServer:
    def __init__(self, address="127.0.0.2", shared_inbox=True):
        self.address = address
        self.shared = shared_inbox
        self.keys = {}
        self.received = []
        self.inbox_status = 202
        self.lock = threading.Lock()
        # Every GET's path, as it arrived; ``release``, when set to an Event, holds each
        # GET until the test sets it (a server that does not answer).
        self.gets = []
        self.release = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                with server.lock:
                    server.gets.append(self.path)
                if server.release is not None:
                    server.release.wait(60)
                name = self.path.removeprefix("/users/")
                if self.path.startswith("/users/") and name in server.keys:
                    body = json.dumps(server.actor_document(name)).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/activity+json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with server.lock:
                    server.received.append(
                        {"path": self.path, "headers": dict(self.headers.items()), "body": body}
                    )
                self.send_response(server.inbox_status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = ThreadingHTTPServer((address, 0), Handler)
        self.port = self.httpd.server_address[1]
        # Polled every 50 ms, not 0.5 s: shutdown() waits for the next poll.
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        if self.release is not None:
            self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def base(self):
        return f"http://{self.address}:{self.port}"

    def add(self, name):
        self.keys[name] = new_key()
        return self.actor_id(name)

    def actor_id(self, name):
        return f"{self.base}/users/{name}"

    def key_id(self, name):
        return self.actor_id(name) + "#main-key"

    def actor_document(self, name):
        ident = self.actor_id(name)
        document = {
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": ident,
            "type": "Person",
            "preferredUsername": name,
            "inbox": ident + "/inbox",
            "publicKey": {
                "id": self.key_id(name),
                "owner": ident,
                "publicKeyPem": public_pem(self.keys[name]),
            },
        }
        if self.shared:
            document["endpoints"] = {"sharedInbox": f"{self.base}/inbox"}
        return document

    def activities(self, kind=None):
        with self.lock:
            found = [json.loads(entry["body"]) for entry in self.received]
        return [activity for activity in found if kind is None or activity["type"] == kind]

    # Signing as one of its accounts (draft-cavage, written here independently of Skillo).
    def cavage_headers(self, name, url, body, algorithm="rsa-sha256", date=None, key_id=None):
        parts = urlsplit(url)
        date = date or formatdate(usegmt=True)
        digest = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        text = (
            f"(request-target): post {parts.path}\nhost: {parts.netloc}\n"
            f"date: {date}\ndigest: {digest}"
        )
        signature = self.keys[name].sign(text.encode(), padding.PKCS1v15(), hashes.SHA256())
        return {
            "Host": parts.netloc,
            "Date": date,
            "Digest": digest,
            "Signature": (
                f'keyId="{key_id or self.key_id(name)}",algorithm="{algorithm}",'
                f'headers="(request-target) host date digest",'
                f'signature="{base64.b64encode(signature).decode()}"'
            ),
        }


class SilentServer:
    """A server that accepts every connection and never answers: ``connections`` counts
    them (each is held open until the server stops)."""

    def __init__(self, address="127.0.0.4"):
        self.listener = socket.create_server((address, 0))
        self.listener.settimeout(0.05)
        self.address, self.port = address, self.listener.getsockname()[1]
        self.held, self.stopped = [], threading.Event()
        self.thread = threading.Thread(target=self.accept, daemon=True)

    def accept(self):
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.held.append(connection)

    @property
    def connections(self):
        return len(self.held)

    @property
    def base(self):
        return f"http://{self.address}:{self.port}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopped.set()
        self.thread.join(5)
        self.listener.close()
        for connection in self.held:
            connection.close()


def closed_port(address):
    """A port on ``address`` where nothing listens: a connection there is refused."""
    with socket.create_server((address, 0)) as probe:
        return probe.getsockname()[1]


def verify_cavage(entry, public_key_pem):
    """Whether ``entry`` (a request the server received) carries a valid draft-cavage
    signature by that key, covering the request target, host, date and body digest."""
    headers = {name.lower(): value for name, value in entry["headers"].items()}
    params = dict(part.split("=", 1) for part in headers["signature"].split(",") if "=" in part)
    params = {name: value.strip('"') for name, value in params.items()}
    names = params["headers"].split()
    assert {"(request-target)", "host", "date", "digest"} <= set(names)
    digest = "SHA-256=" + base64.b64encode(hashlib.sha256(entry["body"]).digest()).decode()
    assert headers["digest"] == digest
    lines = []
    for name in names:
        value = f"post {entry['path']}" if name == "(request-target)" else headers[name]
        lines.append(f"{name}: {value}")
    key = serialization.load_pem_public_key(public_key_pem.encode())
    try:
        key.verify(
            base64.b64decode(params["signature"]),
            "\n".join(lines).encode(),
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
    except Exception:
        return False
    return True
