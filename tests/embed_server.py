"""A local site with the pages embeds are made from, for the embeds' tests: on 127.0.0.1
only (the tests allow private addresses), counting every request it is sent.

  /video/1     a video page pointing to its oEmbed (/oembed?url=...), which gives a
               player (/player/1) and a thumbnail (/thumb.png)
  /post/1      a post with Open Graph tags only, and a picture (/thumb2.png)
  /plain       a page with a <title> and nothing else
  /big         Open Graph tags in a head, then 3.9 MB of body
  /moved       301 -> /post/1
  /missing     404
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from .pictures import picture

VIDEO_TITLE = "Zig's build cache, explained"
POST_TITLE = "Ada (@ada@example.social)"
POST_TEXT = "Zig 0.15 is out: the build cache alone made our CI twice as fast."


class EmbedServer:
    def __init__(self):
        self.requests = []
        self.pictures = {
            "/thumb.png": picture(640, 360, format="PNG", seed=11),
            "/thumb2.png": picture(600, 400, format="PNG", seed=12),
        }
        self.server = None

    @property
    def base(self):
        return f"http://127.0.0.1:{self.server.server_port}"

    def page(self, path, query):
        base = self.base
        if path == "/video/1":
            oembed = f"{base}/oembed?url={base}/video/1&amp;format=json"
            return (
                200,
                "text/html; charset=utf-8",
                (
                    "<!doctype html><html><head><title>Video page</title>"
                    f'<link rel="alternate" type="application/json+oembed" href="{oembed}">'
                    '<meta property="og:description" content="A ten-minute tour of the cache.">'
                    '<meta property="og:site_name" content="LoopTube">'
                    "</head><body><p>video</p></body></html>"
                ).encode(),
            )
        if path == "/oembed":
            if query.get("url") != [f"{base}/video/1"]:
                return 404, "text/plain", b"unknown"
            return 200, "application/json", json.dumps({
                "type": "video", "version": "1.0", "title": VIDEO_TITLE,
                "author_name": "Ada", "provider_name": "LoopTube",
                "thumbnail_url": f"{base}/thumb.png", "width": 640, "height": 360,
                "html": f'<iframe width="640" height="360" src="{base}/player/1" '
                "allowfullscreen></iframe>",
            }).encode()  # fmt: skip
        if path == "/post/1":
            return (
                200,
                "text/html",
                (
                    "<!doctype html><html><head><title>ignored</title>"
                    f'<meta property="og:title" content="{POST_TITLE}">'
                    f'<meta property="og:description" content="{POST_TEXT}">'
                    '<meta property="og:site_name" content="example.social">'
                    '<meta property="og:image" content="/thumb2.png">'
                    "</head><body></body></html>"
                ).encode(),
            )
        if path == "/big":
            # A head, then megabytes of body, as some video sites' pages weigh.
            return (
                200,
                "text/html",
                (
                    b'<!doctype html><html><head><meta property="og:title" content="A heavy page">'
                    b"</head><body>" + b"<p>filler</p>" * 300_000 + b"</body></html>"
                ),
            )
        if path == "/plain":
            return 200, "text/html", b"<!doctype html><title>A plain page</title><p>Hello"
        if path == "/player/1":
            return 200, "text/html", b"<!doctype html><title>Player</title><p>Playing</p>"
        if path in self.pictures:
            return 200, "image/png", self.pictures[path]
        return 404, "text/html", b"<!doctype html><title>Not found</title>"

    def __enter__(self):
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                parts = urlsplit(self.path)
                owner.requests.append(parts.path)
                if parts.path == "/moved":
                    self.send_response(301)
                    self.send_header("Location", "/post/1")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, content_type, body = owner.page(parts.path, parse_qs(parts.query))
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc_info):
        self.server.shutdown()
        self.server.server_close()
