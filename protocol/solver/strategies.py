"""The search strategies ``solve`` runs side by side.

Each one is a generator over a ``Context``: it yields every SLICE generated positions so
that another strategy can take a turn, and returns the winning actions, or None when it has
nothing left to try. A *complete* strategy returns None only after it has seen every
position reachable from the start (up to the profile's equivalences), which proves the deal
unwinnable; an incomplete one may give up without proving anything.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Final

from protocol.errors import IllegalAction
from protocol.notation import DEAL, Action, Move
from protocol.position import Position
from protocol.solver.context import Context
from protocol.solver.profile import Draws

SLICE: Final = 512
Steps = Generator[None, None, list[Action] | None]


@dataclass(frozen=True, slots=True)
class Strategy:
    name: str
    complete: bool
    run: Callable[[Context, Position], Steps]


def depth_first(context: Context, start: Position) -> Steps:
    """Depth-first, the profile's most promising move first, with a transposition table."""
    profile, key, step, budget = context.profile, context.profile.key, context.step, context.budget
    dead = profile.is_dead
    first: list[Action] = []
    root = context.settle(start, first)
    if context.is_won(root):
        return first
    if dead(root):
        return None
    seen = {key(root)}
    # One frame per position on the current path: the position, its moves in the order
    # to try, the index of the next one, and the actions that led into it.
    positions = [root]
    move_lists = [profile.ordered_moves(root)]
    next_index = [0]
    path: list[list[Action]] = [first]
    while positions:
        index = next_index[-1]
        moves = move_lists[-1]
        if index == len(moves):
            positions.pop()
            move_lists.pop()
            next_index.pop()
            path.pop()
            continue
        next_index[-1] = index + 1
        position, taken = step(positions[-1], moves[index])
        if context.is_won(position):
            return [a for actions in path for a in actions] + taken
        if budget.nodes % SLICE == 0:
            yield
        k = key(position)
        if k in seen:
            continue
        seen.add(k)
        if dead(position):
            continue
        positions.append(position)
        move_lists.append(profile.ordered_moves(position))
        next_index.append(0)
        path.append(taken)
    return None


class _Node:
    """A position reached by ``actions`` from ``parent`` (a chain back to the start)."""

    __slots__ = ("actions", "parent")

    def __init__(self, parent: _Node | None, actions: list[Action]) -> None:
        self.parent = parent
        self.actions = actions

    def path(self) -> list[Action]:
        steps: list[list[Action]] = []
        node: _Node | None = self
        while node is not None:
            steps.append(node.actions)
            node = node.parent
        return [a for actions in reversed(steps) for a in actions]


def best_first(context: Context, start: Position) -> Steps:
    """Expand the position the profile scores highest (ties: the newest), with a
    transposition table; complete, as every new position is queued."""
    profile, key, step, budget = context.profile, context.profile.key, context.step, context.budget
    score, dead = profile.score, profile.is_dead
    first: list[Action] = []
    root = context.settle(start, first)
    if context.is_won(root):
        return first
    if dead(root):
        return None
    seen = {key(root)}
    counter = 0
    queue: list[tuple[int, int, Position, _Node]] = [(-score(root), 0, root, _Node(None, first))]
    while queue:
        _, _, position, node = heapq.heappop(queue)
        for action in profile.ordered_moves(position):
            child, taken = step(position, action)
            if context.is_won(child):
                return _Node(node, taken).path()
            if budget.nodes % SLICE == 0:
                yield
            k = key(child)
            if k in seen:
                continue
            seen.add(k)
            if dead(child):
                continue
            counter -= 1
            heapq.heappush(queue, (-score(child), counter, child, _Node(node, taken)))
    return None


CLOSURE_PER_WIDTH: Final = 64


