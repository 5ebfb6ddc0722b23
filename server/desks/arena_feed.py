"""Arena standings pushed, not polled (docs/arenas.md, "Playing an arena"): each node
keeps, for every arena that runs (or ended within ``FINISHING_MS``) and every arena one of
its players watches, the arena's log as far as it has read it, and every ``FEED_EVERY_S``
reads what was appended since (one read of the log's tail); when there is anything, the
standings are brought up to date (a ``Scorer`` kept per arena counts only the new entries;
the heats recorded since are read too, to know who races which heat: ``Fed``)
and each entrant whose session is here, and each watcher here, is
told its page (``arena_standings``: the top lines and their own); once more, ``final``,
when the arena has ended. The log is the one source: every node reads the same, so
standings are the same everywhere, and an entrant who comes back on any node is told."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from protocol.arena import Entry, HeatResult, Scorer, Standing
from protocol.arena_calendar import Arena, Schedule, upcoming
from protocol.player_events import ArenaStandingsChanged
from protocol.race import Now
from server.handover.effects import Effects, Push
from server.store import Store
from server.store.arena_records import HeatStart

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


class Fed:
    """What a node's feed has read of one arena: its log, counted (``scorer``), and the
    heats recorded as far as read, each racer's latest not scored yet (``racing``)."""

    def __init__(self) -> None:
        self.scorer = Scorer()
        self.heats_read = 0  # heats recorded read so far (``store.arenas.heats_from``)
        self.scored: set[str] = set()  # heats with a result in the log
        self.racing: dict[str, str] = {}  # player -> the heat they race now

    async def read(self, store: Store, arena: str) -> bool:
        """The log's new entries and the heats recorded since; whether the log grew."""
        new = await store.arenas.log(arena, len(self.scorer.log))
        if not new:
            return False
        started = await store.arenas.heats_from(arena, self.heats_read)
        self.scorer.add(new)
        self.heats_read += len(started)
        self.started([heat for heat in started if heat is not None])
        self.ended(new)
        return True

    def started(self, heats: Sequence[HeatStart]) -> None:
        for heat in heats:
            if heat.heat not in self.scored:
                self.racing.update((player, heat.heat) for player in heat.racers)

    def ended(self, entries: Sequence[Entry]) -> None:
        for entry in entries:
            if isinstance(entry, HeatResult):
                self.scored.add(entry.heat)
                for racer in entry.racers:
                    if self.racing.get(racer.player) == entry.heat:
                        del self.racing[racer.player]


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
        self.fed: dict[str, Fed] = {}  # arena -> what was read of it so far
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
                self.fed.pop(arena, None)

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
            fed = self.fed.get(arena)
            if fed is None:
                fed = self.fed[arena] = Fed()
            try:
                grew = await fed.read(self.store, arena)
            except BaseException:  # it may be part way: read from the start next time
                self.fed.pop(arena, None)
                raise
            final = record.status == "ended"
            if not grew and not final:
                continue
            effects += await self._told(arena, fed, final)
            if final:
                self.final.add(arena)
                self.watchers.pop(arena, None)
                self.fed.pop(arena, None)
        return effects

    async def _told(self, arena: str, fed: Fed, final: bool) -> Effects:
        lines = await self.lines_of(fed.scorer.table(), fed.racing)
        mine = {line["player"]: line for line in lines}
        top, players, version = lines[:TOP], len(lines), len(fed.scorer.log)
        told = await self._told_here(arena)
        # one event for everyone not in the standings (the watchers), pushed one after
        # another: encoded once for them all (``server/edge/lines.py``), not once each
        theirs = ArenaStandingsChanged(arena, version, final, players, top, None)
        return [
            *(
                Push(p, ArenaStandingsChanged(arena, version, final, players, top, mine[p]))
                for p in told
                if p in mine
            ),
            *(Push(player, theirs) for player in told if player not in mine),
        ]

    async def lines_of(
        self, table: list[Standing], racing: Mapping[str, str]
    ) -> list[dict[str, Any]]:
        """The standings ``table`` as lines, in order, each with its player's name and the
        heat they race now (``racing``: its race, to spectate; None between heats)."""
        names = await self.names_of([standing.player for standing in table])
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
