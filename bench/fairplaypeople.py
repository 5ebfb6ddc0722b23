"""The population of ``solrace bench fairplay``: how each kind of player plays a deal, as
the actions it will send and the time it thinks before each (worked out before the race,
so the solver's time never shows in the pace the server measures).

- **honest**: sees only its own view. It guesses where the hidden cards are (a shuffle of
  the cards it has not seen, in the slots it cannot see), plans with the solver on that
  guess (its skill: the solver's node budget, and a share of moves of its own), and plans
  again whenever a card turns up that is not the one it guessed. Its pace is a person's:
  a median of its own, spread like a person's (log-normal), slower after a surprise.
- **cheater**: knows the deal, so it has the solver's line (the server's own), and plays it
  with detours (a move then ``undo``, or a move and the move back) and undos, at a
  person's pace at several speeds.
- **bot**: plays as an honest player of the best skill, but at a program's pace: 200 to
  400 ms a move, with jitter.
- **knower**: knows the deal but does not play the server's line: it plans as an honest
  player does (its own node budget, its own share of moves of its own), with the solver on
  the true deal instead of a guess, so it never needs to plan again after a card turns
  up; a person's pace and a few detours.
- **lucky**: plays as an honest player, and uses its knowledge of the deal only at blind
  choices (``protocol/fairplay_reveals.py``): when the move it meant to make turns up a
  card of no use and another move would turn up a useful one, it makes that move instead.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.engine import Rules
from protocol.errors import IllegalAction
from protocol.fairplay_line import line_match
from protocol.fairplay_reveals import is_useful
from protocol.notation import TABLEAU_PILES, parse_action
from protocol.position import Position
from protocol.solver import WON, solve

HONEST, CHEATER, BOT = "honest", "cheater", "bot"
KNOWER, LUCKY = "knower", "lucky"
MOST_ACTIONS = 120  # an honest player resigns past this many actions
OWN_AFTER_FAILING = 4  # moves of its own after the solver found nothing, before it asks again
FASTEST_HAND_MS = 250  # no person clicks faster than this
CHEATER_MEDIANS_MS = (285, 600, 918, 1500)  # the 285 and 918 ms among them
DETOURS = (1, 3, 6, 12)
KNOWER_TRIES = 8  # a knower tries this many plans of its own for a win off the server's line
KNOWER_KEEPS_UNDER = 0.8  # ... keeping less than this share of the server's line


@dataclass(frozen=True)
class Plan:
    """One simulated run: its kind, a label for the report, and each action with the
    time to wait before sending it (ms); it resigns at the end unless it won."""

    kind: str
    label: str
    steps: tuple[tuple[str, int], ...]
    won: bool


def guessed(position: Position, rng: random.Random) -> Position:
    """``position`` with its hidden cards (face down, or in the stock) shuffled among
    their own slots: a layout that fits everything its player can see."""
    hidden = [
        card
        for pile, down in zip(position.tableau, position.face_down, strict=True)
        for card in pile[:down]
    ]
    hidden += position.stock
    rng.shuffle(hidden)
    tableau = []
    for pile, down in zip(position.tableau, position.face_down, strict=True):
        tableau.append(tuple(hidden[:down]) + pile[down:])
        del hidden[:down]
    return position._replace(tableau=tuple(tableau), stock=tuple(hidden))


def play(rules: Rules, position: Position, action: str) -> Position:
    return rules.play(position, parse_action(action))[0]


def person_pace(rng: random.Random, median_ms: float, sigma: float, slower: float = 1.0) -> int:
    """A person's think time: log-normal around ``median_ms``, ``slower`` after a surprise."""
    return max(FASTEST_HAND_MS, int(median_ms * slower * math.exp(rng.gauss(0, sigma))))


