"""bench/fediverse.py's other servers: many fediverse instances on loopback, in a
process of their own. Instance ``i`` listens on 127.1.X.Y (all of 127/8 is this machine),
all on one port; its shared inbox (POST /inbox) checks each delivery's draft-cavage
signature against the site actor's public key and counts it; GET /users/N serves the
actor documents the inbox benchmark's senders sign with.

    python -m bench.fediverse_inboxes PORT INSTANCES DOWN KEYFILE COUNTFILE [SENDERS SENDERKEYS]

The first DOWN instances listen nowhere (connections refused). Counts go to COUNTFILE as
JSON every half second: requests, verified, bad signatures, by instance."""

import asyncio
import base64
import contextlib
import hashlib
import json
import signal
import sys
from collections import Counter
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def address(index):
    return f"127.1.{index // 250}.{index % 250 + 1}"


class Inboxes:
    def __init__(self, public_key_pem, senders):
        self.key = serialization.load_pem_public_key(public_key_pem.encode())
        self.counts = Counter()
        self.by_instance = Counter()
        self.senders = senders  # name -> public PEM

    def verify(self, method, path, headers, body):
        params = dict(
            part.split("=", 1) for part in headers.get("signature", "").split(",") if "=" in part
        )
        params = {name: value.strip('"') for name, value in params.items()}
        digest = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        if headers.get("digest") != digest or "headers" not in params:
            return False
        lines = []
        for name in params["headers"].split():
            value = f"{method.lower()} {path}" if name == "(request-target)" else headers.get(name)
            lines.append(f"{name}: {value}")
        try:
            self.key.verify(
                base64.b64decode(params["signature"]),
                "\n".join(lines).encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except Exception:
            return False
        return True

    async def serve(self, reader, writer):
        host = writer.get_extra_info("sockname")[0]
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                method, path, _ = line.decode().split(" ", 2)
                headers = {}
                while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = header.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                status, answer = 404, b""
                if method == "POST":
                    self.counts["requests"] += 1
                    ok = self.verify(method, path, headers, body)
                    self.counts["verified" if ok else "bad_signature"] += 1
                    if ok:
                        self.by_instance[host] += 1
                    status = 202 if ok else 401
                elif method == "GET" and path.startswith("/users/"):
                    name = path.removeprefix("/users/")
                    if name in self.senders:
                        status, answer = 200, json.dumps(self.actor(host, name)).encode()
                writer.write(
                    f"HTTP/1.1 {status} X\r\nContent-Length: {len(answer)}\r\n"
                    f"Content-Type: application/activity+json\r\n\r\n".encode()
                    + answer
                )
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()

    def actor(self, host, name):
        port = PORT
        ident = f"http://{host}:{port}/users/{name}"
        return {
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            "id": ident,
            "type": "Person",
            "preferredUsername": name,
            "inbox": f"{ident}/inbox",
            "endpoints": {"sharedInbox": f"http://{host}:{port}/inbox"},
            "publicKey": {
                "id": f"{ident}#main-key",
                "owner": ident,
                "publicKeyPem": self.senders[name],
            },
        }


PORT = 0


async def main(port, instances, down, keyfile, countfile, senders=0, senderkeys=None):
    global PORT
    PORT = port
    public = {}
    if senders:
        private = {}
        for n in range(senders):
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            name = f"s{n}"
            public[name] = (
                key.public_key()
                .public_bytes(
                    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
                )
                .decode()
            )
            private[name] = key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            ).decode()
        Path(senderkeys).write_text(json.dumps(private))
    inboxes = Inboxes(Path(keyfile).read_text(), public)
    servers = [
        await asyncio.start_server(inboxes.serve, address(index), port, backlog=1024)
        for index in range(down, instances)
    ]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    Path(countfile + ".ready").write_text("ready")
    while not stop.is_set():
        Path(countfile).write_text(
            json.dumps({**inboxes.counts, "instances_reached": len(inboxes.by_instance)})
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)
    Path(countfile).write_text(
        json.dumps({**inboxes.counts, "instances_reached": len(inboxes.by_instance)})
    )
    for server in servers:
        server.close()


if __name__ == "__main__":
    port, instances, down = (int(value) for value in sys.argv[1:4])
    keyfile, countfile = sys.argv[4:6]
    extra = sys.argv[6:]
    asyncio.run(
        main(port, instances, down, keyfile, countfile,
             int(extra[0]) if extra else 0, extra[1] if extra else None)
    )  # fmt: skip
