"""A client's address: the peer's, unless the peer is a trusted proxy; then the nearest
untrusted address its X-Forwarded-For names."""

from __future__ import annotations

import asyncio

import pytest
from harness import player, running_server, url
from websockets.exceptions import InvalidStatus

from client.api import Client
from server.edge.addresses import ConnectionCounts, client_address, trusted_networks

PROXIES = trusted_networks(["10.0.0.0/8", "127.0.0.1"])


def test_without_a_trusted_proxy_the_peer_is_the_client_whatever_the_header_says() -> None:
    assert client_address("198.51.100.7", "203.0.113.5", ()) == "198.51.100.7"
    assert client_address("198.51.100.7", "203.0.113.5", PROXIES) == "198.51.100.7"


def test_behind_a_trusted_proxy_the_nearest_untrusted_forwarded_address_is_the_client() -> None:
    assert client_address("10.1.2.3", "203.0.113.5", PROXIES) == "203.0.113.5"
    # a client may put anything first; the proxies append, so read from the right
    assert client_address("10.1.2.3", "1.2.3.4, 203.0.113.5, 10.9.9.9", PROXIES) == "203.0.113.5"
    assert client_address("127.0.0.1", "2001:db8::1", PROXIES) == "2001:db8::1"


def test_a_trusted_proxy_without_a_usable_header_is_counted_as_itself() -> None:
    assert client_address("10.1.2.3", None, PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "not-an-address", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "10.4.4.4", PROXIES) == "10.4.4.4"  # all trusted


def test_a_bad_trusted_proxy_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="not-a-network"):
        trusted_networks(["not-a-network"])


def test_connections_are_counted_per_address_up_to_the_limit_and_forgotten_at_zero() -> None:
    counts = ConnectionCounts(2)
    assert counts.admit("a") and counts.admit("a") and not counts.admit("a")
    assert counts.admit("b")
    counts.release("a")
    assert counts.admit("a") and not counts.admit("a")
    for address in ("a", "a", "b"):
        counts.release(address)
    assert counts.open == {}  # nothing kept for addresses that left
    unlimited = ConnectionCounts(0)
    assert all(unlimited.admit("a") for _ in range(1000)) and unlimited.open == {}


async def test_one_address_opens_at_most_its_limit_of_connections_at_once() -> None:
    async with running_server(connections_per_address=3, trusted_proxies=("127.0.0.1",)) as server:
        first = [await player(server, f"p{i}") for i in range(3)]
        with pytest.raises(InvalidStatus) as refused:
            await player(server, "one too many")
        assert refused.value.response.status_code == 429
        assert b"too many connections from your address" in refused.value.response.body
        elsewhere = {"X-Forwarded-For": "203.0.113.9"}  # another client behind the balancer
        async with await Client.connect(url(server), "other", headers=elsewhere):
            pass
        await first[0].close()
        deadline = asyncio.get_running_loop().time() + 5
        while server.connection_counts.open.get("127.0.0.1") != 2:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
        again = await player(server, "again")  # a closed one frees its place
        for client in [*first[1:], again]:
            await client.close()
        while server.connection_counts.open:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
