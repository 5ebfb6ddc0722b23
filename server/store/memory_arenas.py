"""The arenas role of the in-memory store (``server/store/arenas.py``): every arena in this
process, kept as the same JSON text Redis keeps; an arena is forgotten once its keep time
after its end has passed (looked at when another is created). Leases lapse on this
process's monotonic clock, as the memory bus's do."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from protocol.arena import Entry, HeatResult, Withdrawn
from server.store.arena_records import (
    MAX_ENTRIES,
    MAX_HEATS,
    MAX_PARTICIPANTS,
    ArenaPlace,
    ArenaRecord,
    HeatStart,
    Participant,
    changed,
    check_entry,
    check_id,
    check_time,
    checked_change,
    entry_from_json,
    entry_heat,
    entry_identity,
    entry_json,
    entry_players,
    full,
    no_arena,
    not_joined,
    stale,
    status_reached,
    streak_ends,
)
from server.store.arenas import (
    PLACES_KEPT,
    Arenas,
    checked_keep,
    checked_start,
    checked_ttl,
    newest_first,
)


@dataclass
class ArenaState:
    """One arena: its record's content and status, participants, heats, log and lease."""

    arena: str
    content: str
    status: str
    expires_at_ms: int
    participants: dict[str, str] = field(default_factory=dict)  # player -> JSON
    heats: dict[str, str] = field(default_factory=dict)  # heat -> JSON, as recorded
    order: list[str] = field(default_factory=list)  # heats in the order recorded
    log: list[str] = field(default_factory=list)
    logged: dict[str, str] = field(default_factory=dict)  # identity -> "held" or "1"
    token: int = 0  # the newest lease's token
    lease: tuple[str, int, float] | None = None  # holder, token, until (monotonic)


