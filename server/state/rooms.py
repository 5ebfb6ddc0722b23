"""A race on the server: the pure ``Race`` plus what only a server has: its spectators, the
spectator feed (delayed when the race asks for it), timers, what each racer was last told
and how much of each racer's log is stored.

The feed numbers its items per race. A spectator who arrives gets a snapshot "as of feed
item K" and then the items after K, so snapshot and feed never overlap or leave a gap,
with or without a spectator delay.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from protocol.engine import GameState
from protocol.fairplay_record import Record
from protocol.fairplay_reveals import Reveals
from protocol.messages import Watch
from protocol.race import Race
from protocol.race_views import boards_live, progress_only, spectator_view, state_after
from server.state.sessions import Session

NOTHING_SHOWN: dict[str, Any] = {"progress": 0, "actions": 0, "outcome": None, "time_ms": None}
PHASE_OF = {"countdown": "countdown", "started": "running", "result": "done"}
ENTRY_KINDS = ("act", "progress")  # items that each stand for one entry of a racer's log


class Feeding:
    """The rooms whose feed has work to do (the ticker's flush visits them), and ``soon``:
    an undelayed room's new item is sent at the end of the loop turn that made it rather
    than at the next tick (``server/edge/feeds.py`` makes one with its own)."""

    def __init__(self, soon: Callable[[Room], None] | None = None) -> None:
        self.rooms: set[Room] = set()
        self.soon = soon

    def add(self, room: Room) -> None:
        self.rooms.add(room)

    def discard(self, room: Room) -> None:
        self.rooms.discard(room)

    def __contains__(self, room: object) -> bool:
        return room in self.rooms

    def __iter__(self) -> Iterator[Room]:
        return iter(self.rooms)

    def __len__(self) -> int:
        return len(self.rooms)


class Room:
    def __init__(self, race: Race, created_mono: int, feeding: Feeding) -> None:
        self.race = race
        self.delay_ms = race.settings.spectator_delay_ms
        self.boards_live = boards_live(race)  # else spectators see progress until the end
        self.feeding = feeding  # the server's rooms whose feed has work to do
        self.created_mono = created_mono
        self.spectators: dict[Session, None] = {}  # an ordered set
        self.pending: deque[tuple[int, Watch, str | None]] = deque()  # (due, item, racer)
        self.feed_seq = 0
        self.released_seq = 0
        self.released_entries: dict[str, int] = {}  # racer -> log entries shown to spectators
        self.fed_seqs: dict[str, int] = {}  # racer -> the seq of their last action fed
        self.shown: dict[str, dict[str, Any]] = {}  # racer -> standing spectators know
        self.shown_phase = race.phase.value
        self.standings_version = 0  # grows with every change of anyone's standing
        # racer -> (the standings version last sent them, when, on the mono clock)
        self.told: dict[str, tuple[int, int]] = {}
        self.last_act: dict[str, int] = {}  # racer -> when they last acted (mono ms)
        self.durable: dict[str, int] = {}  # racer -> log entries known to be stored
        self.suspect = False  # a write of its log failed: rebuild it from the store first
        # racer -> (actions the store lost, the last one's seq), until stored and told
        self.lost: dict[str, tuple[int, int]] = {}
        self.version = 0  # the version of the race's record this replica reflects
        self.lock = asyncio.Lock()  # one change of the race itself at a time
        self.spectator_count_shown = 0
        self.start_handle: asyncio.TimerHandle | None = None
        self.done_mono: int | None = None
        self.stored = False  # its end (record and result) is written
        self.sending = False  # a fan-out of feed items is still being written
        self.feed_soon = False  # a feed of this room is asked for at the end of this turn
        self._released_from_race()
        # a ranked daily run's fair-play context (``server/races/fairplay.py``): the solver's
        # line for the deal once it is known, the player's earlier times of the game, and
        # the day's field: the finished times on the day's board when the run started, and
        # the reveals of the player's earlier ranked daily runs
        self.solver_line: tuple[str, ...] | None = None
        self.histories: dict[str, list[int]] = {}
        self.field_ms: tuple[int, ...] = ()
        self.earlier_reveals: dict[str, list[Reveals]] = {}
        self.records: dict[str, Record] = {}  # a ranked daily run's account's record
        # related accounts that started the day's daily first (``server/races/standing.py``)
        self.related: tuple[dict[str, Any], ...] = ()

    @property
    def id(self) -> str:
        return self.race.id

    def mark_stored(self) -> None:
        """The race's end is written: it may be let go."""
        self.stored = True

    def post(
        self, kind: str, data: dict[str, Any], now_mono: int, racer: str | None = None
    ) -> None:
        """Queue a feed item. ``racer`` names the racer it concerns: its standing fields
        (progress, actions, outcome, time_ms) become what spectators know of them, and an
        ``act`` item advances that racer's action log by one. While the boards are held
        (``boards_live``) every item goes out as ``progress_only`` makes it."""
        self.feed_seq += 1
        if self._unwatched():  # nobody to send it to: released at once, so a snapshot
            self._release(self.feed_seq, kind, data, racer)  # shows exactly the items fed
            return
        if not self.boards_live:
            kind, data = progress_only(kind, data)
        item = Watch(self.id, self.feed_seq, kind, data)
        self.pending.append((now_mono + self.delay_ms, item, racer))
        self.feeding.add(self)
        if not self.delay_ms and self.feeding.soon is not None:
            self.feeding.soon(self)

    def post_act(self, racer: str, reply: dict[str, Any], now_mono: int) -> None:
        """Queue ``racer``'s accepted action, given as the answer they got: spectators see
        the same, but for its ``seq`` (a feed item's ``seq`` numbers the feed) and ``legal``,
        and with whose it is (with nobody to send it to, the answer itself is released).
        Each action is fed once, in the order of the racer's seqs, however often it is
        applied."""
        seq = reply["seq"]
        if seq <= self.fed_seqs.get(racer, 0):
            return  # fed already: applied again to a replica read back older than its feed
        self.fed_seqs[racer] = seq
        if self._unwatched():  # as ``post`` does, without a copy (the usual case)
            self.feed_seq += 1
            self._release(self.feed_seq, "act", reply, racer)
            return
        data = {**reply, "player": racer}
        del data["seq"]
        data.pop("legal", None)
        self.post("act", data, now_mono, racer=racer)

    def _unwatched(self) -> bool:
        """An item posted now would be released at once, to nobody."""
        return not self.spectators and not self.delay_ms and not self.pending

    def _released_from_race(self) -> None:
        """What spectators know of a race made here or read back from the store: all of
        it, as nothing of it will be fed. From then on only items fed (or released to
        nobody) change it, never the race itself: an action applied but not yet stored is
        fed once stored, so a snapshot holding it would have it twice."""
        race = self.race
        standings = {player: racer.standing() for player, racer in race.racers.items()}
        self.shown = {
            player: {key: standing[key] for key in NOTHING_SHOWN}
            for player, standing in standings.items()
        }
        self.released_entries = {player: len(racer.log) for player, racer in race.racers.items()}
        self.fed_seqs = {player: r.log[-1].seq for player, r in race.racers.items() if r.log}
        self.shown_phase = race.phase.value
        self.released_seq = self.feed_seq

    def feed_anew(self) -> None:
        """The race was replaced by what the store holds (it lost acknowledged actions):
        what spectators know is taken from it, and items still queued for them (of actions
        now lost) are dropped; they are sent a snapshot when they watch again."""
        self.pending.clear()
        self._released_from_race()

    def watch(self, session: Session) -> None:
        self.spectators[session] = None
        self.feeding.add(self)  # the spectator count changed

    def unwatch(self, session: Session) -> None:
        self.spectators.pop(session, None)
        self.feeding.add(self)  # the spectator count may have changed

    def due_items(self, now_mono: int) -> list[Watch]:
        """Feed items whose time has come, in order; they count as shown from now on."""
        items = []
        while self.pending and self.pending[0][0] <= now_mono:
            _, item, racer = self.pending.popleft()
            self._release(item.seq, item.kind, item.data, racer)
            items.append(item)
        return items

    def _release(self, seq: int, kind: str, data: dict[str, Any], racer: str | None) -> None:
        self.released_seq = seq
        if kind in PHASE_OF:
            self.shown_phase = PHASE_OF[kind]
        if racer is not None:
            known = self.shown.get(racer)
            if known is None:
                known = self.shown[racer] = dict(NOTHING_SHOWN)
            for key in NOTHING_SHOWN:
                if key in data:
                    known[key] = data[key]
            if kind in ENTRY_KINDS:
                self.released_entries[racer] = self.released_entries.get(racer, 0) + 1

    def spectator_snapshot(self) -> dict[str, Any]:
        """Every racer's standing as of the last released feed item, and their face-up
        cards then (while the boards are held, once the end is released; an arena heat's
        never: other heats race its deal)."""
        race = self.race
        if not self.boards_live and (self.shown_phase != "done" or race.settings.arena):
            picture = spectator_view(race, cards=False)
        else:
            states: dict[str, GameState] = {}
            for player, racer in race.racers.items():
                shown = self.released_entries.get(player, 0)
                if racer.state is not None and shown < len(racer.log):
                    states[player] = state_after(race, player, shown)
            picture = spectator_view(race, states)
        for standing in picture["players"]:
            standing.update(self.shown.get(standing["player"], NOTHING_SHOWN))
        picture["phase"] = self.shown_phase
        picture["feed_seq"] = self.released_seq
        picture["spectators"] = len(self.spectators)
        return picture
