"""A Redis Cluster of real processes for tests: three primaries (``redis-server
--cluster-enabled yes``) on free ports of 127.0.0.1, joined by ``redis-cli --cluster create``
(``bench/clustergroup.py``, shared with ``solrace bench server --redis-cluster``), ready once
every node says ``cluster_state:ok``; killed when the session ends
(``tests/server/conftest.py``'s ``redis_cluster`` fixture)."""

from __future__ import annotations

from pathlib import Path

from redis_server import RedisServerError, free_port

from bench.clustergroup import PRIMARIES, ClusterGroup

__all__ = ["ClusterGroup", "start_cluster"]


def start_cluster(directory: Path, primaries: int = PRIMARIES, replicas: int = 0) -> ClusterGroup:
    """A cluster of ``primaries`` primaries with ``replicas`` replicas each, started;
    ``RedisServerError`` saying why not."""
    nodes = primaries * (1 + replicas)
    ports = [free_port() for _ in range(nodes)]
    buses = [free_port() for _ in range(nodes)]
    try:
        return ClusterGroup(directory, ports, buses, replicas=replicas).start()
    except RuntimeError as error:
        raise RedisServerError(str(error)) from None
