"""The memory store's races role: records, listings, the racers' logs and results. Ended
races are kept for their retention time and at most ``max_ended`` of them, so memory stays
bounded."""

from __future__ import annotations

import heapq
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from protocol.race import LogEntry
from server.handover.jobs import AppendActions, EndRace
from server.handover.moment import now
from server.handover.node_news import RecordChanged, encode, logged, stamped
from server.store.base import Fenced, LogGap, encode_json, race_channel
from server.store.memory_bus import MemoryBus
from server.store.records import Listed
from server.store.roles import Races


class MemoryRaces(Races):
    def __init__(self, bus: MemoryBus, max_ended: int, forgotten: Callable[[str], None]) -> None:
        self.bus = bus
        self.max_ended = max_ended  # ended races kept at most (the oldest go first)
        self.forgotten = forgotten  # told of each race dropped (its review may go too)
        self._races: dict[str, str] = {}
        self._results: dict[str, str] = {}
        # race -> racer -> log: the entries the race made (no copy: about 100 bytes each)
        self._logs: dict[str, dict[str, list[LogEntry]]] = {}
        self._live: dict[str, set[str]] = {}  # live race -> its racers
        self._listed: dict[str, set[str]] = {"live": set(), "open": set(), "watchable": set()}
        self._fences: dict[tuple[str, str], int] = {}  # (race, player) -> claimed fence
        self._player_races: dict[str, set[str]] = {}
        self._expiring: list[tuple[float, str]] = []  # (when, race): ended races to drop

    async def load_race(self, race: str) -> dict[str, Any] | None:
        return _loaded(self._races.get(race))

    async def save_race_if(
        self, race: str, record: dict[str, Any], version: int, listed: Listed
    ) -> bool:
        stored = _loaded(self._races.get(race))
        if (stored["version"] if stored else 0) != version:
            return False
        self._races[race] = encode_json({**record, "version": version + 1})
        self._list(race, listed)
        news = encode(RecordChanged(version + 1, self.bus.wiring.node))
        self.bus.tell(race_channel(race), stamped(news, now().wall_ms))
        return True

    def _list(self, race: str, listed: Listed) -> None:
        for kind, on in (
            ("live", listed.live),
            ("open", listed.open),
            ("watchable", listed.watchable),
        ):
            (self._listed[kind].add if on else self._listed[kind].discard)(race)
        self._link(race, set(listed.racers) if listed.live else set())

    async def load_races(self, races: Sequence[str]) -> list[dict[str, Any] | None]:
        return [_loaded(self._races.get(race)) for race in races]

    async def listed_races(self, kind: str) -> list[str]:
        return sorted(self._listed[kind])

    def _append(
        self, race: str, batch: Sequence[LogEntry], fence: int = 1, after: int = -1
    ) -> None:
        """A player's seqs grow along their log: one not above their last is a resend;
        a fence below the racer's claimed one is refused, and so is a batch decided on top
        of an entry above the log's newest (``after``: ``LogGap``)."""
        logs = self._logs.setdefault(race, {})
        if batch and after >= 0:
            held = logs.get(batch[0].player) or []
            if (held[-1].seq if held else 0) < after:
                player = batch[0].player
                raise LogGap(f"{player}'s log in race {race} ends below {after}", player)
        for entry in batch:
            if fence < self._fences.get((race, entry.player), 0):
                raise Fenced(f"{entry.player} was taken over in race {race}")
            log = logs.get(entry.player)
            if log is None:
                log = logs[entry.player] = []
            if not log or entry.seq > log[-1].seq:
                log.append(entry)

    async def racer_log(self, race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        log = self._logs.get(race, {}).get(player, [])
        return [entry for entry in log if entry.seq > after_seq]

    async def racers_logged(self, race: str) -> list[str]:
        return sorted(self._logs.get(race, {}))

    async def claim_racer(self, race: str, player: str, fence: int) -> bool:
        if fence < self._fences.get((race, player), 0):
            return False
        self._fences[(race, player)] = fence
        return True

    async def load_result(self, race: str) -> dict[str, Any] | None:
        return _loaded(self._results.get(race))

    async def player_races(self, player: str) -> list[str]:
        return sorted(self._player_races.get(player, ()))

    def append_job(self, job: AppendActions) -> None:
        """An ``AppendActions`` job: logged, then told to the nodes following the race."""
        self._append(job.race, job.entries, job.fence, job.after)
        channel = race_channel(job.race)
        if self.bus.hears(channel):
            node = self.bus.wiring.node
            for player, entries in sorted(_by_player(job.entries).items()):
                news = encode(logged(node, player, entries))
                self.bus.tell(channel, stamped(news, now().wall_ms))

    def end(self, job: EndRace) -> None:
        """An ``EndRace`` job: the final record (unless another version is stored), the
        result, no listing; the race is dropped when its time is up."""
        stored = _loaded(self._races.get(job.race))
        if stored is None or stored["version"] == job.version:
            self._races[job.race] = encode_json({**job.record, "version": job.version + 1})
        self._results[job.race] = encode_json(job.result)
        self._list(job.race, Listed(False, False, False, ()))
        self._expire(job.race, job.keep_s)

    def _link(self, race: str, players: set[str]) -> None:
        """``players`` are the racers of live ``race`` now (an empty set: none, it ended)."""
        before = self._live.get(race, set())
        for player in before - players:
            self._player_races.get(player, set()).discard(race)
        for player in players - before:
            self._player_races.setdefault(player, set()).add(race)
        if players:
            self._live[race] = players
        else:
            self._live.pop(race, None)

    def _expire(self, race: str, keep_s: int) -> None:
        """Forget ended races whose time is up, or the oldest beyond ``max_ended`` (this
        process's memory is the only copy), and note when ``race``'s time will be up."""
        now = time.monotonic()
        while self._expiring and (
            self._expiring[0][0] <= now or len(self._expiring) >= self.max_ended
        ):
            _, old = heapq.heappop(self._expiring)
            for kept in (self._races, self._results, self._logs):
                kept.pop(old, None)
            self.forgotten(old)
            for key in [key for key in self._fences if key[0] == old]:
                del self._fences[key]
        heapq.heappush(self._expiring, (now + (keep_s or float("inf")), race))


def _by_player(entries: Sequence[LogEntry]) -> dict[str, list[LogEntry]]:
    """Each player's entries of a batch, in order."""
    players: dict[str, list[LogEntry]] = {}
    for entry in entries:
        players.setdefault(entry.player, []).append(entry)
    return players


def _loaded(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value: dict[str, Any] = json.loads(text)
    return value
