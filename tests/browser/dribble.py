"""A page arriving in pieces, as over a slow or busy connection: a server on loopback in
front of the live server that passes HTML on in small pieces with a pause between them,
so that Chromium parses and paints each part before the next arrives. A layout whose
boxes depend on what comes later moves then, which a page read whole never shows."""

import http.client
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PIECE = 1000  # bytes
PAUSE = 0.025  # seconds between pieces: more than a frame, so each piece is painted
HOP_BY_HOP = {"connection", "content-length", "keep-alive", "transfer-encoding"}


def handler_for(upstream):
    host, port = upstream.hostname, upstream.port

    class Dribble(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the end of the body is the end of the connection

        def do_GET(self):
            connection = http.client.HTTPConnection(host, port, timeout=30)
            connection.request("GET", self.path, headers={"Host": f"{host}:{port}"})
            response = connection.getresponse()
            body = response.read()
            connection.close()
            self.send_response(response.status)
            for name, value in response.getheaders():
                if name.lower() not in HOP_BY_HOP:
                    self.send_header(name, value)
            self.end_headers()
            if not response.getheader("Content-Type", "").startswith("text/html"):
                self.wfile.write(body)
                return
            for start in range(0, len(body), PIECE):
                self.wfile.write(body[start : start + PIECE])
                self.wfile.flush()
                time.sleep(PAUSE)

        def log_message(self, format, *args):
            pass

    return Dribble


@contextmanager
def dribbling(url):
    """The address of a server that serves what `url` serves, HTML in pieces."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(urlsplit(url)))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
