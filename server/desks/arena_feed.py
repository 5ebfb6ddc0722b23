"""Arena standings pushed, not polled (docs/arenas.md, "Standings pushed"): each node
keeps, for every arena one of its players entered or watches, the arena's log as far as
it has read it, and every ``FEED_EVERY_S`` reads what was appended since (one read of the
log's tail); when there is anything, the standings are recomputed and each watcher here
is told its page (``arena_standings``: the top lines and their own). The log is the one
source: every node reads the same, so standings are the same everywhere."""

from __future__ import annotations

from typing import Any

from protocol.arena import Entry, Standing, standings
from protocol.player_events import ArenaStandingsChanged
from protocol.race import Now
from server.handover.effects import Effects, Push
from server.store import Store

FEED_EVERY_S = 0.5  # how often each node reads the tails of the arenas watched here
TOP = 10  # lines of the top every watcher is told


class ArenaFeed:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.watchers: dict[str, set[str]] = {}  # arena -> players here told its standings
        self.logs: dict[str, list[Entry]] = {}  # arena -> its log as read so far
        self.names: dict[str, str] = {}  # player -> name shown (accounts' usernames)

    def watch(self, arena: str, player: str) -> None:
        self.watchers.setdefault(arena, set()).add(player)

    def unwatch(self, arena: str, player: str) -> None:
        watching = self.watchers.get(arena)
        if watching is not None:
            watching.discard(player)
            if not watching:
                del self.watchers[arena]
                self.logs.pop(arena, None)

    async def names_of(self, players: list[str]) -> dict[str, str]:
        """The names shown for ``players`` (their usernames), read once each."""
        for player in players:
            if player not in self.names:
                self.names[player] = await self.store.accounts.account_of(player) or player
        return {player: self.names[player] for player in players}

    async def tick(self, moment: Now) -> Effects:
        """Read each watched arena's new entries; tell its watchers here when it changed,
        and for the last time (``final``) once it has ended."""
        effects: Effects = []
        for arena in sorted(self.watchers):
            record = await self.store.arenas.arena(arena)
            if record is None:
                continue
            known = self.logs.setdefault(arena, [])
            new = await self.store.arenas.log(arena, len(known))
            final = record.status == "ended"
            if not new and not final:
                continue
            known += new
            effects += await self._told(arena, known, final)
            if final:
                self.watchers.pop(arena, None)
                self.logs.pop(arena, None)
        return effects

    async def _told(self, arena: str, log: list[Entry], final: bool) -> Effects:
        table = standings(log)
        names = await self.names_of([standing.player for standing in table])
        lines = {standing.player: line(standing, names[standing.player]) for standing in table}
        top = [lines[s.player] for s in table[:TOP]]
        return [
            Push(
                player,
                ArenaStandingsChanged(arena, len(log), final, len(table), top, lines.get(player)),
            )
            for player in sorted(self.watchers.get(arena, ()))
        ]


def line(standing: Standing, name: str) -> dict[str, Any]:
    """One line of the standings as players are told it."""
    return {
        "rank": standing.rank,
        "player": standing.player,
        "name": name,
        "points": standing.points,
        "heats": standing.heats,
        "wins": standing.wins,
        "streak": standing.streak,
        "on_streak": standing.on_streak,
        "risk_wins": standing.risk_wins,
    }
