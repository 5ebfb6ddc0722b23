"""Arena standings pushed, not polled (docs/arenas.md, "Playing an arena"): each node
keeps, for every arena that runs (or ended within ``FINISHING_MS``) and every arena one of
its players watches, the arena's log as far as it has read it, and every ``FEED_EVERY_S``
reads what was appended since (one read of the log's tail); when there is anything, the
standings are brought up to date (a ``Scorer`` kept per arena counts only the new entries)
and each entrant whose session is here, and each watcher here, is
told its page (``arena_standings``: the top lines and their own); once more, ``final``,
when the arena has ended. The log is the one source: every node reads the same, so
standings are the same everywhere, and an entrant who comes back on any node is told."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from protocol.arena import HeatResult, Scorer, Standing
from protocol.arena_calendar import Arena, Schedule, upcoming
from protocol.player_events import ArenaStandingsChanged
from protocol.race import Now
from server.handover.effects import Effects, Push
from server.store import Store

FEED_EVERY_S = 0.5  # how often each node reads the tails of the arenas' logs
FINISHING_MS = 60 * 60_000  # an arena over this long is read and run no more (heats or not)
TOP = 10  # lines of the top every watcher is told


def not_long_over(
    calendar: Mapping[str, tuple[Schedule, ...]], now_ms: int, made: Iterable[Arena] = ()
) -> list[Arena]:
    """The arenas (the calendar's, and the operators' ``made``) started by ``now_ms`` and
    not over ``FINISHING_MS`` before it: those a node reads (and the pairer runs: heats
    still running at the end finish)."""
    since = now_ms - FINISHING_MS
    started = upcoming(since, now_ms - since + 1, calendar, made)
    return [arena for arena in started if arena.start_ms <= now_ms]


class ArenaFeed:
    def __init__(
        self,
        store: Store,
        calendar: Mapping[str, tuple[Schedule, ...]],
        here: Callable[[str], bool],
    ) -> None:
        """``here``: whether a player's session is on this node."""
        self.store = store
        self.calendar = calendar
        self.here = here
        self.watchers: dict[str, set[str]] = {}  # arena -> players here who asked to watch
        self.scorers: dict[str, Scorer] = {}  # arena -> its log read so far, scored
        self.final: set[str] = set()  # arenas whose final standings were told
        self.names: dict[str, str] = {}  # player -> name shown (accounts' usernames)

    def watch(self, arena: str, player: str) -> None:
        self.watchers.setdefault(arena, set()).add(player)

    def unwatch(self, arena: str, player: str) -> None:
        watching = self.watchers.get(arena)
        if watching is not None:
            watching.discard(player)
            if not watching:
                del self.watchers[arena]
                self.scorers.pop(arena, None)

    async def names_of(self, players: list[str]) -> dict[str, str]:
        """The names shown for ``players`` (their usernames), read once each."""
        for player in players:
            if player not in self.names:
                self.names[player] = await self.store.accounts.account_of(player) or player
        return {player: self.names[player] for player in players}

    async def tick(self, moment: Now) -> Effects:
        """Read each arena's new entries; tell its entrants and watchers here when it
        changed, and for the last time (``final``) once it has ended."""
        effects: Effects = []
        now_ms = moment.wall_ms
        arenas = {arena.id for arena in not_long_over(self.calendar, now_ms)}
        made = await self.store.arenas.made_arenas(now_ms - FINISHING_MS)
        arenas |= {record.arena for record in made if record.starts_at_ms <= now_ms}
        self.final &= arenas  # an arena long over is nobody's news any more
        for arena in sorted((arenas | set(self.watchers)) - self.final):
            record = await self.store.arenas.arena(arena)
            if record is None:
                continue
            scorer = self.scorers.get(arena)
            if scorer is None:
                scorer = self.scorers[arena] = Scorer()
            new = await self.store.arenas.log(arena, len(scorer.log))
            final = record.status == "ended"
            if not new and not final:
                continue
            try:
                scorer.add(new)
            except BaseException:  # left part way: read from the start next time
                self.scorers.pop(arena, None)
                raise
            effects += await self._told(arena, scorer, final)
            if final:
                self.final.add(arena)
                self.watchers.pop(arena, None)
                self.scorers.pop(arena, None)
        return effects

    async def _told(self, arena: str, scorer: Scorer, final: bool) -> Effects:
        lines = await self.lines_of(arena, scorer)
        mine = {line["player"]: line for line in lines}
        top, players, version = lines[:TOP], len(lines), len(scorer.log)
        return [
            Push(
                player, ArenaStandingsChanged(arena, version, final, players, top, mine.get(player))
            )
            for player in await self._told_here(arena)
        ]

    async def lines_of(self, arena: str, scorer: Scorer) -> list[dict[str, Any]]:
        """The standings of the log ``scorer`` counted as lines, in order, each with its
        player's name and the heat they race now (its race, to spectate; None between
        heats)."""
        table = scorer.table()
        names = await self.names_of([standing.player for standing in table])
        scored = {entry.heat for entry in scorer.log if isinstance(entry, HeatResult)}
        racing = {
            player: heat.heat
            for heat in await self.store.arenas.heats(arena)
            if heat.heat not in scored
            for player in heat.racers
        }
        return [line(s, names[s.player], racing.get(s.player)) for s in table]

    async def _told_here(self, arena: str) -> list[str]:
        """Who is told ``arena``'s standings by this node: its entrants whose session is
        here (withdrawn ones too: their points stay), and its watchers here."""
        entrants = {p.player for p in await self.store.arenas.participants(arena)}
        return sorted({p for p in entrants if self.here(p)} | self.watchers.get(arena, set()))


def line(standing: Standing, name: str, heat: str | None) -> dict[str, Any]:
    """One line of the standings as players are told it."""
    return {
        "heat": heat,
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
