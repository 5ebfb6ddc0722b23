"""Where a connection comes from: its peer's address, or, when the peer is a trusted
proxy (the load balancer), the client address that proxy put in ``X-Forwarded-For``.

Only addresses from ``--trusted-proxy`` networks are believed: anyone else could write
any ``X-Forwarded-For`` they like. Several header lines are one list in their order (a
client may send a line of its own; HAProxy adds another). The list is read from its right
end (the proxy closest to the server appends last), skipping trusted proxies; the first
address that is not one is the client's."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(specs: Sequence[str]) -> tuple[Network, ...]:
    """The networks of ``--trusted-proxy`` values (an address or a CIDR each);
    ValueError names a bad one."""
    return tuple(ipaddress.ip_network(spec.strip(), strict=False) for spec in specs)


def client_address(peer: str, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The address to count a client's attempts by (see the module's documentation)."""
    if not _is_trusted(peer, trusted) or not forwarded_for:
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            return hop if _is_address(hop) else peer
    return hops[0] if hops and _is_address(hops[0]) else peer


def _is_trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def forwarded_for(lines: Iterable[str]) -> str | None:
    """Every ``X-Forwarded-For`` line of a request as one list, in order (RFC 9110 5.3:
    a client's own line first, the one its proxy added last); None without any."""
    joined = ", ".join(lines)
    return joined or None


class ConnectionCounts:
    """Open connections per client address on this node, at most ``limit`` each (0: no
    limit, nothing counted). An address leaves the map when its last connection closes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count one more connection from ``address``; False (not counted) at the limit."""
        if not self.limit:
            return True
        count = self.open.get(address, 0)
        if count >= self.limit:
            return False
        self.open[address] = count + 1
        return True

    def release(self, address: str) -> None:
        """A connection ``admit`` counted has closed."""
        count = self.open.get(address, 0) - 1
        if count > 0:
            self.open[address] = count
        else:
            self.open.pop(address, None)
