"""The Redis store's batches: the writer's jobs (``server/handover/jobs.py``) as the raw Redis
commands of one pipelined round trip (``BatchBuilder``).

Pure: it sends and reads nothing, and does not import redis-py. The store
(``server/store/redis_store.py``) owns one builder; its ``BatchSender`` (``redis_sender``)
sends what it builds on the batch connection (``redis_wire``) and reads the replies; the
builder keeps what it must remember between batches: the racers already registered in
their live race, and each player's log hint. Keys are named by ``RedisKeys``
(``redis_keys``), as the store's reads name them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from protocol.race import LogEntry
from protocol.ranking import Run
from server.handover.jobs import (
    HISTORY_KEPT,
    AppendActions,
    EndRace,
    Job,
    KeepReview,
    RecordDaily,
    RecordHistory,
)
from server.handover.node_news import CARRIED_MAX, Logged, encode
from server.store.base import DAYS_KEPT, encode_json, race_channel, run_json
from server.store.redis_keys import RedisKeys
from server.store.redis_wire import Command

KNOWN_RACERS = 100_000  # racers remembered as registered in their live race (oldest forgotten)


@dataclass(frozen=True, slots=True)
class Shas:
    """The SHA-1s of the scripts a batch calls by their hash (``EVALSHA``): ``APPEND_LOG``,
    ``END_RACE``, ``RECORD_DAILY`` and ``RECORD_HISTORY`` (``redis_scripts``), as the
    store registered them."""

    append_log: str
    end_race: str
    record_daily: str
    record_history: str


class BatchBuilder:
    """Builds the commands of the writer's batches for the store whose keys are ``keys``,
    calling its scripts by their ``shas``. A day's keys live ``keep_daily_s`` seconds after
    their last write.
    """

    def __init__(self, keys: RedisKeys, shas: Shas, keep_daily_s: int) -> None:
        self.keys = keys
        self.shas = shas
        self.keep_daily_s = keep_daily_s
        # (race, player) whose log is known to be in the race's ``racers`` set already;
        # forgotten when the race ends (its log takes no more entries), and all of them
        # by the store when a batch may not have gone in (their SADD with it)
        self.known_racers: dict[tuple[str, str], None] = {}
        self._hints: dict[str, str] = {}  # player -> their log hint (see ``log_hint``)
        self._hints_node = ""

    def build(
        self, jobs: Sequence[Job], node: str, sent_ms: int | None = None
    ) -> tuple[list[Command], list[tuple[int, int]]]:
        """Every job's commands in order, for the store serving ``node``; and per job, (its
        first command, how many). The log messages say they were sent at ``sent_ms`` (wall
        clock; unsaid when None: ``node_news.stamped``)."""
        pipe = _Commands()
        spans: list[tuple[int, int]] = []
        for job in jobs:
            first = len(pipe.queued)
            self._queue(pipe, job, node, sent_ms)
            spans.append((first, len(pipe.queued) - first))
        return pipe.queued, spans

    def _queue(self, pipe: _Commands, job: Job, node: str, sent_ms: int | None = None) -> None:
        keys = self.keys
        if isinstance(job, AppendActions):
            # Each racer's log is a stream of its own whose entry ids are
            # ``<fence>-<seq>``: Redis refuses an id not above the last, so an action
            # written again (a lost answer, a resend) is never logged twice, and one
            # written by a node with a fence lower than the racer's claim is refused.
            # Nodes following the race hear of the entries in the same step (APPEND_LOG).
            if job.entries:
                pipe.queued.append(self.append_log_call(job, node, sent_ms))
            return
        if isinstance(job, EndRace):
            ended = [keys.race(job.race, part) for part in ("race", "result", "racers")]
            ended += [keys.log(job.race, racer["player"]) for racer in job.record["racers"]]
            pipe.evalsha(self.shas.end_race, 1, ended[0], job.version, encode_json(job.record))
            pipe.set(ended[1], encode_json(job.result))
            for kind in ("live", "open", "watchable"):
                pipe.srem(keys.key("races", kind), job.race)
            for racer in job.record["racers"]:
                pipe.srem(keys.player(racer["player"], "races"), job.race)
                self.known_racers.pop((job.race, racer["player"]), None)  # no more logging
            for key in ended if job.keep_s else ():
                pipe.expire(key, job.keep_s)
            return
        if isinstance(job, RecordDaily):
            daily, args = self.record_daily_call(job.game, job.day, job.run)
            pipe.evalsha(self.shas.record_daily, len(daily), *daily, *args)
            if job.awaits_field:  # the day's slot, as its board
                awaiting = keys.daily(job.game, job.day, "awaiting_field")
                pipe.sadd(awaiting, job.run.race)
                pipe.expire(awaiting, self.keep_daily_s)
            return
        if isinstance(job, KeepReview):
            # the first review counts; the flagged list is a hint (the review's status rules)
            expiry = ("EX", job.keep_s) if job.keep_s and job.review["status"] != "flagged" else ()
            pipe.queued.append(
                ("SET", keys.race(job.race, "review"), encode_json(job.review), "NX", *expiry)
            )
            if job.review["status"] == "flagged":
                pipe.queued.append(("ZADD", keys.flagged(), job.review["at_ms"], job.race))
            return
        if isinstance(job, RecordHistory):
            history = keys.history(job.player)
            day = job.day or ""
            words = [
                job.race,
                encode_json(job.entry),
                job.entry["at_ms"],
                int(job.counted),
                int(job.won),
                job.game,
                day,
                date.fromisoformat(day).toordinal() if day else 0,
                HISTORY_KEPT,
                DAYS_KEPT,
                job.keep_s,
                "" if job.finish_ms is None else job.finish_ms,
            ]
            pipe.evalsha(self.shas.record_history, len(history), *history, *words)
            return
        key = keys.key("token", job.token_hash)
        fields = {"player": job.player, "name": job.name, "account": job.account}
        pipe.hset(key, mapping={**fields, "played": "1" if job.played else ""})
        pipe.expire(key, job.keep_s)
        if job.account:
            listed = keys.player(job.player, "tokens")
            pipe.sadd(listed, job.token_hash)
            pipe.expire(listed, job.keep_s)

    def append_log_call(self, job: AppendActions, node: str, sent_ms: int | None = None) -> Command:
        """The EVALSHA of ``APPEND_LOG`` that appends ``job``'s entries and publishes, per
        racer, the message that carries them (``node_news.Logged``; the bare hint beyond
        ``CARRIED_MAX`` entries, or when one is refused), each stamped with ``sent_ms``
        when given. Runs once per player action."""
        sent = "" if sent_ms is None else f',"t":{sent_ms}'  # as node_news.stamped
        race, fence, known, names = job.race, job.fence, self.known_racers, self.keys
        by_player: dict[str, list[LogEntry]] = {}
        for entry in job.entries:
            entries = by_player.get(entry.player)
            if entries is None:
                entries = by_player[entry.player] = []
            entries.append(entry)
        players = sorted(by_player)
        keys: list[str | int] = [names.race(race, "racers")]
        words: list[str | int] = [names.channel(race_channel(race)), len(players)]
        index: dict[str, int] = {}
        for i, player in enumerate(players, 1):
            index[player] = i
            keys.append(names.log(race, player))
            new = (race, player) not in known
            if new:
                known[(race, player)] = None  # forgotten on failure
                if len(known) > KNOWN_RACERS:
                    del known[next(iter(known))]
            hint = self.log_hint(player, node)
            if sent:
                hint = f"{hint[:-1]}{sent}}}"
            entries = by_player[player]
            carried = hint
            if len(entries) <= CARRIED_MAX:
                listed = ",".join(
                    f"[{entry.seq},{entry.t_ms},{_json_string(entry.action)}]" for entry in entries
                )
                carried = f'{hint[:-1]},"e":[{listed}]}}'  # the hint is stamped already
            after = job.after if player == job.entries[0].player else -1
            words += [player, "1" if new else "0", carried, hint, after]
        for entry in job.entries:
            words += [index[entry.player], f"{fence}-{entry.seq}", entry.action, entry.t_ms]
        return ("EVALSHA", self.shas.append_log, len(keys), *keys, *words)

    def log_hint(self, player: str, node: str) -> str:
        """The message that tells nodes following a race that ``player``'s log moved on,
        sent by ``node`` (the same text for every action of theirs: built once per player;
        ``append_log_call`` adds the entries)."""
        if self._hints_node != node:
            self._hints.clear()
            self._hints_node = node
        hint = self._hints.get(player)
        if hint is None:
            hint = encode_json(encode(Logged(player, node)))
            if len(self._hints) >= KNOWN_RACERS:
                del self._hints[next(iter(self._hints))]
            self._hints[player] = hint
        return hint

    def record_daily_call(self, game: str, day: str, run: Run) -> tuple[list[str], list[str | int]]:
        """The keys and arguments of ``RECORD_DAILY`` for ``run`` (in a batch, and in the
        store's own ``record_daily``)."""
        keys = [
            self.keys.daily(game, day, "claims"),
            *self.keys.daily_board(game, day),
            *self.keys.best(game),
        ]
        args: list[str | int] = [
            run.player,
            run.race,
            score(run),
            run.member(),
            run_json(run),
            "1" if run.finished else "0",
            run.time_ms,
            run.actions,
            self.keep_daily_s,  # a day's keys live this long after their last write
        ]
        return keys, args


def score(run: Run) -> int:
    """The sorted-set score as an integer: exact, and read exactly by Redis."""
    return int(run.score())


_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii


class _Commands:
    """The commands of one batch, queued as a pipeline would queue them."""

    def __init__(self) -> None:
        self.queued: list[Command] = []

    def _add(self, *words: str | int) -> None:
        self.queued.append(words)

    def set(self, key: str, value: str) -> None:
        self._add("SET", key, value)

    def sadd(self, key: str, member: str) -> None:
        self._add("SADD", key, member)

    def srem(self, key: str, member: str) -> None:
        self._add("SREM", key, member)

    def expire(self, key: str, seconds: int) -> None:
        self._add("EXPIRE", key, seconds)

    def hset(self, key: str, mapping: dict[str, str]) -> None:
        self._add("HSET", key, *(word for pair in mapping.items() for word in pair))

    def evalsha(self, sha: str, keys: int, *words: str | int) -> None:
        self._add("EVALSHA", sha, keys, *words)
