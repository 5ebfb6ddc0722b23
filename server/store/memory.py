"""The in-memory store: everything in this process, lost when it stops (the default, so
``solrace serve`` needs nothing else). Ended races are kept for their retention time and
at most ``max_ended`` of them (10,000 by default), so memory stays bounded; boards,
identities expire as in Redis (``SaveIdentity.keep_s``); boards and daily claims are small
and kept while the process runs."""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import json
import math
import time
from collections.abc import Sequence
from typing import Any

from protocol.accounts import username_key, username_skeleton
from protocol.daily import previous_day
from protocol.race import LogEntry
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating, race_updates
from server.jobs import (
    HISTORY_KEPT,
    AppendActions,
    EndRace,
    Job,
    KeepReview,
    RecordDaily,
    RecordHistory,
)
from server.node_news import Logged, RecordChanged, decode, encode, logged
from server.store.base import (
    DAYS_KEPT,
    Account,
    Board,
    Fenced,
    History,
    Identity,
    Listed,
    Store,
    StoreError,
    any_shared,
    check_game,
    encode_json,
    log_batches,
    race_channel,
)
from server.store.memory_moderation import MemoryModeration
from server.store.memory_state import DailyState, PlayerPast, RankedRuns


class MemoryStore(Store):
    """Everything in this process's memory; lost when it stops.

    Atomic because no method awaits between reading and writing, so on one event loop
    nothing interleaves. Values are kept as the same JSON text Redis keeps, so both stores
    return equal copies and reject the same values.
    """

    shared = False  # one process: its node would hear only its own messages

    def __init__(self, max_ended: int = 10_000) -> None:
        self.max_ended = max_ended  # ended races kept at most (the oldest go first)
        self._secret: str | None = None
        self._signing_key: str | None = None
        self._public_keys: dict[str, str] = {}
        self._days: dict[tuple[str, str], DailyState] = {}
        self._best: dict[str, RankedRuns] = {}
        self._races: dict[str, str] = {}
        self._results: dict[str, str] = {}
        # race -> racer -> log: the entries the race made (no copy: about 100 bytes each)
        self._logs: dict[str, dict[str, list[LogEntry]]] = {}
        self._live: dict[str, set[str]] = {}  # live race -> its racers
        self._listed: dict[str, set[str]] = {"live": set(), "open": set(), "watchable": set()}
        self._fences: dict[tuple[str, str], int] = {}  # (race, player) -> claimed fence
        self._subscribed: set[str] = set()
        self._nodes: dict[str, float] = {}  # node -> alive until (monotonic)
        self._player_node: dict[str, str] = {}
        self._node_players: dict[str, set[str]] = {}
        self._player_races: dict[str, set[str]] = {}
        self._identities: dict[str, Identity] = {}
        self._lookalikes: dict[str, str] = {}  # username skeleton -> the account's key
        self._seen_on: dict[str, dict[str, set[str]]] = {}  # day -> account -> addresses
        self._identity_until: dict[str, float] = {}  # token -> when it is forgotten
        self._identities_expiring: list[tuple[float, str]] = []  # (when, token), a heap
        self._tokens: dict[str, set[str]] = {}  # player -> their account's token hashes
        self._accounts: dict[str, Account] = {}  # username key -> account
        self._account_of: dict[str, str] = {}  # player -> username
        self._attempts: dict[str, tuple[int, int]] = {}  # scope -> (window, count)
        self._failures: dict[str, tuple[int, float]] = {}  # scope -> (count, until)
        self._ratings: dict[str, dict[str, Rating]] = {}  # game -> player -> rating
        self._rated: set[tuple[str, str]] = set()  # (game, race) rated already
        self._pools: dict[str, dict[str, dict[str, Any]]] = {}  # game -> player -> entry
        self._histories: dict[str, PlayerPast] = {}
        self._waiting_in: dict[str, str] = {}  # player -> the game of their pool
        self._generations: dict[str, int] = {}
        self._leases: dict[str, tuple[str, float]] = {}  # name -> (holder, until, monotonic)
        self._expiring: list[tuple[float, str]] = []  # (when, race): ended races to drop
        self.moderation: MemoryModeration = MemoryModeration(self)

    def _day(self, game: str, day: str) -> DailyState:
        return self._days.setdefault((game, day), DailyState())

    async def daily_secret(self, proposed: str) -> str:
        if self._secret is None:
            self._secret = proposed
        return self._secret

    async def signing_key(self, proposed: str) -> str:
        if self._signing_key is None:
            self._signing_key = proposed
        return self._signing_key

    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        self._public_keys.setdefault(key_id, public_hex)
        return dict(self._public_keys)

    async def note_address(self, day: str, player: str, address: str) -> None:
        for old in [seen for seen in self._seen_on if seen < previous_day(day)]:
            del self._seen_on[old]  # a day or two kept: only they are asked about
        self._seen_on.setdefault(day, {}).setdefault(player, set()).add(address)

    async def shared_address(self, day: str, players: Sequence[str]) -> bool:
        seen = self._seen_on.get(day, {})
        return any_shared([seen.get(player, set()) for player in players])

    async def daily_deal(self, game: str, day: str) -> int | None:
        state = self._days.get((game, day))
        return state.deal if state else None

    async def set_daily_deal(self, game: str, day: str, number: int, nonce: str = "") -> int:
        state = self._day(game, day)
        if state.deal is None:
            state.deal, state.nonce = number, nonce
        return state.deal

    async def daily_nonce(self, game: str, day: str) -> str | None:
        state = self._days.get((game, day))
        return state.nonce if state and state.deal is not None else None

    async def claim_daily(self, game: str, day: str, player: str, attempt: str) -> bool:
        claims = self._day(game, day).claims
        return claims.setdefault(player, attempt) == attempt

    async def ranked_attempt(self, game: str, day: str, player: str) -> str | None:
        state = self._days.get((game, day))
        return state.claims.get(player) if state else None

    async def record_daily(self, game: str, day: str, run: Run) -> bool:
        return self._record_daily(game, day, run)

    def _record_daily(self, game: str, day: str, run: Run) -> bool:
        check_game(game, run)
        state = self._days.get((game, day))
        if state is None or state.claims.get(run.player) != run.race:
            return False
        recorded = state.board.get(run.player)
        if recorded is not None:
            return recorded == run
        state.board.put(run)
        if run.finished:
            self._offer(game, run)
        return True

    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        state = self._days.get((game, day))
        return (state.board if state else RankedRuns()).board(top, player, around)

    async def offer_best(self, game: str, run: Run) -> bool:
        check_game(game, run)
        return self._offer(game, run)

    def _offer(self, game: str, run: Run) -> bool:
        if not run.finished:
            return False
        board = self._best.setdefault(game, RankedRuns())
        stored = board.get(run.player)
        if stored == run:
            return True
        if stored is not None and not run.better_than(stored):
            return False
        board.put(run)
        return True

    async def best_board(
        self, game: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        return self._best.get(game, RankedRuns()).board(top, player, around)

    async def save_race(self, race: str, record: dict[str, Any]) -> None:
        self._races[race] = encode_json(record)

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
        self._tell(race_channel(race), encode(RecordChanged(version + 1, self.node)))
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

    async def append_actions(self, entries: list[tuple[str, LogEntry]]) -> None:
        for race, batch in log_batches(entries).items():
            self._append(race, batch)

    def _append(self, race: str, batch: Sequence[LogEntry], fence: int = 1) -> None:
        """A player's seqs grow along their log: one not above their last is a resend;
        a fence below the racer's claimed one is refused."""
        logs = self._logs.setdefault(race, {})
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

    async def save_result(self, race: str, result: dict[str, Any]) -> None:
        self._results[race] = encode_json(result)

    async def load_result(self, race: str) -> dict[str, Any] | None:
        return _loaded(self._results.get(race))

    async def live_races(self) -> list[str]:
        return sorted(self._listed["live"])

    async def player_races(self, player: str) -> list[str]:
        return sorted(self._player_races.get(player, ()))

    async def subscribe(self, channels: Sequence[str]) -> None:
        self._subscribed.update(channels)

    async def unsubscribe(self, channels: Sequence[str]) -> None:
        self._subscribed.difference_update(channels)

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        self._tell(channel, message)

    def _tell(self, channel: str, message: dict[str, Any]) -> None:
        """Hand a message to the listener, after this turn, if its channel is followed."""
        if self.listener is not None and channel in self._subscribed:
            if not self.hear_own_logs:
                news = decode(message)
                if isinstance(news, Logged) and news.node == self.node:
                    return  # this node's own
            asyncio.get_running_loop().call_soon(self.listener, channel, message)

    async def node_alive(self, node: str, ttl_ms: int) -> None:
        self._nodes[node] = time.monotonic() + ttl_ms / 1000

    async def nodes(self) -> dict[str, bool]:
        now = time.monotonic()
        return {node: until > now for node, until in self._nodes.items()}

    async def take_player(self, player: str, node: str) -> str | None:
        before = self._player_node.get(player)
        self._player_node[player] = node
        self._node_players.setdefault(node, set()).add(player)
        return before

    async def player_node(self, player: str) -> str | None:
        return self._player_node.get(player)

    async def node_players(self, node: str) -> list[str]:
        players = self._node_players.get(node, set())
        return sorted(p for p in players if self._player_node.get(p) == node)

    async def forget_node(self, node: str) -> None:
        self._nodes.pop(node, None)
        self._node_players.pop(node, None)

    async def identity(self, token_hash: str) -> Identity | None:
        if self._identity_until.get(token_hash, math.inf) <= time.monotonic():
            return None  # kept no longer (forgotten at the next write)
        return self._identities.get(token_hash)

    async def revoke_tokens(self, player: str, token_hashes: Sequence[str] | None) -> None:
        listed = self._tokens.get(player, set())
        for token in list(listed if token_hashes is None else token_hashes):
            known = self._identities.get(token)
            if known is not None and known.player == player:
                del self._identities[token]
                self._identity_until.pop(token, None)
            listed.discard(token)
        if not listed:
            self._tokens.pop(player, None)

    async def create_account(self, account: Account) -> bool:
        key = username_key(account.username)
        if key in self._accounts or self._lookalikes.get(username_skeleton(key), key) != key:
            return False
        self._lookalikes[username_skeleton(key)] = key
        self._accounts[key] = account
        self._account_of[account.player] = account.username
        return True

    async def account(self, username: str) -> Account | None:
        return self._accounts.get(username_key(username))

    async def set_password_hash(self, username: str, password_hash: str) -> None:
        account = self._accounts.get(username_key(username))
        if account is not None:
            self._accounts[username_key(username)] = dataclasses.replace(
                account, password_hash=password_hash
            )

    async def account_of(self, player: str) -> str | None:
        return self._account_of.get(player)

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        kept = self._ratings.get(game, {})
        return {player: kept[player] for player in players if player in kept}

    async def rate_race(
        self, game: str, race: str, runs: Sequence[Run], now_ms: int, keep_s: int
    ) -> dict[str, tuple[Rating, Rating]] | None:
        if (game, race) in self._rated:
            return None
        self._rated.add((game, race))
        kept = self._ratings.setdefault(game, {})
        before = {run.player: kept.get(run.player, DEFAULT) for run in runs}
        after = race_updates(runs, before, now_ms)
        kept.update(after)
        return {player: (before[player], rating) for player, rating in after.items()}

    async def history(self, player: str) -> History:
        past = self._histories.get(player)
        if past is None:
            return History([], {}, {}, [])
        recent = sorted(past.recent.values(), key=lambda e: e["at_ms"], reverse=True)
        return History(recent, dict(past.played), dict(past.won), sorted(past.days)[-DAYS_KEPT:])

    def _record_history(self, job: RecordHistory) -> None:
        past = self._histories.setdefault(job.player, PlayerPast())
        if job.race in past.seen:
            return
        past.seen.add(job.race)
        past.recent[job.race] = job.entry
        if len(past.recent) > HISTORY_KEPT:
            oldest = min(past.recent, key=lambda race: past.recent[race]["at_ms"])
            del past.recent[oldest]
        if job.counted:
            past.played[job.game] = past.played.get(job.game, 0) + 1
        if job.won:
            past.won[job.game] = past.won.get(job.game, 0) + 1
        if job.day:
            past.days.add(job.day)

    async def join_pool(self, game: str, entry: dict[str, Any]) -> str | None:
        waiting_in = self._waiting_in.get(entry["player"])
        if waiting_in is not None:
            return waiting_in
        self._pools.setdefault(game, {})[entry["player"]] = dict(entry)
        self._waiting_in[entry["player"]] = game
        return None

    async def leave_pool(self, player: str) -> str | None:
        game = self._waiting_in.pop(player, None)
        if game is not None:
            self._pools[game].pop(player, None)
        return game

    async def pool(self, game: str) -> list[dict[str, Any]]:
        return [dict(entry) for entry in self._pools.get(game, {}).values()]

    async def take_pair(self, game: str, first: str, second: str) -> bool:
        pool = self._pools.get(game, {})
        if first not in pool or second not in pool or first == second:
            return False
        for player in (first, second):
            del pool[player], self._waiting_in[player]
        return True

    async def count_attempt(self, scope: str, window_s: int) -> int:
        window = int(time.time()) // window_s
        counted, count = self._attempts.get(scope, (window, 0))
        count = count + 1 if counted == window else 1
        self._attempts[scope] = (window, count)
        return count

    async def failures(self, scope: str) -> int:
        count, until = self._failures.get(scope, (0, 0.0))
        return count if until > time.monotonic() else 0

    async def note_failure(self, scope: str, keep_s: int) -> int:
        count = await self.failures(scope) + 1
        self._failures[scope] = (count, time.monotonic() + keep_s)
        return count

    async def clear_failures(self, scope: str) -> None:
        self._failures.pop(scope, None)

    async def next_event_generation(self, player: str) -> int:
        self._generations[player] = self._generations.get(player, 0) + 1
        return self._generations[player]

    async def claim_lease(self, name: str, holder: str, ttl_ms: int) -> bool:
        now = time.monotonic()
        current = self._leases.get(name)
        if current is None or current[0] == holder or current[1] <= now:
            self._leases[name] = (holder, now + ttl_ms / 1000)
            return True
        return False

    async def release_lease(self, name: str, holder: str) -> None:
        if self._leases.get(name, ("", 0.0))[0] == holder:
            del self._leases[name]

    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        return self.write_now(jobs)

    def write_now(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        errors: list[StoreError | None] = []
        for job in jobs:
            try:
                self._do(job)
            except Fenced as fenced:
                errors.append(fenced)
            else:
                errors.append(None)
        return errors

    def _do(self, job: Job) -> None:
        if isinstance(job, AppendActions):
            self._append(job.race, job.entries, job.fence)
            channel = race_channel(job.race)
            if self.listener is not None and channel in self._subscribed:
                for player, entries in sorted(_by_player(job.entries).items()):
                    self._tell(channel, encode(logged(self.node, player, entries)))
        elif isinstance(job, EndRace):
            stored = _loaded(self._races.get(job.race))
            if stored is None or stored["version"] == job.version:
                self._races[job.race] = encode_json({**job.record, "version": job.version + 1})
            self._results[job.race] = encode_json(job.result)
            self._list(job.race, Listed(False, False, False, ()))
            self._expire(job.race, job.keep_s)
        elif isinstance(job, RecordDaily):
            self._record_daily(job.game, job.day, job.run)
        elif isinstance(job, RecordHistory):
            self._record_history(job)
        elif isinstance(job, KeepReview):
            self.moderation.keep(job)
        else:
            self._identities[job.token_hash] = Identity(
                job.player, job.name, job.account or None, job.played
            )
            if job.account:
                self._tokens.setdefault(job.player, set()).add(job.token_hash)
            self._keep_identity(job.token_hash, job.keep_s)

    def _keep_identity(self, token: str, keep_s: int) -> None:
        """Keep ``token`` ``keep_s`` s (as Redis's EXPIRE); forget those whose time is up."""
        now = time.monotonic()
        while self._identities_expiring and self._identities_expiring[0][0] <= now:
            _, old = heapq.heappop(self._identities_expiring)
            if self._identity_until.get(old, math.inf) <= now:
                del self._identity_until[old]
                known = self._identities.pop(old, None)
                listed = self._tokens.get(known.player, set()) if known else set()
                listed.discard(old)
                if known is not None and not listed:
                    self._tokens.pop(known.player, None)
        self._identity_until[token] = until = now + keep_s
        heapq.heappush(self._identities_expiring, (until, token))

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
            self.moderation.forget(old)
            for key in [key for key in self._fences if key[0] == old]:
                del self._fences[key]
        heapq.heappush(self._expiring, (now + (keep_s or float("inf")), race))

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        return None


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
