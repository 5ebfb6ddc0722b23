"""``solrace bench memory``: the memory a live race keeps for each action it accepted.

Races of two racers are built with the pure core (``protocol.race.Race``) and started; then
each racer plays a long random legal playout through ``Race.act``, as the server would,
with ``undo`` chosen now and then (``undo_share`` of the turns where it is legal, and
always when nothing else is). What is allocated and still alive once the playouts are
over (tracemalloc, after a full collection), less what was alive just after the start,
divided by the actions accepted, is the figure: the racers' states and undo history,
their action logs, their reply caches (bounded) and the parsed-action cache (bounded).

The same playouts (the same random choices) are then kept the way the engine kept them
before undo history was made compact: every earlier position in a chain of named tuples,
with a fresh ``str(action)`` per link, and a list of ``LogEntry`` tuples. That figure is
printed next to the first, as "before".
"""

from __future__ import annotations

import gc
import random
import tracemalloc
from typing import Any, NamedTuple

from protocol.engine import GameState, Rules
from protocol.games import rules_for
from protocol.notation import UNDO, Action, parse_canonical
from protocol.position import Position
from protocol.race import LogEntry, Now, Race, RaceSettings

TARGET_BYTES_PER_ACTION = 300
PLAYERS = ("ann", "bob")
START_MS = 1_000_000
STEP_MS = 731  # between a racer's actions: t_ms and seq soon leave the small-int cache


class Figures(NamedTuple):
    game: str
    racers: int
    accepted: int  # actions accepted in all (undos included)
    undos: int
    bytes_per_action: float  # the race as it is now
    before_bytes_per_action: float  # the chain of positions kept before

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


def choose(rules: Rules, legal: list[Action], rng: random.Random, undo_share: float) -> Action:
    """A random legal action: undo ``undo_share`` of the time when it is legal (always when
    it is the only one), else any other legal action."""
    if legal and legal[-1] == UNDO:  # the engine lists undo last
        others = legal[:-1]
        if not others or rng.random() < undo_share:
            return UNDO
        return rng.choice(others)
    return rng.choice(legal)


def racer_rng(seed: int, race: int, player: str) -> random.Random:
    return random.Random(f"{seed}:{race}:{player}")


def deal_number(seed: int, race: int) -> int:
    return 1 + (seed * 7919 + race * 104_729) % 1_000_000


def start_races(game: str, races: int, seed: int) -> list[Race]:
    rules = rules_for(game)
    started = []
    for index in range(races):
        settings = RaceSettings(game, rules.options, deal_number(seed, index), countdown_ms=0)
        race = Race(f"r{index}", settings, rules, host=PLAYERS[0])
        for player in PLAYERS:
            race.join(player, player.title())
        race.schedule_start(None, Now(START_MS, START_MS))
        race.begin()
        started.append(race)
    return started


def play_races(races: list[Race], actions: int, seed: int, undo_share: float) -> tuple[int, int]:
    """Up to ``actions`` actions per racer; the actions accepted and the undos among them."""
    accepted = undos = 0
    for index, race in enumerate(races):
        rules = race.rules
        for player in PLAYERS:
            rng = racer_rng(seed, index, player)
            racer = race.racers[player]
            for seq in range(1, actions + 1):
                if racer.outcome is not None or racer.state is None:
                    break
                legal = rules.legal_actions(racer.state)
                if not legal:
                    break
                action = choose(rules, legal, rng, undo_share)
                at = START_MS + seq * STEP_MS
                result = race.act(player, seq, str(action), Now(at, at))
                if not result.ok:
                    raise AssertionError(f"a legal action was refused: {result.reply}")
                accepted += 1
                undos += action == UNDO
    return accepted, undos


class ChainState(NamedTuple):
    """A game state as the engine kept it before: the position and the whole previous state."""

    position: Position
    previous: ChainState | None
    last_action: str


class ChainRacer:
    def __init__(self, player: str, start: Position) -> None:
        self.player = player
        self.state = ChainState(start, None, "")
        self.log: list[LogEntry] = []


def start_chains(game: str, races: int, seed: int) -> list[list[ChainRacer]]:
    rules = rules_for(game)
    return [
        [ChainRacer(player, rules.start(deal_number(seed, index)).position) for player in PLAYERS]
        for index in range(races)
    ]


def play_chains(
    rules: Rules, racers: list[list[ChainRacer]], actions: int, seed: int, undo_share: float
) -> tuple[int, int]:
    """The same playouts as ``play_races`` (the same random choices), kept as before."""
    accepted = undos = 0
    for index, pair in enumerate(racers):
        for racer in pair:
            rng = racer_rng(seed, index, racer.player)
            for seq in range(1, actions + 1):
                state = racer.state
                alone = GameState(state.position)  # the engine, for the moves alone
                if rules.is_won(state.position):
                    break  # the race would have finished the racer
                if not rules.undo_allowed and rules.is_stuck(alone):
                    break
                legal = rules.legal_actions(alone)
                if state.previous is not None and rules.undo_allowed:
                    legal.append(UNDO)
                if not legal:
                    break
                action = choose(rules, legal, rng, undo_share)
                if action == UNDO:
                    assert state.previous is not None
                    racer.state = state.previous
                    undos += 1
                else:
                    after = rules.apply(alone, action).state.position
                    racer.state = ChainState(after, state, str(action))
                text = parse_canonical(str(action))[1]
                racer.log.append(LogEntry(racer.player, seq, text, seq * STEP_MS))
                accepted += 1
    return accepted, undos


def traced_bytes() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def measure(
    game: str, races: int = 10, actions: int = 1000, seed: int = 1, undo_share: float = 0.1
) -> Figures:
    """Bytes retained per accepted action in live races of ``game``, now and before."""
    tracemalloc.start()
    try:
        parse_canonical.cache_clear()  # each measurement fills the (bounded) cache itself
        live = start_races(game, races, seed)
        base = traced_bytes()
        accepted, undos = play_races(live, actions, seed, undo_share)
        retained = traced_bytes() - base
        del live

        parse_canonical.cache_clear()
        chains = start_chains(game, races, seed)
        base = traced_bytes()
        totals = play_chains(rules_for(game), chains, actions, seed, undo_share)
        before = traced_bytes() - base
        del chains
    finally:
        tracemalloc.stop()
    if totals != (accepted, undos):
        raise AssertionError(f"the two runs played differently: {totals} != {(accepted, undos)}")
    return Figures(
        game,
        racers=races * len(PLAYERS),
        accepted=accepted,
        undos=undos,
        bytes_per_action=round(retained / max(accepted, 1), 1),
        before_bytes_per_action=round(before / max(accepted, 1), 1),
    )


def print_table(figures: list[Figures]) -> None:
    print(
        f"{'game':22} {'racers':>7} {'actions':>9} {'undos':>7} "
        f"{'before B/action':>16} {'now B/action':>13}  target <= {TARGET_BYTES_PER_ACTION}"
    )
    for row in figures:
        verdict = "met" if row.bytes_per_action <= TARGET_BYTES_PER_ACTION else "NOT met"
        print(
            f"{row.game:22} {row.racers:>7,} {row.accepted:>9,} {row.undos:>7,} "
            f"{row.before_bytes_per_action:>16,.1f} {row.bytes_per_action:>13,.1f}  {verdict}"
        )