def honest_moves(
    rules: Rules,
    start: Position,
    rng: random.Random,
    nodes: int,
    own_moves: float,
    knows: bool = False,
    lucky: bool = False,
    most: int = MOST_ACTIONS,
) -> list[tuple[str, bool]]:
    """An honest player's actions on the deal ``start``, each with whether it was
    surprised just before (a card that was not the one it guessed: it planned again).
    ``knows``: it plans on the true deal, not a guess (a knower); ``lucky``: it swaps a
    move that turns up a useless card for one that turns up a useful card."""
    true, plan = start, list[str]()
    out: list[tuple[str, bool]] = []
    guess = true
    surprised = True
    own_left = 0  # moves of its own to make before asking the solver again
    while len(out) < most and true.progress() < rules.card_total:
        legal = [str(action) for action in rules.moves(true)]
        if not legal:
            break
        if not plan and own_left == 0:
            guess = true if knows else guessed(true, rng)
            solution = solve(rules, guess, max_nodes=nodes)
            plan = list(solution.actions) if solution.verdict == WON else []
            own_left = 0 if plan else OWN_AFTER_FAILING
        if plan and rng.random() >= own_moves:
            action = plan.pop(0)
            guess = play(rules, guess, action)
        else:
            action, plan, own_left = rng.choice(legal), [], max(0, own_left - 1)
        if lucky and (better := luckier(rules, true, action)) is not None:
            action, plan = better, []
        true = play(rules, true, action)
        out.append((action, surprised))
        surprised = bool(plan) and guess.masked() != true.masked()
        if surprised:
            plan = []
    return out


def luckier(rules: Rules, position: Position, action: str) -> str | None:
    """A move that turns up a useful card, when ``action`` turns up a useless one and
    another pile's face-down card would be useful (None: keep ``action``)."""
    after = play(rules, position, action)
    down = position.face_down
    turned = [i for i, count in enumerate(down) if after.face_down[i] < count]
    if len(turned) != 1 or is_useful(rules, after, TABLEAU_PILES[turned[0]]):
        return None
    for move in rules.moves(position):
        then = play(rules, position, str(move))
        for index, count in enumerate(down):
            turns = index != turned[0] and then.face_down[index] < count
            if turns and is_useful(rules, then, TABLEAU_PILES[index]):
                return str(move)
    return None


def honest(rules: Rules, start: Position, rng: random.Random) -> Plan:
    median, sigma = rng.uniform(500, 1500), rng.uniform(0.45, 0.9)
    nodes, own = rng.choice((2_000, 8_000, 30_000)), rng.choice((0.0, 0.03, 0.1))
    moves = honest_moves(rules, start, rng, nodes, own)
    steps = [(a, person_pace(rng, median, sigma, 1.8 if s else 1.0)) for a, s in moves]
    return Plan(HONEST, f"median {median / 1000:.1f} s", tuple(steps), won_by(rules, start, steps))


def bot(rules: Rules, start: Position, rng: random.Random) -> Plan:
    moves = honest_moves(rules, start, rng, 30_000, 0.0)
    steps = [(a, max(150, int(rng.uniform(200, 400) + rng.gauss(0, 30)))) for a, _ in moves]
    return Plan(BOT, "200-400 ms", tuple(steps), won_by(rules, start, steps))


def knower(rules: Rules, start: Position, line: list[str], rng: random.Random, median: int) -> Plan:
    """Plans with the solver on the true deal (8,000 to 100,000 nodes, 3 or 10 % moves of
    its own), at a person's pace around ``median`` ms, with a detour before its first move
    and two more. It tries plans of its own until one wins keeping under
    ``KNOWER_KEEPS_UNDER`` of the server's ``line`` (a cheater can run the same solver to
    see what the server would find), at most ``KNOWER_TRIES``; else it plays its last."""
    moves: list[str] = []
    for _ in range(KNOWER_TRIES):
        nodes, own = rng.choice((8_000, 30_000, 100_000)), rng.choice((0.03, 0.1))
        planned = [a for a, _ in honest_moves(rules, start, rng, nodes, own, True, most=400)]
        moves = planned
        won = won_by(rules, start, [(a, 0) for a in planned])
        if won and line_match(planned, line).kept < KNOWER_KEEPS_UNDER * len(line):
            break
    at = {0, *rng.sample(range(1, max(2, len(moves))), min(2, max(0, len(moves) - 1)))}
    actions = with_detours(rules, start, moves, at, rng)
    sigma = rng.uniform(0.45, 0.9)
    steps = [(a, person_pace(rng, median, sigma)) for a in actions]
    label = f"median {median} ms, own line"
    return Plan(KNOWER, label, tuple(steps), won_by(rules, start, steps))


