"""A local HTTP/1.1 server playing what source URLs do in the wild, for the tests of
check_sources and for bench/sources.py. Loopback only: it listens on 127.0.0.x
addresses (all of 127/8 is this machine on Linux), each standing for another host, and
counts the connections each host has open at once (what a per-host limit bounds).

Paths (on any host):
  /ok/...        200, an HTML page           /file.pdf       200, a PDF (HEAD answered)
  /moved         301 -> /moved-2 -> 308 -> /ok/landed (a chain of permanent redirects)
  /temporary     302 -> /ok/elsewhere        /loop-a, /loop-b redirect to each other
  /missing       404                         /gone           410
  /busy          429 with Retry-After: 1 the first time, then 200
  /busy-long     429 with Retry-After: 3600  /error          500 every time
  /hang          reads the request, never answers
  /huge          HEAD refused (405); GET: an endless HTML body
  /soft          302 -> / (the site's home page, 200)
  /soft-title    HEAD refused (405); GET: 200 with "<title>Page not found</title>"
  /no-head       HEAD refused (405); GET: 200
"""

import asyncio
import threading
from collections import Counter, defaultdict

PAGE = b"<!doctype html><title>Release notes</title><p>" + b"Notes. " * 200 + b"</p>"
NOT_FOUND_PAGE = b"<!doctype html><title>Page not found</title><p>Sorry.</p>"
REASONS = {
    200: "OK", 301: "Moved Permanently", 302: "Found", 308: "Permanent Redirect",
    404: "Not Found", 405: "Method Not Allowed", 410: "Gone", 429: "Too Many Requests",
    500: "Internal Server Error",
}  # fmt: skip


class LinkServer:
    def __init__(self, hosts=1, first=2):
        self.addresses = [f"127.0.0.{first + n}" for n in range(hosts)]
        self.port = None
        self.open = Counter()  # connections open now, by host address
        self.max_open = Counter()  # the most open at once, by host address
        self.requests = defaultdict(list)  # (method, path) per host address
        self.user_agents = set()
        self.huge_bytes_sent = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._servers = []
        self._writers = set()

    def url(self, path, host=0):
        return f"http://{self.addresses[host]}:{self.port}{path}"

    def start(self):
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(10)
        return self

    async def _listen(self):
        first = await asyncio.start_server(self._serve, self.addresses[0], 0, backlog=1024)
        self.port = first.sockets[0].getsockname()[1]
        self._servers = [first]
        for address in self.addresses[1:]:
            server = await asyncio.start_server(self._serve, address, self.port, backlog=1024)
            self._servers.append(server)

    def close(self):
        async def stop():
            for server in self._servers:
                server.close()
            # Hanging up ends every handler by itself (no task is cancelled).
            for writer in list(self._writers):
                writer.close()
            for server in self._servers:
                await server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    async def _serve(self, reader, writer):
        host = writer.get_extra_info("sockname")[0]
        self._writers.add(writer)
        self.open[host] += 1
        self.max_open[host] = max(self.max_open[host], self.open[host])
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                path = target.split("?", 1)[0]  # a query string only makes URLs distinct
                headers = {
                    name.strip().lower(): value.strip()
                    for name, _, value in (line.partition(":") for line in lines[1:] if line)
                }
                self.user_agents.add(headers.get("user-agent", ""))
                self.requests[host].append((method, path))
                if not await self._answer(method, path, host, reader, writer):
                    return
        except ConnectionError:
            return
        finally:
            self.open[host] -= 1
            self._writers.discard(writer)
            writer.close()

    async def _answer(self, method, path, host, reader, writer):
        """Write the answer; False to end the connection."""
        if path == "/hang":
            # Never answers; the connection counts as open until the client hangs up.
            while await reader.read(4096):
                pass
            return False
        if path == "/huge":
            if method == "HEAD":
                return await self._send(writer, method, 405)
            return await self._endless(writer)
        head_refused = {"/soft-title", "/no-head"}
        if path in head_refused and method == "HEAD":
            return await self._send(writer, method, 405)
        if path == "/soft-title":
            return await self._send(writer, method, 200, NOT_FOUND_PAGE)
        redirects = {
            "/moved": (301, "/moved-2"),
            "/moved-2": (308, "/ok/landed"),
            "/temporary": (302, "/ok/elsewhere"),
            "/loop-a": (302, "/loop-b"),
            "/loop-b": (302, "/loop-a"),
            "/soft": (302, "/"),
        }
        if path in redirects:
            status, location = redirects[path]
            return await self._send(writer, method, status, headers={"Location": location})
        if path == "/busy":
            seen = sum(1 for request in self.requests[host] if request[1] == "/busy")
            if seen == 1:
                return await self._send(writer, method, 429, headers={"Retry-After": "1"})
            return await self._send(writer, method, 200, PAGE)
        if path == "/busy-long":
            return await self._send(writer, method, 429, headers={"Retry-After": "3600"})
        if path == "/error":
            return await self._send(writer, method, 500)
        if path == "/missing":
            return await self._send(writer, method, 404, NOT_FOUND_PAGE)
        if path == "/gone":
            return await self._send(writer, method, 410)
        if path == "/file.pdf":
            return await self._send(writer, method, 200, b"%PDF-1.4\n" + b"0" * 5000,
                                    content_type="application/pdf")  # fmt: skip
        if path == "/" or path.startswith("/ok/") or path == "/no-head":
            return await self._send(writer, method, 200, PAGE)
        return await self._send(writer, method, 404, NOT_FOUND_PAGE)

    async def _send(self, writer, method, status, body=b"", headers=None,
                    content_type="text/html; charset=utf-8"):  # fmt: skip
        lines = [f"HTTP/1.1 {status} {REASONS[status]}", f"Content-Length: {len(body)}",
                 f"Content-Type: {content_type}"]  # fmt: skip
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        if method != "HEAD":
            writer.write(body)
        await writer.drain()
        return True

    async def _endless(self, writer):
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"<p>" + b"x" * 65536 + b"</p>"
        try:
            while self.huge_bytes_sent < 1 << 30:  # stops at 1 GB if nobody hangs up
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.huge_bytes_sent += len(chunk)
                await writer.drain()
        except ConnectionError:
            pass
        return False
