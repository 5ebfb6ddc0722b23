"""An arena's scoring, pure: the points of one heat, and the standings of a whole arena as
a function of its log of heat results, so any node (and, later, ``solrace verify arena``)
can recompute them. docs/arenas.md, "Scoring", is the rule in sentences; in short:

- a heat is 2 to 4 racers on one deal, placed as ``protocol/ranking.py`` orders their runs
  (finishers first, by time; a racer who did not finish places after every finisher);
- a finisher scores one point for finishing and one for each racer placed behind them
  (``place_points``); a racer who did not finish scores 0; a heat nobody finished scores 0
  for everyone and leaves every streak as it was;
- after ``STREAK_FROM`` wins in a row a player is on a streak: each heat's place points are
  multiplied by ``STREAK_FACTOR`` until a heat they do not win, or they withdraw;
- a racer in risk mode (no undo, chosen before the first move) earns ``RISK_BONUS`` more,
  and only for a win; the engine refuses undo in that mode, so a heat whose risk racer
  undid anything is malformed and refused here;
- a held heat (fair play) counts nothing until a ``Cleared`` entry, and then counts where
  the clearing stands in the log; a ``Removed`` player leaves the standings and, in every
  heat of theirs, counts as not having finished, so whoever placed behind them moves up;
- standings: points, then performance (opponents beaten over opponents met, exactly), then
  wins, then player id: a total, deterministic order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from fractions import Fraction
from typing import Any, Final

from protocol.errors import SolraceError
from protocol.ranking import Run, ranked

MIN_HEAT: Final = 2
MAX_HEAT: Final = 4
STREAK_FROM: Final = 2  # wins in a row before the streak bonus applies
STREAK_FACTOR: Final = 2  # place points are multiplied by this on a streak
RISK_BONUS: Final = 2  # added to a win in risk mode, never multiplied


class ArenaLogError(SolraceError):
    """A heat or an arena log that cannot have been played: refused, never scored."""

    code = "bad_arena_log"


def place_points(size: int, place: int, finished: bool) -> int:
    """A racer's points for ``place`` (1 is first) in a heat of ``size`` racers, before any
    streak or risk bonus: 1 for finishing plus 1 per racer placed behind; 0 unfinished."""
    if not MIN_HEAT <= size <= MAX_HEAT or not 1 <= place <= size:
        raise ArenaLogError(f"no place {place} in a heat of {size}")
    return size - place + 1 if finished else 0


def max_heat_points(size: int) -> int:
    """The most a heat of ``size`` racers can pay in all: everyone finishes, everyone is on
    a streak, and the winner raced in risk mode."""
    return STREAK_FACTOR * size * (size + 1) // 2 + RISK_BONUS


@dataclass(frozen=True, slots=True)
class Racer:
    """One racer's result in one heat, as the heat's signed log gives it."""

    player: str
    place: int  # 1 is first; every finisher places before every racer who did not finish
    finished: bool
    time_ms: int  # the run's time (``Run.time_ms``)
    actions: int
    risk: bool = False  # risk mode (no undo), chosen before the first move
    undos: int = 0  # undo actions in the log; 0 in risk mode (the engine refuses them)


@dataclass(frozen=True, slots=True)
class HeatResult:
    """A heat's result: its racers (any order), and whether fair play holds it."""

    heat: str  # the arena heat id
    racers: tuple[Racer, ...]
    held: bool = False

    def __post_init__(self) -> None:
        racers = self.racers
        if not MIN_HEAT <= len(racers) <= MAX_HEAT:
            raise ArenaLogError(f"heat {self.heat}: {len(racers)} racers, not 2 to 4")
        if len({racer.player for racer in racers}) != len(racers):
            raise ArenaLogError(f"heat {self.heat}: a player races twice")
        if sorted(racer.place for racer in racers) != list(range(1, len(racers) + 1)):
            raise ArenaLogError(f"heat {self.heat}: places are not 1 to {len(racers)}")
        finishers = sum(1 for racer in racers if racer.finished)
        if any(racer.finished != (racer.place <= finishers) for racer in racers):
            raise ArenaLogError(f"heat {self.heat}: a non-finisher placed before a finisher")
        for racer in racers:
            if racer.time_ms < 0 or racer.actions < 0 or racer.undos < 0:
                raise ArenaLogError(f"heat {self.heat}: {racer.player}: negative counts")
            if racer.risk and racer.undos:
                raise ArenaLogError(f"heat {self.heat}: {racer.player} undid in risk mode")

    def by_place(self) -> list[Racer]:
        return sorted(self.racers, key=lambda racer: racer.place)

    def winner(self) -> str | None:
        """Who placed first, if they finished; None when nobody finished."""
        first = self.by_place()[0]
        return first.player if first.finished else None

    def without(self, removed: frozenset[str]) -> HeatResult:
        """The heat with every ``removed`` player counted as not having finished: placed
        after everyone else (among themselves, in their old order), the rest moving up."""
        if not removed & {racer.player for racer in self.racers}:
            return self
        kept = [racer for racer in self.by_place() if racer.player not in removed]
        gone = [replace(r, finished=False) for r in self.by_place() if r.player in removed]
        racers = tuple(replace(racer, place=i) for i, racer in enumerate(kept + gone, 1))
        return replace(self, racers=racers)


