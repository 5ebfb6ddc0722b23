"""A client's address: the peer's, unless the peer is a trusted proxy; then the nearest
untrusted address its X-Forwarded-For names."""

from __future__ import annotations

import pytest

from server.addresses import client_address, trusted_networks

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
