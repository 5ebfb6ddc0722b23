"""A racer's action log, kept compact: 24 bytes per accepted action instead of about 150.

A race keeps every accepted action of every racer (``LogEntry``: player, seq, action,
t_ms) for as long as it lives. Kept as a list of named tuples, each entry costs its tuple
and two integers of 28 bytes. ``ActionLog`` keeps the player once (it is one racer's log),
the numbers in two arrays of 64-bit integers, and the action texts as references to the
canonical strings that ``protocol.notation.parse_canonical`` shares. Reading it gives the
same entries back: ``len``, indexes and slices, iteration, and ``append`` like a list.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar, overload


class Entry(Protocol):
    @property
    def player(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def action(self) -> str: ...
    @property
    def t_ms(self) -> int: ...


E = TypeVar("E", bound=Entry)


class ActionLog(Generic[E]):
    """One player's log; ``entry(player, seq, action, t_ms)`` makes the entries read back."""

    __slots__ = ("_actions", "_entry", "_player", "_seqs", "_times")

    def __init__(self, entry: Callable[[str, int, str, int], E]) -> None:
        self._entry = entry
        self._player: str | None = None
        self._seqs: array[int] | list[int] = array("q")
        self._times: array[int] | list[int] = array("q")
        self._actions: list[str] = []

    def append(self, entry: E) -> None:
        if self._player is None:
            self._player = entry.player
        elif entry.player != self._player:
            raise ValueError(f"this is {self._player}'s log, not {entry.player}'s")
        self._seqs = _append(self._seqs, entry.seq)
        self._times = _append(self._times, entry.t_ms)
        self._actions.append(entry.action)

    def actions(self) -> list[str]:
        """The actions' texts, in order (the log's own list: do not change it)."""
        return self._actions

    def __len__(self) -> int:
        return len(self._actions)

    @overload
    def __getitem__(self, index: int) -> E: ...
    @overload
    def __getitem__(self, index: slice) -> list[E]: ...
    def __getitem__(self, index: int | slice) -> E | list[E]:
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("log index out of range")
        return self._make(index)

    def __iter__(self) -> Iterator[E]:
        return (self._make(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        """Equal to another log or a list with the same entries."""
        if isinstance(other, ActionLog | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"ActionLog({list(self)!r})"

    def _make(self, index: int) -> E:
        assert self._player is not None
        return self._entry(
            self._player, self._seqs[index], self._actions[index], self._times[index]
        )


def _append(numbers: array[int] | list[int], value: int) -> array[int] | list[int]:
    """``numbers`` with ``value`` appended; a list once a value does not fit 64 bits."""
    try:
        numbers.append(value)
    except OverflowError:
        numbers = list(numbers)
        numbers.append(value)
    return numbers