@dataclass(frozen=True, slots=True)
class Cleared:
    """A moderator cleared a held heat: it counts from here in the log."""

    heat: str


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """A player paused or withdrew from the arena: their streak ends here."""

    player: str


@dataclass(frozen=True, slots=True)
class Removed:
    """Fair play removed a player from the arena: off the standings, in every heat of theirs
    (before and after this entry) counted as not having finished."""

    player: str


Entry = HeatResult | Cleared | Withdrawn | Removed


def entry_as_dict(entry: Entry) -> dict[str, Any]:
    """An entry as a JSON object: how the stores keep it and ``arena_result`` signs it."""
    if isinstance(entry, HeatResult):
        racers = [asdict(racer) for racer in entry.racers]
        return {"kind": "heat", "heat": entry.heat, "held": entry.held, "racers": racers}
    if isinstance(entry, Cleared):
        return {"kind": "cleared", "heat": entry.heat}
    kind = "removed" if isinstance(entry, Removed) else "withdrawn"
    return {"kind": kind, "player": entry.player}


def entry_from_dict(fields: dict[str, Any]) -> Entry:
    """The entry ``entry_as_dict`` wrote; ArenaLogError when ``fields`` is not one."""
    try:
        kind = fields["kind"]
        if kind == "heat":
            racers = tuple(Racer(**racer) for racer in fields["racers"])
            return HeatResult(str(fields["heat"]), racers, bool(fields["held"]))
        if kind == "cleared":
            return Cleared(str(fields["heat"]))
        if kind in ("removed", "withdrawn"):
            made = Removed if kind == "removed" else Withdrawn
            return made(str(fields["player"]))
    except (KeyError, TypeError) as error:
        raise ArenaLogError(f"an entry of the log is not one ({error})") from None
    raise ArenaLogError(f"{str(kind)[:20]!r} is not a kind of log entry")


def heat_from_runs(
    heat: str,
    runs: Sequence[Run],
    risk: frozenset[str] = frozenset(),
    undos: Mapping[str, int] | None = None,
    held: bool = False,
) -> HeatResult:
    """A heat's result from its racers' runs, placed by the one ranking rule of races
    (``protocol.ranking.ranked``); ``risk`` names the racers in risk mode."""
    racers = tuple(
        Racer(
            player=run.player,
            place=place,
            finished=run.finished,
            time_ms=run.time_ms,
            actions=run.actions,
            risk=run.player in risk,
            undos=(undos or {}).get(run.player, 0),
        )
        for place, run in enumerate(ranked(list(runs)), 1)
    )
    return HeatResult(heat, racers, held)


def heat_points(heat: HeatResult, streaks: Mapping[str, int]) -> dict[str, int]:
    """Each racer's points for ``heat``, given each player's wins in a row before it
    (``streaks``; a player missing has none). A held heat pays nothing."""
    if heat.held:
        return {racer.player: 0 for racer in heat.racers}
    winner = heat.winner()
    points = {}
    for racer in heat.racers:
        earned = place_points(len(heat.racers), racer.place, racer.finished)
        if streaks.get(racer.player, 0) >= STREAK_FROM:
            earned *= STREAK_FACTOR
        if racer.risk and racer.player == winner:
            earned += RISK_BONUS
        points[racer.player] = earned
    return points


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in an arena's standings."""

    rank: int  # 1 is first; no two players share a rank
    player: str
    points: int
    heats: int  # heats counted (a held heat counts once cleared)
    wins: int
    streak: int  # wins in a row now; on a streak from ``STREAK_FROM``
    risk_heats: int  # counted heats raced in risk mode
    risk_wins: int
    beaten: int  # opponents placed behind, in counted heats someone finished, as a finisher
    met: int  # opponents raced, in counted heats someone finished

    @property
    def performance(self) -> Fraction:
        """The tie-break: opponents beaten over opponents met (0 before any is met)."""
        return Fraction(self.beaten, self.met) if self.met else Fraction(0)

    @property
    def on_streak(self) -> bool:
        return self.streak >= STREAK_FROM

    def as_dict(self) -> dict[str, Any]:
        """Every field, as ``arena_result`` signs it."""
        return asdict(self)