class MemoryArenas(Arenas):
    def __init__(self) -> None:
        self._arenas: dict[str, ArenaState] = {}
        self._places: dict[str, dict[str, str]] = {}  # player -> arena -> JSON
        self._dropped_best: dict[str, int] = {}  # the best place of lines no longer kept

    def _state(self, arena: str) -> ArenaState:
        check_id("arena id", arena)
        state = self._arenas.get(arena)
        if state is None:
            raise no_arena(arena)
        return state

    async def create_arena(self, record: ArenaRecord) -> bool:
        now_ms = int(time.time() * 1000)
        for gone in [a for a, s in self._arenas.items() if s.expires_at_ms <= now_ms]:
            del self._arenas[gone]
        stored = self._arenas.get(record.arena)
        if stored is not None:
            return stored.content == record.content_json()
        self._arenas[record.arena] = ArenaState(
            record.arena, record.content_json(), "scheduled", record.expires_at_ms()
        )
        return True

    async def arena(self, arena: str) -> ArenaRecord | None:
        check_id("arena id", arena)
        state = self._arenas.get(arena)
        return ArenaRecord.from_json(state.content, state.status) if state else None

    async def made_arenas(self, ending_after_ms: int) -> list[ArenaRecord]:
        check_time(ending_after_ms)
        now_ms = int(time.time() * 1000)
        records = [
            ArenaRecord.from_json(state.content, state.status)
            for state in self._arenas.values()
            if state.expires_at_ms > now_ms
        ]
        made = [r for r in records if r.made and r.ends_at_ms > ending_after_ms]
        return sorted(made, key=lambda record: (record.starts_at_ms, record.arena))

    async def set_status(self, arena: str, status: str) -> bool:
        state = self._state(arena)
        if not status_reached(state.status, status):
            return False
        state.status = status
        return True

    async def join(self, arena: str, player: str, at_ms: int, risk: bool = False) -> bool:
        state = self._state(arena)
        check_id("player id", player)
        check_time(at_ms)
        if player in state.participants:
            return False
        if len(state.participants) >= MAX_PARTICIPANTS:
            raise full(arena, "participants", MAX_PARTICIPANTS)
        state.participants[player] = Participant(player, at_ms, risk=risk).as_json()
        return True

    async def change(self, arena: str, player: str, change: str, at_ms: int) -> bool:
        state = self._state(arena)
        check_id("player id", player)
        kind = checked_change(change)
        text = state.participants.get(player)
        after = changed(Participant.from_json(text) if text else None, kind, at_ms)
        if after is None:
            return False
        if streak_ends(kind):
            self._add(state, "", Withdrawn(player))
        state.participants[player] = after.as_json()
        return True

    async def participants(self, arena: str) -> list[Participant]:
        state = self._state(arena)
        return [Participant.from_json(state.participants[p]) for p in sorted(state.participants)]

    async def take_lease(self, arena: str, node: str, ttl_ms: int) -> int | None:
        state = self._state(arena)
        check_id("node id", node)
        until = time.monotonic() + checked_ttl(ttl_ms) / 1000
        lease = state.lease
        if lease is not None and lease[2] > time.monotonic():
            if lease[0] != node:
                return None
            state.lease = (node, lease[1], until)
            return lease[1]
        state.token += 1
        state.lease = (node, state.token, until)
        return state.token

    async def renew_lease(self, arena: str, node: str, token: int, ttl_ms: int) -> bool:
        state = self._state(arena)
        until = time.monotonic() + checked_ttl(ttl_ms) / 1000
        lease = state.lease
        if lease is None or lease[2] <= time.monotonic() or lease[:2] != (node, token):
            return False
        state.lease = (node, token, until)
        return True

    async def release_lease(self, arena: str, node: str, token: int) -> None:
        state = self._state(arena)
        lease = state.lease
        if lease is not None and lease[2] > time.monotonic() and lease[:2] == (node, token):
            state.lease = None

    async def start_heat(self, arena: str, heat: HeatStart, token: int) -> bool:
        state = self._state(arena)
        if any(racer not in state.participants for racer in heat.racers):
            raise not_joined(arena)
        if token != state.token:
            raise stale(arena)
        stored = state.heats.get(heat.heat)
        if stored is not None:
            return stored == heat.as_json()
        if len(state.heats) >= MAX_HEATS:
            raise full(arena, "heats", MAX_HEATS)
        state.heats[heat.heat] = heat.as_json()
        state.order.append(heat.heat)
        return True

    async def take_back_heat(self, arena: str, heat: str, token: int) -> bool:
        state = self._state(arena)
        if token != state.token:
            raise stale(arena)
        if f"heat:{heat}" in state.logged:
            return False
        return state.heats.pop(heat, None) is not None

    async def heats(self, arena: str) -> list[HeatStart]:
        started = [HeatStart.from_json(text) for text in self._state(arena).heats.values()]
        return sorted(started, key=lambda heat: (heat.at_ms, heat.heat))

    async def heats_from(self, arena: str, start: int) -> list[HeatStart | None]:
        state = self._state(arena)
        texts = [state.heats.get(heat) for heat in state.order[checked_start(start) :]]
        return [None if text is None else HeatStart.from_json(text) for text in texts]

    async def append(self, arena: str, entry: Entry) -> bool:
        state = self._state(arena)
        identity = entry_identity(entry)
        if identity in state.logged:
            return False
        if any(player not in state.participants for player in entry_players(entry)):
            raise not_joined(arena)
        heat = entry_heat(entry)
        started = state.heats.get(heat) if heat else None
        held = state.logged.get(f"heat:{heat}") == "held"
        check_entry(entry, HeatStart.from_json(started) if started else None, held)
        self._add(state, identity, entry)
        return True

    def _add(self, state: ArenaState, identity: str, entry: Entry) -> None:
        if len(state.log) >= MAX_ENTRIES:
            raise full(state.arena, "log entries", MAX_ENTRIES)
        state.log.append(entry_json(entry))
        if identity:
            held = isinstance(entry, HeatResult) and entry.held
            state.logged[identity] = "held" if held else "1"

    async def log(self, arena: str, start: int = 0) -> list[Entry]:
        return [entry_from_json(text) for text in self._state(arena).log[checked_start(start) :]]

    async def record_place(self, player: str, place: ArenaPlace, keep_s: int) -> bool:
        check_id("player id", player)
        checked_keep(keep_s)
        kept = self._places.setdefault(player, {})
        if kept.get(place.arena) == place.as_json():
            return False
        kept[place.arena] = place.as_json()
        for old in oldest(kept)[: max(0, len(kept) - PLACES_KEPT)]:
            del kept[old.arena]
            self._dropped_best[player] = min(old.place, self._dropped_best.get(player, old.place))
        return True

    async def places(self, player: str) -> list[ArenaPlace]:
        check_id("player id", player)
        kept = self._places.get(player, {})
        return newest_first([ArenaPlace.from_json(text) for text in kept.values()])

    async def best_place(self, player: str) -> int | None:
        places = [line.place for line in await self.places(player)]
        dropped = self._dropped_best.get(player)
        return min([*places, *([dropped] if dropped is not None else [])], default=None)


def oldest(kept: dict[str, str]) -> list[ArenaPlace]:
    """A player's kept lines, oldest first (as Redis's sorted set orders them)."""
    places = [ArenaPlace.from_json(text) for text in kept.values()]
    return sorted(places, key=lambda place: (place.ended_ms, place.arena))
