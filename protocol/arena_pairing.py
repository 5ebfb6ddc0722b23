"""An arena's pairing waves, pure: which idle players race each other now, in heats of the
arena's size, and the one deal every heat of the wave plays. docs/arenas.md, "Pairing", is
the rule in sentences; in short:

- paused players are never paired; a player back from a heat less than ``breather_ms`` ago
  (not one who joined or resumed since) sits the wave out, unless the fewest such players
  (longest idle first) complete a heat that rested players would otherwise leave short;
- when the pool is not a whole number of heats, the players idle the shortest time wait;
- the rest are put in standing order (rank, then rating, then player id) and cut into heats
  of neighbours (leaders meet leaders); two players who met in either one's last heat are
  never put together, unless both have waited ``repeat_after_ms`` and nobody else can be
  found for them (heats of 2: the matching counts such a repeat as a heat, weighed below
  every heat without one, and so does the search; the cut makes a second pass over whoever
  is left);
- heats of 2: networkx's ``max_weight_matching`` (most heats, then fewest repeats, then
  nearest in standing), over edges between players at most ``window`` places apart, within
  bands of ``band`` players (a whole field of 1,000 in one graph takes seconds); heats of
  3 or 4 among at most ``EXACT`` players: exhaustive search, as good as the matching; among
  more: cut in standing order, a player who met someone already in the heat is skipped to
  the next one (so they stay near their standing);
- every heat of a wave plays one deal (``wave_deal``), from the deployment's secret, the
  arena and the wave's number: the same on every node, unknown to anyone without the secret.

Same idle players (in any order) and same time: same heats.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from protocol.arena import MAX_HEAT, MIN_HEAT
from protocol.deals import FIRST_MT_DEAL, MAX_DEAL, check_deal_number
from protocol.errors import SolraceError

BREATHER_MS: Final = 3_000  # a player back from a heat this recently sits the wave out
REPEAT_AFTER_MS: Final = 20_000  # waited this long, two last opponents may meet again
WINDOW: Final = 12  # two players further apart in standing order are not paired together
BAND: Final = 50  # heats of 2 are matched within bands of this many players
EXACT: Final = 12  # heats of 3 or 4 among so few players are found by exhaustive search


class ArenaPairingError(SolraceError):
    """A wave asked of impossible input (the server's bug, never a player's)."""

    code = "bad_arena_pairing"


@dataclass(frozen=True, slots=True)
class Idle:
    """A participant not in a heat: their place in the standings (1 first; players not in
    the standings yet share the rank after the last), rating in the arena's game, when they
    became idle (joined, came back from a heat, or resumed), the players of their last heat,
    and whether they became idle by coming back from a heat (only then a breather)."""

    player: str
    rank: int
    rating: float
    idle_since_ms: int
    last_opponents: frozenset[str] = frozenset()
    paused: bool = False  # paused or withdrawn: never paired
    from_heat: bool = True  # idle since a heat's end (False: since joining or resuming)

    def breathing(self, rule: PairingRule, now_ms: int) -> bool:
        """Back from a heat less than the rule's breather ago."""
        return self.from_heat and now_ms - self.idle_since_ms < rule.breather_ms


@dataclass(frozen=True, slots=True)
class PairingRule:
    """How one arena pairs: its heat size and the figures of the rule."""

    heat_size: int
    breather_ms: int = BREATHER_MS
    repeat_after_ms: int = REPEAT_AFTER_MS
    window: int = WINDOW
    band: int = BAND

    def __post_init__(self) -> None:
        if not MIN_HEAT <= self.heat_size <= MAX_HEAT:
            raise ArenaPairingError(f"a heat has {MIN_HEAT} to {MAX_HEAT} racers")
        if self.breather_ms < 0 or self.repeat_after_ms < 0:
            raise ArenaPairingError("the breather and the repeat wait are not negative")
        if self.window < self.heat_size or self.band < 2 * self.window:
            raise ArenaPairingError("the window holds a heat, a band two windows")


@dataclass(frozen=True, slots=True)
class Wave:
    """A wave's heats (each in standing order, the heats in standing order of their first
    player) and the idle players left waiting for the next wave (in standing order)."""

    heats: tuple[tuple[str, ...], ...]
    waiting: tuple[str, ...]
    repeats: int = 0  # heats in which two last opponents meet again