@dataclass
class _Tally:
    points: int = 0
    heats: int = 0
    wins: int = 0
    streak: int = 0
    risk_heats: int = 0
    risk_wins: int = 0
    beaten: int = 0
    met: int = 0


def standings(entries: Iterable[Entry]) -> list[Standing]:
    """The ordered standings of an arena from its log, in order: heat results (held or
    not), clearings, withdrawals and removals. Pure: the same log gives the same list."""
    return Scorer(entries).table()


class Scorer:
    """An arena's standings kept as its log grows: ``add`` the entries appended since,
    ``table()`` the standings of the whole log added so far, always equal to
    ``standings`` of it (which is a scorer given the log at once). A heat added counts
    only for its racers (their lines are ordered again; the rest keep their order key). A
    new removal changes every heat of the removed player's, before it too, so it counts
    the log again from its start (removals are rare). ArenaLogError for a log that is not
    one; the scorer is then left part way and is not to be used again."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.log: list[Entry] = []  # every entry added, in order
        self.removed: frozenset[str] = frozenset()
        self._restart()
        self.add(entries)

    def _restart(self) -> None:
        self._tallies: dict[str, _Tally] = {}
        self._seen: set[str] = set()  # heats in the log
        self._held: dict[str, HeatResult] = {}  # held, not cleared
        self._keys: dict[str, tuple[int, Fraction, int, str]] = {}  # order of the lines
        self._moved: set[str] = set()  # players whose order key is out of date
        self._table: list[Standing] | None = None

    def add(self, entries: Iterable[Entry]) -> bool:
        """Count ``entries``, the log's next ones; whether there were any."""
        new = list(entries)
        if not new:
            return False
        removals = {entry.player for entry in new if isinstance(entry, Removed)}
        if not removals <= self.removed:
            new, self.log = [*self.log, *new], []
            self.removed |= removals
            self._restart()
        for entry in new:
            self._one(entry)
            self.log.append(entry)
        self._table = None
        return True

    def _one(self, entry: Entry) -> None:
        """Count one entry (its players' order keys out of date)."""
        tallies = self._tallies
        if isinstance(entry, HeatResult):
            if entry.heat in self._seen:
                raise ArenaLogError(f"heat {entry.heat} is in the log twice")
            self._seen.add(entry.heat)
            for racer in entry.racers:
                tallies.setdefault(racer.player, _Tally())
                self._moved.add(racer.player)
            if entry.held:
                self._held[entry.heat] = entry
            else:
                _count(entry.without(self.removed), tallies)
        elif isinstance(entry, Cleared):
            if entry.heat not in self._held:
                raise ArenaLogError(f"heat {entry.heat} is cleared but not held")
            cleared = replace(self._held.pop(entry.heat), held=False)
            _count(cleared.without(self.removed), tallies)
            self._moved.update(racer.player for racer in cleared.racers)
        elif isinstance(entry, Withdrawn):
            tallies.setdefault(entry.player, _Tally()).streak = 0
            self._moved.add(entry.player)

    def table(self) -> list[Standing]:
        """The standings of every entry added (a new list each time it changed; the
        same list, not to be changed, while nothing was added)."""
        if self._table is None:
            keys, tallies = self._keys, self._tallies
            for player in self._moved - self.removed:
                keys[player] = _order(player, tallies[player])
            self._moved.clear()
            players = sorted(keys, key=keys.__getitem__)
            self._table = [
                Standing(rank, player, **vars(tallies[player]))
                for rank, player in enumerate(players, 1)
            ]
        return self._table


def _count(heat: HeatResult, tallies: dict[str, _Tally]) -> None:
    """Adds a counted heat to every racer's tally and moves their streaks."""
    # only the heat's racers' streaks: every player's, each heat, made standings quadratic
    points = heat_points(heat, {r.player: tallies[r.player].streak for r in heat.racers})
    winner = heat.winner()
    size = len(heat.racers)
    for racer in heat.racers:
        tally = tallies[racer.player]
        tally.points += points[racer.player]
        tally.heats += 1
        tally.risk_heats += racer.risk
        if winner is None:
            continue  # nobody finished: no result to measure, streaks as they were
        tally.met += size - 1
        tally.beaten += size - racer.place if racer.finished else 0
        if racer.player == winner:
            tally.wins += 1
            tally.risk_wins += racer.risk
            tally.streak += 1
        else:
            tally.streak = 0


def _order(player: str, tally: _Tally) -> tuple[int, Fraction, int, str]:
    performance = Fraction(tally.beaten, tally.met) if tally.met else Fraction(0)
    return (-tally.points, -performance, -tally.wins, player)
