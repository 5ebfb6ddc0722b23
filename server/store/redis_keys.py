"""The names of the Redis store's keys, in one place: what the store reads
(``server/store/redis_store.py``, ``redis_logs``) and what its batches write
(``redis_batch``) are named here alike. ``docs/storage.md`` lists every key.

Every key begins with the store's prefix; a day's, game's, race's, player's or the pool's
keys carry a hash tag (``{...}``), so the keys one script touches share one cluster slot
(a game's days and its all-time board share one, so a daily run is recorded on both in one
script).

On a Redis Cluster (``sharded``) the nodes' channels carry a hash tag too (``channel``):
``race:{RACE}`` is in its race's slot, so the scripts that write a race publish its news
there (``SPUBLISH``), and ``node:{NODE}`` in a slot of its own.
"""

from __future__ import annotations

HISTORY_PARTS = ("raced", "history", "stats", "days")  # a player's profile, in this order
BOARD_PARTS = ("board", "members", "runs")  # a leaderboard: sorted set, members, records


class RedisKeys:
    """The keys under ``prefix`` (which must not hold braces: they mark hash tags); channels
    with a hash tag when ``sharded`` (a Redis Cluster's SPUBLISH and SSUBSCRIBE)."""

    def __init__(self, prefix: str, sharded: bool = False) -> None:
        if "{" in prefix or "}" in prefix:
            raise ValueError("the key prefix must not contain braces (they mark hash tags)")
        self.prefix = prefix
        self.sharded = sharded

    def channel(self, name: str) -> str:
        """The Redis channel of the nodes' channel ``name`` (``race:RACE``, ``node:NODE``):
        under the prefix, and when ``sharded`` with what follows the first colon as its hash
        tag (``race:{RACE}``: the race's keys' slot)."""
        if not self.sharded:
            return self.prefix + name
        kind, colon, rest = name.partition(":")
        return f"{self.prefix}{kind}{colon}{{{rest}}}" if colon else self.prefix + name

    def channel_name(self, channel: str) -> str:
        """The nodes' name of the Redis channel ``channel`` (``channel``'s inverse)."""
        name = channel.removeprefix(self.prefix)
        if not self.sharded:
            return name
        kind, colon, rest = name.partition(":{")
        return f"{kind}:{rest[:-1]}" if colon and rest.endswith("}") else name

    def key(self, *parts: str) -> str:
        """A key without a hash tag of its own: ``prefix`` and ``parts`` joined by colons."""
        return self.prefix + ":".join(parts)

    def player(self, player: str, part: str) -> str:
        """One of ``player``'s keys (their races, tokens, node, account, history, ...)."""
        return f"{self.prefix}player:{{{player}}}:{part}"

    def history(self, player: str) -> list[str]:
        """``player``'s profile: ``HISTORY_PARTS``, in order (``RECORD_HISTORY``'s keys)."""
        return [self.player(player, part) for part in HISTORY_PARTS]

    def daily(self, game: str, day: str, part: str) -> str:
        """One of a day's keys (its deal, nonce, claims, board)."""
        return f"{self.prefix}daily:{{{game}}}:{day}:{part}"

    def daily_board(self, game: str, day: str) -> list[str]:
        return [self.daily(game, day, part) for part in BOARD_PARTS]

    def best(self, game: str) -> list[str]:
        """The all-time board of ``game`` (the same hash tag as its days)."""
        return [f"{self.prefix}best:{{{game}}}:{part}" for part in BOARD_PARTS]

    def race(self, race: str, part: str) -> str:
        """One of a race's keys (its record, result, racers)."""
        return f"{self.prefix}race:{{{race}}}:{part}"

    def arena(self, arena: str, part: str) -> str:
        """One of an arena's keys (its record, players, heats, log, lease), one slot."""
        return f"{self.prefix}arena:{{{arena}}}:{part}"

    def made_arenas(self) -> str:
        """The arenas operators made, each scored by when its keys expire (a sorted set)."""
        return f"{self.prefix}arenas:made"

    def log(self, race: str, player: str) -> str:
        """A racer's action log in a race (a stream)."""
        return f"{self.prefix}race:{{{race}}}:log:{player}"

    def flagged(self) -> str:
        """The races whose fair-play review waits for a moderator (a sorted set by time)."""
        return f"{self.prefix}reviews:flagged"

    def audit(self) -> str:
        """The moderators' audit log (a list, newest first)."""
        return f"{self.prefix}audit"

    def rating(self, game: str, player: str, *part: str) -> str:
        """A player's rating in ``game`` (and with ``part`` "history", their latest ones)."""
        return ":".join([f"{self.prefix}rating:{{{game}}}:{player}", *part])

    def rated(self, game: str, race: str) -> str:
        """The mark that a race's ratings were updated (once)."""
        return f"{self.prefix}rated:{{{game}}}:{race}"

    def pool(self, game: str, player: str) -> list[str]:
        """The pool of ``game`` and where ``player`` waits: one hash tag for every pool
        key, so joining, leaving and pairing are each one script."""
        return [f"{self.prefix}pool:{{quick}}:{game}", f"{self.prefix}pool:{{quick}}:of:{player}"]
