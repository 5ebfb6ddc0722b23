"""The tests' free ports: a port handed to a server started later must not be one the kernel
may hand meanwhile to some other test's outgoing connection (CI once failed a two-node test on
"address already in use")."""

from __future__ import annotations

import socket
from pathlib import Path

from redis_server import free_port


def kernel_ephemeral_ports() -> range:
    low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
    return range(int(low), int(high) + 1)


def test_a_free_port_is_never_one_the_kernel_picks_for_outgoing_connections() -> None:
    ephemeral = kernel_ephemeral_ports()
    ports = [free_port() for _ in range(200)]
    assert not [port for port in ports if port in ephemeral]


def test_a_free_port_can_be_listened_on() -> None:
    port = free_port()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", port))
        listener.listen()
        assert listener.getsockname()[1] == port


def test_free_ports_handed_out_in_a_row_differ() -> None:
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == len(ports)