def lucky(rules: Rules, start: Position, rng: random.Random) -> Plan:
    """An honest player's plan and pace, but at a blind choice it takes a useful card."""
    median, sigma = rng.uniform(500, 1500), rng.uniform(0.45, 0.9)
    nodes, own = rng.choice((2_000, 8_000, 30_000)), rng.choice((0.0, 0.03, 0.1))
    moves = honest_moves(rules, start, rng, nodes, own, lucky=True)
    steps = [(a, person_pace(rng, median, sigma, 1.8 if s else 1.0)) for a, s in moves]
    return Plan(LUCKY, f"median {median / 1000:.1f} s", tuple(steps), won_by(rules, start, steps))


def with_detours(
    rules: Rules, start: Position, moves: list[str], at: set[int], rng: random.Random
) -> list[str]:
    """``moves`` played from ``start`` with a detour (``detour``) before each move whose
    index is in ``at``."""
    actions, position = [], start
    for index, move in enumerate(moves):
        if index in at:
            actions += detour(rules, position, move, rng)
        actions.append(move)
        position = play(rules, position, move)
    return actions


def detour(rules: Rules, position: Position, line_move: str, rng: random.Random) -> list[str]:
    """A detour from ``position`` that leaves it as it was: a move and the move back when
    one exists, else one or two moves each taken back by ``undo``."""
    legal = [str(a) for a in rules.moves(position) if str(a) != line_move]
    rng.shuffle(legal)
    for move in legal[:6]:
        after = play(rules, position, move)
        for back in rules.moves(after):
            if play(rules, after, str(back)) == position:
                return [move, str(back)]
    if not legal:
        return []
    first = legal[0]
    second = [str(a) for a in rules.moves(play(rules, position, first))]
    if second and rng.random() < 0.5:
        return [first, rng.choice(second), "undo", "undo"]
    return [first, "undo"]


def cheater(
    rules: Rules,
    start: Position,
    line: list[str],
    rng: random.Random,
    median: int,
    detours: int,
    trades: bool = False,
) -> Plan:
    """The solver's line with ``detours`` detours (one before its first move, as in the
    issue), at a person's pace around ``median`` ms; with ``trades``, its moves that
    commute traded first (``traded``)."""
    played = traded(rules, start, line, rng) if trades else line
    at = {0, *rng.sample(range(1, len(line)), min(detours - 1, len(line) - 1))}
    actions = with_detours(rules, start, played, at, rng)
    sigma = rng.uniform(0.45, 0.9)
    steps = [(a, person_pace(rng, median, sigma)) for a in actions]
    label = f"median {median} ms, {detours} detours" + (", traded" if trades else "")
    return Plan(CHEATER, label, tuple(steps), won_by(rules, start, steps))


def traded(
    rules: Rules, start: Position, line: Sequence[str], rng: random.Random, tries: int = 3_000
) -> list[str]:
    """``line`` after ``tries`` attempts to trade a random adjacent pair of its moves that
    commute (both orders legal from where they stand, the same position after them): the
    same game, the line's order hidden from a comparison made in order."""
    run = list(line)
    positions = [start]
    for action in run:
        positions.append(play(rules, positions[-1], action))
    for _ in range(tries):
        at = rng.randrange(len(run) - 1)
        first, second = run[at], run[at + 1]
        try:
            middle = play(rules, positions[at], second)
            after = play(rules, middle, first)
        except IllegalAction:
            continue
        if after == positions[at + 2]:
            run[at], run[at + 1], positions[at + 1] = second, first, middle
    return run


def won_by(rules: Rules, start: Position, steps: list[tuple[str, int]]) -> bool:
    """The steps win from ``start`` (undos taken into account)."""
    positions = [start]
    for action, _ in steps:
        if action == "undo":
            positions.pop()
        else:
            positions.append(play(rules, positions[-1], action))
    return positions[-1].progress() == rules.card_total
