"""A loopback HTTP server standing for GitHub, PyPI, npm, crates.io and project blogs:
each path serves a document with its ETag and Last-Modified and answers a conditional
request that matches with 304, as those services do. Paths can also fail: answer a
status (500, 429 with Retry-After), redirect in a loop, or serve HTML.

It listens on 127.0.0.x addresses (all of 127/8 is this machine on Linux), each a host."""

import threading
from dataclasses import dataclass, field
from email.utils import format_datetime
from hashlib import sha256
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    body: bytes = b""
    content_type: str = "application/xml"
    status: int = 200
    headers: dict = field(default_factory=dict)
    conditional: bool = True
    modified: object = None  # a datetime for Last-Modified

    @property
    def etag(self):
        return '"' + sha256(self.body).hexdigest()[:16] + '"'


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        server = self.server.owner
        host = self.server.server_address[0]
        path = self.path
        server.requests.append((host, path, dict(self.headers)))
        route = server.routes.get((host, path)) or server.routes.get(path)
        if route is None:
            return self.answer(404, b"not here", "text/plain")
        if route.status != 200:
            return self.answer(route.status, b"", "text/plain", route.headers)
        headers = dict(route.headers)
        if route.conditional:
            headers["ETag"] = route.etag
            if route.modified:
                headers["Last-Modified"] = format_datetime(route.modified, usegmt=True)
            if self.headers.get("If-None-Match") == route.etag:
                return self.answer(304, b"", None, headers)
        self.answer(200, route.body, route.content_type, headers)

    def answer(self, status, body, content_type, headers=()):
        self.send_response(status)
        for name, value in dict(headers).items():
            self.send_header(name, value)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if not self.server.owner.keep_alive:
            # The client's pool then holds no connection past the test.
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)


class ReleaseServer:
    def __init__(self, hosts=1, keep_alive=False):
        self.keep_alive = keep_alive
        self.addresses = [f"127.0.0.{10 + n}" for n in range(hosts)]
        self.routes = {}
        self.requests = []
        self._servers = []

    def url(self, path, host=0):
        return f"http://{self.addresses[host]}:{self.port}{path}"

    def serve(self, path, route, host=None):
        """Serve ``route`` at ``path`` (on every host, or on one); returns its address."""
        key = path if host is None else (self.addresses[host], path)
        self.routes[key] = route
        return self.url(path, host or 0)

    def requests_for(self, path):
        return [headers for _host, p, headers in self.requests if p == path]

    def start(self):
        port = 0
        for address in self.addresses:
            server = ThreadingHTTPServer((address, port), Handler)
            server.daemon_threads = True
            server.owner = self
            port = server.server_address[1]
            self._servers.append(server)
            # Polled every 50 ms, not 0.5 s: shutdown() waits for the next poll.
            threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        self.port = port
        return self

    def close(self):
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()
