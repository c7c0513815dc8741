"""A reader's browser, as far as pages and forms go, for tests against real servers.

It keeps the cookies it is given and sends them back, follows redirects, and submits a
page's form as a browser does: every field the page filled in (the CSRF token, ticked
boxes, chosen radios), what the reader typed, an Origin header. Secure cookies are sent
back too: the tests reach a TLS site through the address its terminator would use
(``proxied``: a PROXY protocol line names the reader, Varnish then says https).
"""

import http.client
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urljoin, urlsplit

REDIRECTS = {301, 302, 303, 307, 308}


class Page:
    def __init__(self, url, status, headers, body):
        self.url, self.status, self.headers, self.body = url, status, headers, body

    @property
    def text(self):
        return self.body.decode(errors="replace")

    @property
    def cache(self):
        return self.headers.get("X-Cache")

    def form(self, action=None):
        """The page's form posting to ``action`` (its first POST form if None)."""
        forms = Forms(self.text).forms
        for form in forms:
            target = urljoin(self.url, form["action"] or self.url)
            if urlsplit(target).path == action or (action is None and form["method"] == "post"):
                return form
        raise AssertionError(f"no form to {action} on {self.url}: {[f['action'] for f in forms]}")

    def __repr__(self):
        return f"<Page {self.status} {self.url} {self.cache}>"


class Forms(HTMLParser):
    """Each <form>'s action, method and the values a browser would send untouched."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.forms, self.form, self.select, self.textarea = [], None, None, None
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.form = {
                "action": attrs.get("action") or "",
                "method": (attrs.get("method") or "get").lower(),
                "fields": [],
            }
            self.forms.append(self.form)
        if self.form is None or "disabled" in attrs:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = (attrs.get("type") or "text").lower()
            if kind in {"checkbox", "radio"}:
                if "checked" in attrs:
                    self.form["fields"].append((name, attrs.get("value", "on")))
            elif kind not in {"submit", "button", "image", "reset", "file"}:
                self.form["fields"].append((name, attrs.get("value") or ""))
        elif tag == "select" and name:
            self.select = [name, None, None]  # name, first option, selected option
        elif tag == "option" and self.select is not None:
            value = attrs.get("value", "")
            self.select[1] = value if self.select[1] is None else self.select[1]
            if "selected" in attrs:
                self.select[2] = value
        elif tag == "textarea" and name:
            self.textarea = [name, ""]

    def handle_data(self, data):
        if self.textarea is not None:
            self.textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select" and self.select is not None:
            name, first, chosen = self.select
            if self.form is not None and (chosen or first) is not None:
                self.form["fields"].append((name, chosen if chosen is not None else first))
            self.select = None
        elif tag == "textarea" and self.textarea is not None:
            if self.form is not None:
                self.form["fields"].append(tuple(self.textarea))
            self.textarea = None


class Reader:
    """One reader: ``origin`` is the site's address as the browser sees it
    (https://news.example.test); ``port`` where to connect on 127.0.0.1 (the origin's
    own port by default); ``proxied`` sends the PROXY line a TLS terminator sends."""

    def __init__(self, origin, port=None, proxied=False, client="203.0.113.7", headers=None):
        self.origin = origin.rstrip("/")
        parts = urlsplit(self.origin)
        self.host = parts.netloc
        self.port = port or parts.port or 80
        self.proxied, self.client = proxied, client
        self.headers = headers or {}
        self.cookies = {}

    def request(self, method, path, body=None, headers=None, follow=True):
        url = urljoin(self.origin + "/", path)
        for _ in range(10):
            page = self._send(method, url, body, headers or {})
            if not (follow and page.status in REDIRECTS):
                return page
            url = urljoin(url, page.headers["Location"])
            if page.status in {301, 302, 303}:
                method, body, headers = "GET", None, {}
        raise AssertionError(f"too many redirects from {path}")

    def get(self, path, **kwargs):
        return self.request("GET", path, **kwargs)

    def post(self, path, fields, **kwargs):
        body = urlencode(fields, doseq=True).encode()
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": self.origin,
            **kwargs.pop("headers", {}),
        }
        return self.request("POST", path, body=body, headers=headers, **kwargs)

    def submit(self, page, action=None, **typed):
        """Send the form of ``page`` posting to ``action`` with the fields ``typed``
        (a list for several values) in place of what the page had."""
        form = page.form(action)
        fields = [(name, value) for name, value in form["fields"] if name not in typed]
        for name, value in typed.items():
            values = value if isinstance(value, list | tuple) else [value]
            fields.extend((name, item) for item in values)
        target = urljoin(page.url, form["action"] or page.url)
        assert form["method"] == "post", form
        return self.post(target, fields, headers={"Referer": page.url})

    def _send(self, method, url, body, headers):
        parts = urlsplit(url)
        assert f"{parts.scheme}://{parts.netloc}" == self.origin, f"{url} leaves the site"
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            if self.proxied:
                conn.connect()
                conn.sock.sendall(
                    f"PROXY TCP4 {self.client} 127.0.0.1 40000 443\r\n".encode("ascii")
                )
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            sent = {"Host": self.host, "Accept": "text/html", **self.headers, **headers}
            if self.cookies:
                sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            conn.request(method, path or "/", body=body, headers=sent)
            answer = conn.getresponse()
            page = Page(url, answer.status, answer.headers, answer.read())
        finally:
            conn.close()
        for header in page.headers.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(header).items():
                if morsel["max-age"] == "0" or not morsel.value:
                    self.cookies.pop(name, None)
                else:
                    self.cookies[name] = morsel.value
        return page
