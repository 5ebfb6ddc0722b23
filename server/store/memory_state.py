"""The in-memory store's own shapes: a board (``RankedRuns``), a game's day
(``DailyState``) and a player's past (``PlayerPast``)."""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field
from typing import Any

from protocol.ranking import Run
from server.store.base import Board, Entry, board_key, check_window


@dataclass
class RankedRuns:
    """One run per player in board order, with rank look-ups by bisection."""

    keys: list[tuple[float, str]] = field(default_factory=list)  # sorted board keys
    by_member: dict[str, Run] = field(default_factory=dict)
    by_player: dict[str, Run] = field(default_factory=dict)

    def get(self, player: str) -> Run | None:
        return self.by_player.get(player)

    def put(self, run: Run) -> None:
        """Store ``run`` as the player's entry, replacing the one before."""
        self.remove(run.player)
        insort(self.keys, board_key(run))
        self.by_member[run.member()] = run
        self.by_player[run.player] = run

    def remove(self, player: str) -> Run | None:
        """Take ``player``'s entry off the board (theirs, if they had one)."""
        old = self.by_player.pop(player, None)
        if old is not None:
            del self.keys[bisect_left(self.keys, board_key(old))]
            del self.by_member[old.member()]
        return old

    def board(self, top: int, player: str | None, around: int) -> Board:
        check_window(top, around)
        top_entries = self._entries(0, top)
        mine = self.by_player.get(player) if player is not None else None
        if mine is None:
            return Board(len(self.keys), top_entries, [], None)
        index = bisect_left(self.keys, board_key(mine))
        start = max(0, index - around)
        around_entries = self._entries(start, index + around + 1)
        return Board(len(self.keys), top_entries, around_entries, around_entries[index - start])

    def _entries(self, start: int, stop: int) -> list[Entry]:
        return [
            Entry(start + offset + 1, self.by_member[member])
            for offset, (_, member) in enumerate(self.keys[start:stop])
        ]


@dataclass
class DailyState:
    """One game's day: its deal, the ranked attempt claimed by each player, its board."""

    deal: int | None = None
    nonce: str = ""
    claims: dict[str, str] = field(default_factory=dict)
    board: RankedRuns = field(default_factory=RankedRuns)


@dataclass
class PlayerPast:
    recent: dict[str, dict[str, Any]] = field(default_factory=dict)  # race -> entry
    seen: set[str] = field(default_factory=set)  # races recorded (each once)
    played: dict[str, int] = field(default_factory=dict)
    won: dict[str, int] = field(default_factory=dict)
    days: set[str] = field(default_factory=set)
    finished: dict[str, int] = field(default_factory=dict)
    time_ms: dict[str, int] = field(default_factory=dict)
