"""The moderation role of the in-memory store (``server/store/moderation.py``): reviews,
the flagged list and the audit log in this process, and the moderator's changes made on
the memory store's own boards, ratings and accounts."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from protocol.accounts import username_key, username_skeleton
from protocol.ranking import Run
from protocol.ratings import DEFAULT, Rating
from server.handover.jobs import KeepReview
from server.store.account import Account
from server.store.base import encode_json
from server.store.memory_accounts import MemoryAccounts
from server.store.memory_days import MemoryDays
from server.store.moderation import Moderation, ordered, renamed, taken_back


class MemoryModeration(Moderation):
    def __init__(self, accounts: MemoryAccounts, days: MemoryDays) -> None:
        self.accounts = accounts
        self.days = days
        self._reviews: dict[str, str] = {}  # race -> review JSON (forgotten with its race)
        self._flagged: set[str] = set()
        self._audit: list[str] = []
        self._awaiting: dict[tuple[str, str], set[str]] = {}  # (game, day) -> races

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

    async def waiting(self) -> int:
        return len(self._flagged)

    async def settle(self, race: str, expected: str, review: dict[str, Any], keep_s: int) -> bool:
        text = self._reviews.get(race)
        if text is None or json.loads(text)["status"] != expected:
            return False
        self._reviews[race] = encode_json(review)
        if review["status"] == "flagged":
            self._flagged.add(race)
        else:
            self._flagged.discard(race)
        return True

    def await_field(self, game: str, day: str, race: str) -> None:
        """A ``RecordDaily`` job's ``awaits_field``."""
        self._awaiting.setdefault((game, day), set()).add(race)

    async def awaiting_field(self, game: str, day: str) -> list[str]:
        return sorted(self._awaiting.get((game, day), ()))

    async def field_judged(self, game: str, day: str, race: str) -> None:
        self._awaiting.get((game, day), set()).discard(race)

    async def drop_daily_run(self, game: str, day: str, run: Run) -> None:
        state = self.days.by_day.get((game, day))
        for board in (state.board if state else None, self.days.best.get(game)):
            if board is not None and (entry := board.get(run.player)) and entry.race == run.race:
                board.remove(run.player)

    async def take_back_ratings(self, game: str, changes: dict[str, tuple[Rating, Rating]]) -> None:
        kept = self.accounts.kept_ratings.setdefault(game, {})
        for player, (before, after) in changes.items():
            kept[player] = taken_back(kept.get(player, DEFAULT), before, after)

    async def close_account(self, username: str) -> Account | None:
        key = username_key(username)
        account = self.accounts.by_key.get(key)
        if account is None:
            return None
        self.accounts.by_key[key] = dataclasses.replace(account, closed=True)
        await self.accounts.revoke_tokens(account.player, None)
        return self.accounts.by_key[key]

    async def rename_account(self, username: str, new_username: str) -> Account | None:
        accounts, old_key, new_key = (
            self.accounts,
            username_key(username),
            username_key(new_username),
        )
        account = accounts.by_key[old_key]
        skeleton = username_skeleton(new_key)
        owner = accounts.lookalikes.get(skeleton, new_key)
        if (new_key in accounts.by_key and new_key != old_key) or owner not in (new_key, old_key):
            return None
        if accounts.lookalikes.get(username_skeleton(old_key)) == old_key:
            del accounts.lookalikes[username_skeleton(old_key)]
        del accounts.by_key[old_key]
        renamed_account = dataclasses.replace(account, username=new_username)
        accounts.lookalikes[skeleton] = new_key
        accounts.by_key[new_key] = renamed_account
        accounts.usernames[account.player] = new_username
        await accounts.revoke_tokens(account.player, None)
        boards = [state.board for state in self.days.by_day.values()] + list(
            self.days.best.values()
        )
        for board in boards:
            entry = board.get(account.player)
            if entry is not None:
                board.put(renamed(entry, account.player, new_username))
        return renamed_account

    async def audit(self, entry: dict[str, Any]) -> None:
        self._audit.append(encode_json(entry))

    async def audit_log(self, limit: int) -> list[dict[str, Any]]:
        return [json.loads(text) for text in reversed(self._audit[-limit:])]
