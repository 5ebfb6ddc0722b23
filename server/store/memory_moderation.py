"""The moderation role of the in-memory store (``server/store/moderation.py``): reviews,
the flagged list and the audit log in this process, and the moderator's changes made on
the memory store's own boards, ratings and accounts."""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING, Any

from protocol.accounts import username_key, username_skeleton
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating
from server.jobs import KeepReview
from server.store.account import Account
from server.store.base import encode_json
from server.store.moderation import Moderation, ordered, renamed, taken_back

if TYPE_CHECKING:
    from server.store.memory import MemoryStore


class MemoryModeration(Moderation):
    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._reviews: dict[str, str] = {}  # race -> review JSON (forgotten with its race)
        self._flagged: set[str] = set()
        self._audit: list[str] = []

    def keep(self, job: KeepReview) -> None:
        """The first review of a race counts."""
        if job.race in self._reviews:
            return
        self._reviews[job.race] = encode_json(job.review)
        if job.review["status"] == "flagged":
            self._flagged.add(job.race)

    def forget(self, race: str) -> None:
        """``race`` is forgotten: its review goes too, unless it waits for a moderator."""
        if race not in self._flagged:
            self._reviews.pop(race, None)

    async def review(self, race: str) -> dict[str, Any] | None:
        text = self._reviews.get(race)
        return json.loads(text) if text is not None else None

    async def flagged(self, limit: int) -> list[dict[str, Any]]:
        return ordered([json.loads(self._reviews[race]) for race in self._flagged])[:limit]

    async def settle(self, race: str, expected: str, review: dict[str, Any], keep_s: int) -> bool:
        text = self._reviews.get(race)
        if text is None or json.loads(text)["status"] != expected:
            return False
        self._reviews[race] = encode_json(review)
        self._flagged.discard(race)
        return True

    async def drop_daily_run(self, game: str, day: str, run: Run) -> None:
        state = self.store._days.get((game, day))
        for board in (state.board if state else None, self.store._best.get(game)):
            if board is not None and (entry := board.get(run.player)) and entry.race == run.race:
                board.remove(run.player)

    async def take_back_ratings(self, game: str, changes: dict[str, tuple[Rating, Rating]]) -> None:
        kept = self.store._ratings.setdefault(game, {})
        for player, (before, after) in changes.items():
            kept[player] = taken_back(kept.get(player, DEFAULT), before, after)

    async def close_account(self, username: str) -> Account | None:
        key = username_key(username)
        account = self.store._accounts.get(key)
        if account is None:
            return None
        self.store._accounts[key] = dataclasses.replace(account, closed=True)
        await self.store.revoke_tokens(account.player, None)
        return self.store._accounts[key]

    async def rename_account(self, username: str, new_username: str) -> Account | None:
        store, old_key, new_key = self.store, username_key(username), username_key(new_username)
        account = store._accounts[old_key]
        skeleton = username_skeleton(new_key)
        owner = store._lookalikes.get(skeleton, new_key)
        if (new_key in store._accounts and new_key != old_key) or owner not in (new_key, old_key):
            return None
        if store._lookalikes.get(username_skeleton(old_key)) == old_key:
            del store._lookalikes[username_skeleton(old_key)]
        del store._accounts[old_key]
        renamed_account = dataclasses.replace(account, username=new_username)
        store._lookalikes[skeleton] = new_key
        store._accounts[new_key] = renamed_account
        store._account_of[account.player] = new_username
        await store.revoke_tokens(account.player, None)
        boards = [state.board for state in store._days.values()] + list(store._best.values())
        for board in boards:
            entry = board.get(account.player)
            if entry is not None:
                board.put(renamed(entry, account.player, new_username))
        return renamed_account

    async def audit(self, entry: dict[str, Any]) -> None:
        self._audit.append(encode_json(entry))

    async def audit_log(self, limit: int) -> list[dict[str, Any]]:
        return [json.loads(text) for text in reversed(self._audit[-limit:])]
