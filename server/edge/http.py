"""Plain HTTP on the websocket port: ``GET /healthz`` (is all well: the store, the writes),
``GET /readyz`` (may a load balancer send new connections here: not while shutting down,
nor while the node's clock is off the store's),
``GET /metrics``, ``GET /games`` (the games served here), ``GET /signing-keys`` (the
public keys of signed results) and the browser client's files.

A request that asks to upgrade to a websocket goes on to the handshake; anything else is
answered here.
"""

from __future__ import annotations

import asyncio
import functools
import json
import mimetypes
from http import HTTPStatus
from pathlib import Path
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from protocol.daily import CHAIN_DAYS, CHAIN_FIRST_DAY, chain_anchor
from protocol.games import catalog
from server.edge.addresses import ConnectionCounts, client_address, forwarded_for, trusted_networks
from server.edge.connection import MessageConnection

WEB_ROOT = Path(__file__).resolve().parents[2] / "client" / "web"
# What the page may load and who may frame it (docs/browser.md, "What the page trusts"):
# scripts, styles and sockets only from its own origin ('self' covers ws: and wss: of the
# same host), images also as data: (the icon), no framing, no address sent to other sites.
PAGE_POLICY = (
    (
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
)


class NodeStatus(Protocol):
    """What HTTP may ask of the node, and nothing that changes it."""

    @property
    def node(self) -> str: ...

    @property
    def stopping(self) -> bool: ...

    async def health(self) -> dict[str, Any]:
        """The health report; its "status" is "ok" or "degraded"."""
        ...

    def clock_trouble(self) -> str | None:
        """Why this node takes no new connection, its clock being off (None: it takes them)."""
        ...

    def signing_keys(self) -> dict[str, Any]: ...

    async def daily_secret(self) -> str: ...

    def metrics_text(self) -> bytes: ...


class HttpRoutes:
    def __init__(
        self,
        status: NodeStatus,
        counts: ConnectionCounts,
        static_dir: str | None,
        trusted_proxies: tuple[str, ...],
    ) -> None:
        self.status = status
        self.counts = counts
        self.root = Path(static_dir).resolve() if static_dir else WEB_ROOT
        self.trusted = trusted_networks(trusted_proxies)

    async def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | None:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if self.status.stopping:  # draining: new players go to another node
                body = b"this node is shutting down: connect again\n"
                return _response(HTTPStatus.SERVICE_UNAVAILABLE, body, "text/plain")
            trouble = self.status.clock_trouble()
            if trouble is not None:  # it would decide days on its own wrong day
                body = f"{trouble}\n".encode()
                return _response(HTTPStatus.SERVICE_UNAVAILABLE, body, "text/plain")
            return self.admit(connection, request)
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            return await self.health()
        if path == "/readyz":  # for a load balancer: take new connections here?
            ready = not self.status.stopping and self.status.clock_trouble() is None
            body = json.dumps({"ready": ready, "node": self.status.node}).encode()
            status = HTTPStatus.OK if ready else HTTPStatus.SERVICE_UNAVAILABLE
            return _response(status, body, "application/json")
        if path == "/signing-keys":  # the public keys race logs and boards are signed with
            body = json.dumps(self.status.signing_keys()).encode()
            return _response(HTTPStatus.OK, body, "application/json")
        if path == "/daily-chain":  # the anchor every day's seed hashes to, published ahead
            secret = await self.status.daily_secret()
            body = json.dumps(
                {"anchor": chain_anchor(secret), "first_day": CHAIN_FIRST_DAY, "days": CHAIN_DAYS}
            ).encode()
            return _response(HTTPStatus.OK, body, "application/json")
        if path == "/games":  # the games served here, as every welcome lists them
            return _response(HTTPStatus.OK, json.dumps(catalog()).encode(), "application/json")
        if path == "/metrics":
            body = self.status.metrics_text()
            return _response(HTTPStatus.OK, body, "text/plain; version=0.0.4")
        return await self.static(path)

    def admit(self, connection: ServerConnection, request: Request) -> Response | None:
        """A new websocket, counted against its address's limit (the forwarded address
        behind a trusted proxy); 429 once the address has as many open as allowed."""
        peer = connection.remote_address
        forwarded = forwarded_for(request.headers.get_all("X-Forwarded-For"))
        address = client_address(str(peer[0]) if peer else "", forwarded, self.trusted)
        counts = self.counts
        if not counts.admit(address):
            body = (
                f"too many connections from your address (at most {counts.limit} at once): "
                "close some and connect again\n"
            ).encode()
            return _response(HTTPStatus.TOO_MANY_REQUESTS, body, "text/plain")
        if isinstance(connection, MessageConnection):
            connection.on_lost = functools.partial(counts.release, address)
        else:  # not ours: nothing will say when it closes
            counts.release(address)
        return None

    async def health(self) -> Response:
        body = await self.status.health()
        status = HTTPStatus.OK if body["status"] == "ok" else HTTPStatus.SERVICE_UNAVAILABLE
        return _response(status, json.dumps(body).encode(), "application/json")

    async def static(self, path: str) -> Response:
        """A browser client's file, read in a thread: a slow disk never stalls the loop."""
        relative = "index.html" if path in ("/", "") else path.lstrip("/")
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root) or not target.is_file():
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        return _response(HTTPStatus.OK, await asyncio.to_thread(read_file, target), kind)


def read_file(path: Path) -> bytes:
    return path.read_bytes()


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            (
                "Content-Type",
                content_type
                + (
                    "; charset=utf-8" if content_type.startswith(("text/", "application/j")) else ""
                ),
            ),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            *PAGE_POLICY,
        ]
    )
    return Response(status.value, status.phrase, headers, body)