def pair_wave(idle: Iterable[Idle], rule: PairingRule, now_ms: int) -> Wave:
    """The heats of one pairing wave at ``now_ms`` among the ``idle`` participants."""
    entries = _checked(idle)
    standing = {entry.player: position for position, entry in enumerate(_by_standing(entries))}
    pool, breathing = _rested_pool(entries, rule, now_ms)
    priority = sorted(pool, key=lambda entry: (entry.idle_since_ms, standing[entry.player]))
    short = len(pool) % rule.heat_size
    main = priority[: len(priority) - short]
    weighed = rule.heat_size == 2 or len(main) <= EXACT  # repeats weighed in one pass
    heats, left = _cut(_by_standing(main), standing, rule, now_ms, weighed)
    rest = _by_standing(left + priority[len(priority) - short :])
    more, left = _cut(rest, standing, rule, now_ms, repeats=True)
    heats += more
    heats.sort(key=lambda heat: standing[heat[0].player])
    waiting = sorted(left + breathing, key=lambda entry: standing[entry.player])
    return Wave(
        heats=tuple(tuple(entry.player for entry in heat) for heat in heats),
        waiting=tuple(entry.player for entry in waiting),
        repeats=sum(1 for heat in heats if _has_repeat(heat)),
    )


def wave_deal(secret: str, arena: str, wave: int) -> int:
    """The deal number every heat of wave ``wave`` (1 first) of ``arena`` plays: the first
    9 bytes of BLAKE2b("solrace-arena-wave:{secret}:{arena}:{wave}"), big-endian, reduced
    into the Mersenne Twister deals (``FIRST_MT_DEAL`` .. ``MAX_DEAL``)."""
    if not secret:
        raise ArenaPairingError("a wave's deal needs the deployment's secret")
    if wave < 1:
        raise ArenaPairingError("waves are numbered from 1")
    seed = f"solrace-arena-wave:{secret}:{arena}:{wave}".encode()
    span = MAX_DEAL - FIRST_MT_DEAL + 1
    return check_deal_number(
        FIRST_MT_DEAL + int.from_bytes(hashlib.blake2b(seed).digest()[:9], "big") % span
    )


def _checked(idle: Iterable[Idle]) -> list[Idle]:
    entries = list(idle)
    if len({entry.player for entry in entries}) != len(entries):
        raise ArenaPairingError("a player is idle twice in one wave")
    if any(entry.rank < 1 for entry in entries):
        raise ArenaPairingError("ranks start at 1")
    return [entry for entry in entries if not entry.paused]


def _by_standing(entries: Iterable[Idle]) -> list[Idle]:
    """Leaders first: by rank, then the higher rating, then player id."""
    return sorted(entries, key=lambda entry: (entry.rank, -entry.rating, entry.player))


def _rested_pool(
    entries: list[Idle], rule: PairingRule, now_ms: int
) -> tuple[list[Idle], list[Idle]]:
    """The players this wave pairs, and the ones taking their breather: a breathing player
    joins only to complete a heat the rested players leave short (longest idle first)."""
    rested = [entry for entry in entries if not entry.breathing(rule, now_ms)]
    breathing = sorted(
        (entry for entry in entries if entry.breathing(rule, now_ms)),
        key=lambda entry: (entry.idle_since_ms, entry.rank, -entry.rating, entry.player),
    )
    need = -len(rested) % rule.heat_size
    if need and len(breathing) >= need:
        return rested + breathing[:need], breathing[need:]
    return rested, breathing


def _cut(
    ordered: list[Idle], standing: dict[str, int], rule: PairingRule, now_ms: int, repeats: bool
) -> tuple[list[list[Idle]], list[Idle]]:
    """Heats from players in standing order (``standing``: each one's place in the
    wave's), and who is left; ``repeats``: two last opponents who have both waited
    ``repeat_after_ms`` may meet again."""

    def apart(one: Idle, other: Idle) -> int:
        return abs(standing[other.player] - standing[one.player])

    def fits(one: Idle, other: Idle) -> bool:
        if apart(one, other) > rule.window:
            return False
        if not _met(one, other):
            return True
        waited = rule.repeat_after_ms
        return repeats and min(now_ms - one.idle_since_ms, now_ms - other.idle_since_ms) >= waited

    if rule.heat_size == 2:
        return _matched(ordered, rule, fits, apart)
    if len(ordered) <= EXACT:
        return _searched(ordered, rule, fits)
    return _grouped(ordered, rule, fits, apart)


