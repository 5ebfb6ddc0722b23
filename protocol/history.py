"""``GameState``: a position and what ``undo`` goes back to, kept small.

``undo`` may be repeated back to the start, so a state stands for every earlier state too.
Keeping every earlier position (a chain of states, as the engine first did) costs about half
a kilobyte per action in a live race. Here an earlier state is a ``Step``: the action that
led to it and the step before it (48 bytes). Every ``CHECKPOINT_EVERY``-th step is a
``Checkpoint`` that also keeps its position, packed one byte per card, and the rules that
made the states above it. The position of any other step is replayed from the checkpoint
below it, with those rules, by at most ``CHECKPOINT_EVERY - 1`` actions. The engine is
deterministic (the same position and action always give the same position), so the
replayed position is the one the game was in, exactly.

So that ``undo`` seldom replays, a state also knows the positions just under it, when they
are at hand (``_known``, nearest last): after an action, the position before it; after a
replay, every position the replay went through. Only live states hold them; a step never
does, so they cost nothing per action.

A state made by hand, ``GameState(position, previous, "t0 1 t1")``, keeps its position
when it becomes an earlier state, since no action leads to it.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

from protocol.notation import Action
from protocol.position import Position


class Rules(Protocol):
    """What the history needs of a game's rules (``protocol.engine.Rules`` is one): to replay
    an action from a kept position."""

    def play(self, position: Position, action: Action) -> tuple[Position, Any, int]: ...


CHECKPOINT_EVERY: Final = 16  # an undo replays at most 15 actions; 1 position in 16 kept
_new = object.__new__


class Step:
    """An earlier state, without its position: the action that led to it (``last``: an
    action, or the text given to a state made by hand) and the earlier state before it."""

    __slots__ = ("below", "last")

    def __init__(self, below: Step | None, last: Action | str) -> None:
        self.below = below
        self.last = last


class Checkpoint(Step):
    """An earlier state that keeps its position (packed: see ``Position.pack``), and the
    rules that made the states above it (None under a state made by hand: nothing above
    it is replayed)."""

    __slots__ = ("kept", "rules")

    def __init__(
        self, below: Step | None, last: Action | str, position: Position, rules: Rules | None
    ) -> None:
        self.below = below
        self.last = last
        self.rules = rules
        try:
            self.kept: Position | bytes = position.pack()
        except ValueError:  # a position made by hand, with cards no deck has
            self.kept = position

    @property
    def position(self) -> Position:
        kept = self.kept
        return Position.unpack(kept) if isinstance(kept, bytes) else kept


class GameState:
    """A position, and what ``undo`` would go back to (``previous``: None at the start).

    Never changed once made. Two states are equal when their positions, their last actions
    and their previous states are equal (as for the named tuple of position, previous
    state and last action that a state used to be).
    """

    __slots__ = ("_earlier", "_known", "_last", "_rules", "_run", "position")

    position: Position
    _earlier: Step | None  # the state before, as a step
    _last: Action | str  # the action that led here; text (perhaps "") for a state made by hand
    _rules: Rules | None  # the rules of the checkpoint at or under ``_earlier``
    _run: int  # the steps above that checkpoint, ``_earlier`` included
    _known: tuple[Position, ...]  # positions of the states just under this one, nearest last

    def __init__(
        self, position: Position, previous: GameState | None = None, last_action: str = ""
    ) -> None:
        self.position = position
        self._last = last_action
        self._earlier = None if previous is None else previous._kept(None)
        self._rules = None
        self._run = 0
        self._known = ()

    @classmethod
    def _make(
        cls,
        position: Position,
        earlier: Step | None,
        last: Action | str,
        rules: Rules | None,
        run: int,
        known: tuple[Position, ...],
    ) -> GameState:
        state = _new(cls)
        state.position = position
        state._earlier = earlier
        state._last = last
        state._rules = rules
        state._run = run
        state._known = known
        return state

    # ------------------------------------------------------------------ what it stands for

    @property
    def last_action(self) -> str:
        """The action that led to this state, in the notation ("" at the start)."""
        last = self._last
        return last if type(last) is str else str(last)

    @property
    def has_previous(self) -> bool:
        """There is an earlier state to go back to (``previous is not None``, without
        making it)."""
        return self._earlier is not None

    @property
    def previous(self) -> GameState | None:
        """The state before the last action (made anew, from what this state knows or by
        a replay from the checkpoint below)."""
        step, known = self._earlier, self._known
        if step is None:
            return None
        if not known:
            return restore(step)
        if isinstance(step, Checkpoint):
            run, rules = run_under(step.below)
        else:  # the state before is on the same run of steps as this one
            run, rules = self._run - 1, self._rules
        return GameState._make(known[-1], step.below, step.last, rules, run, known[:-1])

    @property
    def undo_depth(self) -> int:
        depth, step = 0, self._earlier
        while step is not None:
            depth, step = depth + 1, step.below
        return depth

    # ------------------------------------------------------------------ the engine's use

    def then(self, position: Position, action: Action, rules: Rules) -> GameState:
        """The state after ``action``, which ``rules`` played to reach ``position``."""
        state = _new(GameState)  # as ``_make`` does, one call less on the engine's hot path
        run, last = self._run, self._last
        if run < CHECKPOINT_EVERY - 1 and self._rules is rules and type(last) is not str:
            # Replayed from the checkpoint below (same rules), as it was reached: by ``last``.
            state._earlier, state._run = Step(self._earlier, last), run + 1
        else:
            state._earlier, state._run = self._kept(rules), 0
        state.position, state._last, state._rules = position, action, rules
        state._known = (self.position,)
        return state

    def _kept(self, rules: Rules | None) -> Checkpoint:
        """This state as an earlier state that keeps its position."""
        return Checkpoint(self._earlier, self._last, self.position, rules)

    # ------------------------------------------------------------------ value semantics

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        if self is other:
            return True
        if self.position != other.position or self.last_action != other.last_action:
            return False
        return same_history(self._earlier, other._earlier)

    def __hash__(self) -> int:
        return hash((self.position, self.last_action))

    def __repr__(self) -> str:
        return (
            f"GameState(position={self.position!r}, last_action={self.last_action!r}, "
            f"undo_depth={self.undo_depth})"
        )


def restore(step: Step) -> GameState:
    """The earlier state ``step`` stands for, knowing the positions its replay went
    through."""
    positions = replay_run(step)
    run, rules = run_under(step.below)
    return GameState._make(positions[-1], step.below, step.last, rules, run, positions[:-1])


def replay_run(step: Step) -> tuple[Position, ...]:
    """The positions from the checkpoint at or under ``step`` up to ``step``'s own: kept
    by the checkpoint, then replayed with its rules."""
    actions: list[Action | str] = []
    below: Step | None = step
    while below is not None and not isinstance(below, Checkpoint):
        actions.append(below.last)
        below = below.below
    assert below is not None  # the first state of every history keeps its position
    position, rules = below.position, below.rules
    positions = [position]
    for action in reversed(actions):
        assert rules is not None and not isinstance(action, str)  # see ``GameState.then``
        position = rules.play(position, action)[0]
        positions.append(position)
    return tuple(positions)


def run_under(step: Step | None) -> tuple[int, Rules | None]:
    """The steps down to the first checkpoint at or under ``step``, and that checkpoint's
    rules (0 and None with no earlier state)."""
    run = 0
    while step is not None and not isinstance(step, Checkpoint):
        run, step = run + 1, step.below
    return run, None if step is None else step.rules


def same_history(one: Step | None, other: Step | None) -> bool:
    """The two histories go through equal states (positions and last actions)."""
    while one is not other:
        if one is None or other is None:
            return False
        if one.last != other.last and str(one.last) != str(other.last):
            return False
        # When both replay their positions, they are equal if every state under them is
        # (checked next): the same action on the same position gives the same position.
        replayed = not isinstance(one, Checkpoint) and not isinstance(other, Checkpoint)
        if not replayed and replay_run(one)[-1] != replay_run(other)[-1]:
            return False
        one, other = one.below, other.below
    return True
