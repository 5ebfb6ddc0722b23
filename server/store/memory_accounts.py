"""The memory store's accounts role: tokens' identities (kept as long as Redis would keep
them), accounts, ratings, players' past and the addresses they were seen on."""

from __future__ import annotations

import dataclasses
import heapq
import math
import time
from collections.abc import Sequence

from protocol.accounts import username_key, username_skeleton
from protocol.daily import previous_day
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating, race_updates
from server.handover.jobs import HISTORY_KEPT, RecordHistory, SaveIdentity
from server.store.account import Account
from server.store.base import DAYS_KEPT, RATINGS_KEPT, any_shared, relations_of
from server.store.memory_state import PlayerPast
from server.store.records import History, Identity, Relation
from server.store.roles import Accounts


class MemoryAccounts(Accounts):
    def __init__(self) -> None:
        self.identities: dict[str, Identity] = {}
        self.identity_until: dict[str, float] = {}  # token -> when it is forgotten
        self.identities_expiring: list[tuple[float, str]] = []  # (when, token), a heap
        self.tokens: dict[str, set[str]] = {}  # player -> their account's token hashes
        self.by_key: dict[str, Account] = {}  # username key -> account
        self.lookalikes: dict[str, str] = {}  # username skeleton -> the account's key
        self.usernames: dict[str, str] = {}  # player -> username
        self.kept_ratings: dict[str, dict[str, Rating]] = {}  # game -> player -> rating
        self.rated: set[tuple[str, str]] = set()  # (game, race) rated already
        self.pasts: dict[str, PlayerPast] = {}
        self.rating_histories: dict[tuple[str, str], list[tuple[int, int]]] = {}
        self.seen_on: dict[str, dict[str, set[str]]] = {}  # day -> account -> addresses
        self.sightings: dict[str, dict[str, int]] = {}  # account -> "how value" -> when
        self.seen_by: dict[str, dict[str, int]] = {}  # "how value" -> account -> when

    async def identity(self, token_hash: str) -> Identity | None:
        if self.identity_until.get(token_hash, math.inf) <= time.monotonic():
            return None  # kept no longer (forgotten at the next write)
        return self.identities.get(token_hash)

    async def revoke_tokens(self, player: str, token_hashes: Sequence[str] | None) -> None:
        listed = self.tokens.get(player, set())
        for token in list(listed if token_hashes is None else token_hashes):
            known = self.identities.get(token)
            if known is not None and known.player == player:
                del self.identities[token]
                self.identity_until.pop(token, None)
            listed.discard(token)
        if not listed:
            self.tokens.pop(player, None)

    async def create_account(self, account: Account) -> bool:
        key = username_key(account.username)
        if key in self.by_key or self.lookalikes.get(username_skeleton(key), key) != key:
            return False
        self.lookalikes[username_skeleton(key)] = key
        self.by_key[key] = account
        self.usernames[account.player] = account.username
        return True

    async def account(self, username: str) -> Account | None:
        return self.by_key.get(username_key(username))

    async def set_password_hash(self, username: str, password_hash: str) -> None:
        account = self.by_key.get(username_key(username))
        if account is not None:
            self.by_key[username_key(username)] = dataclasses.replace(
                account, password_hash=password_hash
            )

    async def account_of(self, player: str) -> str | None:
        return self.usernames.get(player)

    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        kept = self.kept_ratings.get(game, {})
        return {player: kept[player] for player in players if player in kept}

    async def rate_race(
        self, game: str, race: str, runs: Sequence[Run], now_ms: int, keep_s: int
    ) -> dict[str, tuple[Rating, Rating]] | None:
        if (game, race) in self.rated:
            return None
        self.rated.add((game, race))
        kept = self.kept_ratings.setdefault(game, {})
        before = {run.player: kept.get(run.player, DEFAULT) for run in runs}
        after = race_updates(runs, before, now_ms)
        kept.update(after)
        for player, rating in after.items():
            shown = self.rating_histories.setdefault((game, player), [])
            shown.append((now_ms, round(rating.rating)))
            del shown[:-RATINGS_KEPT]
        return {player: (before[player], rating) for player, rating in after.items()}

    async def was_rated(self, game: str, race: str) -> bool:
        return (game, race) in self.rated

    async def rating_history(self, game: str, player: str) -> list[tuple[int, int]]:
        return list(self.rating_histories.get((game, player), []))

    async def history(self, player: str) -> History:
        past = self.pasts.get(player)
        if past is None:
            return History([], {}, {}, [])
        recent = sorted(past.recent.values(), key=lambda e: e["at_ms"], reverse=True)
        days = sorted(past.days)[-DAYS_KEPT:]
        return History(
            recent, dict(past.played), dict(past.won), days, dict(past.finished), dict(past.time_ms)
        )

    async def note_address(self, day: str, player: str, address: str) -> None:
        for old in [seen for seen in self.seen_on if seen < previous_day(day)]:
            del self.seen_on[old]  # a day or two kept: only they are asked about
        self.seen_on.setdefault(day, {}).setdefault(player, set()).add(address)

    async def shared_address(self, day: str, players: Sequence[str]) -> bool:
        seen = self.seen_on.get(day, {})
        return any_shared([seen.get(player, set()) for player in players])

    async def note_sighting(
        self, player: str, how: str, value: str, at_ms: int, keep_ms: int
    ) -> None:
        sighting = f"{how} {value}"
        for table, key in ((self.sightings, player), (self.seen_by, sighting)):
            kept = table.setdefault(key, {})
            for old in [each for each, when in kept.items() if when < at_ms - keep_ms]:
                del kept[old]  # forgotten, as a Redis key left alone that long
        self.sightings[player][sighting] = self.seen_by[sighting][player] = at_ms

    async def related(self, player: str, since_ms: int) -> list[Relation]:
        return relations_of(player, self.sightings.get(player, {}), self.seen_by, since_ms)

    def record_history(self, job: RecordHistory) -> None:
        past = self.pasts.setdefault(job.player, PlayerPast())
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
        if job.finish_ms is not None:
            past.finished[job.game] = past.finished.get(job.game, 0) + 1
            past.time_ms[job.game] = past.time_ms.get(job.game, 0) + job.finish_ms

    def save_identity(self, job: SaveIdentity) -> None:
        self.identities[job.token_hash] = Identity(
            job.player, job.name, job.account or None, job.played
        )
        if job.account:
            self.tokens.setdefault(job.player, set()).add(job.token_hash)
        self._keep_identity(job.token_hash, job.keep_s)

    def _keep_identity(self, token: str, keep_s: int) -> None:
        """Keep ``token`` ``keep_s`` s (as Redis's EXPIRE); forget those whose time is up."""
        now = time.monotonic()
        while self.identities_expiring and self.identities_expiring[0][0] <= now:
            _, old = heapq.heappop(self.identities_expiring)
            if self.identity_until.get(old, math.inf) <= now:
                del self.identity_until[old]
                known = self.identities.pop(old, None)
                listed = self.tokens.get(known.player, set()) if known else set()
                listed.discard(old)
                if known is not None and not listed:
                    self.tokens.pop(known.player, None)
        self.identity_until[token] = until = now + keep_s
        heapq.heappush(self.identities_expiring, (until, token))