def _met(one: Idle, other: Idle) -> bool:
    return other.player in one.last_opponents or one.player in other.last_opponents


def _has_repeat(heat: Sequence[Idle]) -> bool:
    return any(_met(one, other) for i, one in enumerate(heat) for other in heat[i + 1 :])


def _matched(
    ordered: list[Idle],
    rule: PairingRule,
    fits: Callable[[Idle, Idle], bool],
    apart: Callable[[Idle, Idle], int],
) -> tuple[list[list[Idle]], list[Idle]]:
    """Heats of 2 by maximum weight matching, band by band: the most heats, then the fewest
    repeats, then the nearest in standing order (the sum of squared distances)."""
    # Imported here, not above: networkx takes about a second to import and brings in
    # logging's threads and, through its backends' discovery, the socket module (nothing
    # its matching uses), so importing the protocol stays light and free of them.
    import networkx as nx

    heats: list[list[Idle]] = []
    left: list[Idle] = []
    for start in range(0, len(ordered), rule.band):
        band = ordered[start : start + rule.band]
        nearness = rule.window**2 + 1  # every edge's weight stays positive
        fresh = nearness * len(band)  # a repeat costs more than any nearness in the band
        graph = nx.Graph()
        for i, one in enumerate(band):
            for j in range(i + 1, min(len(band), i + rule.window + 1)):
                if fits(one, band[j]):
                    near = nearness - apart(one, band[j]) ** 2
                    graph.add_edge(i, j, weight=fresh * (not _met(one, band[j])) + near)
        matched: set[int] = set()
        for i, j in sorted(tuple(sorted(pair)) for pair in nx.max_weight_matching(graph, True)):
            heats.append([band[i], band[j]])
            matched |= {i, j}
        left += [entry for i, entry in enumerate(band) if i not in matched]
    return heats, left


def _searched(
    ordered: list[Idle], rule: PairingRule, fits: Callable[[Idle, Idle], bool]
) -> tuple[list[list[Idle]], list[Idle]]:
    """Heats of 3 or 4 among at most ``EXACT`` players, by exhaustive search: the most heats,
    then the fewest repeats, then the least spread in standing order (the first found)."""
    size = rule.heat_size

    @functools.cache
    def best(remaining: int) -> tuple[tuple[int, int, int], tuple[tuple[int, ...], ...]]:
        if remaining.bit_count() < size:
            return (0, 0, 0), ()
        first = (remaining & -remaining).bit_length() - 1
        rest = remaining & ~(1 << first)
        found = best(rest)  # the first player waits
        others = [i for i in range(first + 1, len(ordered)) if rest >> i & 1]
        for partners in itertools.combinations(others, size - 1):
            heat = (first, *partners)
            if not all(fits(ordered[a], ordered[b]) for a, b in itertools.combinations(heat, 2)):
                continue
            (heats, fewer, tighter), more = best(rest & ~sum(1 << i for i in partners))
            repeat = _has_repeat([ordered[i] for i in heat])
            score = (heats + 1, fewer - repeat, tighter - (heat[-1] - first))
            if score > found[0]:
                found = score, (heat, *more)
        return found

    chosen = best((1 << len(ordered)) - 1)[1]
    placed = {i for heat in chosen for i in heat}
    left = [entry for i, entry in enumerate(ordered) if i not in placed]
    return [[ordered[i] for i in heat] for heat in chosen], left


def _grouped(
    ordered: list[Idle],
    rule: PairingRule,
    fits: Callable[[Idle, Idle], bool],
    apart: Callable[[Idle, Idle], int],
) -> tuple[list[list[Idle]], list[Idle]]:
    """Heats of 3 or 4 cut in standing order: the first player not yet placed, then the
    next players (within the window) who fit everyone already in the heat. Linear: each
    player looks at most ``window`` places ahead."""
    heats: list[list[Idle]] = []
    left: list[Idle] = []
    taken: set[int] = set()  # placed in a heat, or left waiting
    for first, head in enumerate(ordered):
        if first in taken:
            continue
        heat = [first]
        for j in range(first + 1, len(ordered)):
            if len(heat) == rule.heat_size or apart(head, ordered[j]) > rule.window:
                break
            if j not in taken and all(fits(ordered[m], ordered[j]) for m in heat):
                heat.append(j)
        if len(heat) == rule.heat_size:
            heats.append([ordered[m] for m in heat])
            taken.update(heat)
        else:
            left.append(head)
            taken.add(first)
    return heats, left
