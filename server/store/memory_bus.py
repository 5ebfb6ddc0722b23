"""The memory store's bus role, and its pairing and limits roles: in one process, messages
reach only this process's listener, and every count lives here."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from server.handover.node_news import Logged, decode
from server.store.base import Wiring
from server.store.roles import Bus, Limits, Pairing


class MemoryBus(Bus):
    def __init__(self, wiring: Wiring) -> None:
        self.wiring = wiring
        self.subscribed: set[str] = set()
        self._nodes: dict[str, float] = {}  # node -> alive until (monotonic)
        self._player_node: dict[str, str] = {}
        self._node_players: dict[str, set[str]] = {}
        self._generations: dict[str, int] = {}
        self._leases: dict[str, tuple[str, float]] = {}  # name -> (holder, until, monotonic)

    def hears(self, channel: str) -> bool:
        """Whether a message on ``channel`` would reach the listener."""
        return self.wiring.listener is not None and channel in self.subscribed

    def tell(self, channel: str, message: dict[str, Any]) -> None:
        """Hand a message to the listener, after this turn, if its channel is followed."""
        listener = self.wiring.listener
        if listener is not None and channel in self.subscribed:
            if not self.wiring.hear_own_logs:
                news = decode(message)
                if isinstance(news, Logged) and news.node == self.wiring.node:
                    return  # this node's own
            asyncio.get_running_loop().call_soon(listener, channel, message)

    async def subscribe(self, channels: Sequence[str]) -> None:
        self.subscribed.update(channels)

    async def unsubscribe(self, channels: Sequence[str]) -> None:
        self.subscribed.difference_update(channels)

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        self.tell(channel, message)

    async def node_alive(self, node: str, ttl_ms: int) -> None:
        self._nodes[node] = time.monotonic() + ttl_ms / 1000

    async def nodes(self) -> dict[str, bool]:
        now = time.monotonic()
        return {node: until > now for node, until in self._nodes.items()}

    async def take_player(self, player: str, node: str) -> str | None:
        before = self._player_node.get(player)
        self._player_node[player] = node
        self._node_players.setdefault(node, set()).add(player)
        return before

    async def player_node(self, player: str) -> str | None:
        return self._player_node.get(player)

    async def node_players(self, node: str) -> list[str]:
        players = self._node_players.get(node, set())
        return sorted(p for p in players if self._player_node.get(p) == node)

    async def forget_node(self, node: str) -> None:
        self._nodes.pop(node, None)
        self._node_players.pop(node, None)

    async def next_event_generation(self, player: str) -> int:
        self._generations[player] = self._generations.get(player, 0) + 1
        return self._generations[player]

    async def claim_lease(self, name: str, holder: str, ttl_ms: int) -> bool:
        now = time.monotonic()
        current = self._leases.get(name)
        if current is None or current[0] == holder or current[1] <= now:
            self._leases[name] = (holder, now + ttl_ms / 1000)
            return True
        return False

    async def release_lease(self, name: str, holder: str) -> None:
        if self._leases.get(name, ("", 0.0))[0] == holder:
            del self._leases[name]


class MemoryPairing(Pairing):
    def __init__(self) -> None:
        self._pools: dict[str, dict[str, dict[str, Any]]] = {}  # game -> player -> entry
        self._waiting_in: dict[str, str] = {}  # player -> the game of their pool

    async def join_pool(self, game: str, entry: dict[str, Any]) -> str | None:
        waiting_in = self._waiting_in.get(entry["player"])
        if waiting_in is not None:
            return waiting_in
        self._pools.setdefault(game, {})[entry["player"]] = dict(entry)
        self._waiting_in[entry["player"]] = game
        return None

    async def leave_pool(self, player: str) -> str | None:
        game = self._waiting_in.pop(player, None)
        if game is not None:
            self._pools[game].pop(player, None)
        return game

    async def pool(self, game: str) -> list[dict[str, Any]]:
        return [dict(entry) for entry in self._pools.get(game, {}).values()]

    async def take_pair(self, game: str, first: str, second: str) -> bool:
        pool = self._pools.get(game, {})
        if first not in pool or second not in pool or first == second:
            return False
        for player in (first, second):
            del pool[player], self._waiting_in[player]
        return True


class MemoryLimits(Limits):
    def __init__(self) -> None:
        self._attempts: dict[str, tuple[int, int]] = {}  # scope -> (window, count)
        self._failures: dict[str, tuple[int, float]] = {}  # scope -> (count, until)

    async def count_attempt(self, scope: str, window_s: int) -> int:
        window = int(time.time()) // window_s
        counted, count = self._attempts.get(scope, (window, 0))
        count = count + 1 if counted == window else 1
        self._attempts[scope] = (window, count)
        return count

    async def failures(self, scope: str) -> int:
        count, until = self._failures.get(scope, (0, 0.0))
        return count if until > time.monotonic() else 0

    async def note_failure(self, scope: str, keep_s: int) -> int:
        count = await self.failures(scope) + 1
        self._failures[scope] = (count, time.monotonic() + keep_s)
        return count

    async def clear_failures(self, scope: str) -> None:
        self._failures.pop(scope, None)
