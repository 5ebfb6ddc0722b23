"""A DNS server for tests (dnslib): answers A queries for the names it is given, so that
HAProxy finds the test's nodes the way it finds compose's replicas through Docker's DNS."""

from __future__ import annotations

from typing import Any

from dnslib import QTYPE, RR, A
from dnslib.server import BaseResolver, DNSLogger, DNSServer


class _Names(BaseResolver):  # type: ignore[misc]
    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names

    def resolve(self, request: Any, handler: Any) -> Any:
        reply = request.reply()
        name = str(request.q.qname).rstrip(".")
        if request.q.qtype in (QTYPE.A, QTYPE.ANY):
            for address in self.names.get(name, []):
                reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(address), ttl=1))
        return reply


class DnsStub:
    """``with DnsStub({"nodes.test": ["127.0.0.1", "127.0.0.2"]}, port) as dns:``"""

    def __init__(self, names: dict[str, list[str]], port: int) -> None:
        self.port = port
        self.server = DNSServer(
            _Names(names),
            port=port,
            address="127.0.0.1",
            logger=DNSLogger("-request,-reply,-truncated,-error,-recv,-send,-data"),
        )

    def __enter__(self) -> DnsStub:
        self.server.start_thread()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