def beam(context: Context, start: Position) -> Steps:
    """Stage by stage (a stage ends with a deal): every position reachable without dealing,
    up to a cap, then the ``width`` best by the profile's score deal and form the next
    stage. One pass per width of ``Profile.beam_passes``; pass 0 ranks by ``score``, each
    later pass by ``Profile.varied_score`` (a seeded variant, so that restarts at the same
    width look at other positions). Incomplete (it drops positions); it ends when a pass
    dropped nothing (that pass saw every reachable position) or the widths run out."""
    profile = context.profile
    for index, width in enumerate(profile.beam_passes()):
        score = profile.score if index == 0 else profile.varied_score(Draws(index))
        result, dropped = yield from beam_pass(context, start, width, score)
        if result is not None:
            return result
        if not dropped:
            return None
    return None


def beam_pass(
    context: Context, start: Position, width: int, score: Callable[[Position], int]
) -> Generator[None, None, tuple[list[Action] | None, bool]]:
    profile, key, step, budget = context.profile, context.profile.key, context.step, context.budget
    moves, dead = profile.beam_moves, profile.is_dead
    first: list[Action] = []
    root = context.settle(start, first)
    if context.is_won(root):
        return first, False
    cap = width * CLOSURE_PER_WIDTH
    dropped = False
    stage: list[tuple[Position, _Node]] = [(root, _Node(None, first))]
    while stage:
        reached = {key(position): (position, node) for position, node in stage}
        todo = list(stage)
        while todo and len(reached) < cap:
            position, node = todo.pop()
            for action in moves(position):
                if type(action) is not Move:
                    continue
                child, taken = step(position, action)
                if context.is_won(child):
                    return _Node(node, taken).path(), dropped
                if budget.nodes % SLICE == 0:
                    yield
                k = key(child)
                if k not in reached and not dead(child):
                    entry = (child, _Node(node, taken))
                    reached[k] = entry
                    todo.append(entry)
        dropped = dropped or bool(todo)
        best = _best(list(reached.values()), width, score, profile.beam_signature)
        dropped = dropped or len(reached) > width
        stage = []
        for position, node in best:
            if not position.stock:
                continue
            try:
                child, taken = step(position, DEAL)
            except IllegalAction:
                continue
            if context.is_won(child):
                return _Node(node, taken).path(), dropped
            stage.append((child, _Node(node, taken)))
    return None, dropped


def stricter_depth_first(context: Context, start: Position) -> Steps:
    """Depth-first under the stricter game's rules: each win there is a win here, but its
    end proves nothing here."""
    stricter = context.stricter()
    if stricter is None:
        return None
    return (yield from depth_first(stricter, start))


def stricter_best_first(context: Context, start: Position) -> Steps:
    """Best-first under the stricter game's rules (see ``stricter_depth_first``)."""
    stricter = context.stricter()
    if stricter is None:
        return None
    return (yield from best_first(stricter, start))


def _best(
    entries: list[tuple[Position, _Node]],
    width: int,
    score: Callable[[Position], int],
    signature: Callable[[Position], bytes | None],
) -> list[tuple[Position, _Node]]:
    """The ``width`` best entries by score, the best of each signature first."""
    ranked = sorted(entries, key=lambda entry: score(entry[0]), reverse=True)
    distinct: list[tuple[Position, _Node]] = []
    others: list[tuple[Position, _Node]] = []
    seen: set[bytes] = set()
    for entry in ranked:
        mark = signature(entry[0])
        if mark is None or mark not in seen:
            if mark is not None:
                seen.add(mark)
            distinct.append(entry)
            if len(distinct) == width:
                break
        else:
            others.append(entry)
    return (distinct + others)[:width]


STRATEGIES: Final = {
    strategy.name: strategy
    for strategy in (
        Strategy("depth_first", True, depth_first),
        Strategy("best_first", True, best_first),
        Strategy("beam", False, beam),
        Strategy("stricter_depth_first", False, stricter_depth_first),
        Strategy("stricter_best_first", False, stricter_best_first),
    )
}
