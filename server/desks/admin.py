"""The moderators' desk: ``admin`` requests (``solrace admin``), authenticated by the
server's admin token (``--admin-token``), never by a player's account.

A moderator lists the flagged fair-play reviews (``server/races/fairplay.py``) and decides
each: ``clear`` puts a held daily run on the boards, rates a held race, or counts a held
arena heat (a ``Cleared`` entry in its arena's log; the players fair play removed for it
stay removed); ``void`` takes a run off the boards, or a race's rating changes back (a
held one, an arena heat's too, simply never counts). They can also close or rename an
account, and make an operator's arena (``arena_create``). Every change is appended to the
audit log in the store, with the moderator's reason and address; so is every read
(``flagged``, ``review``, ``audit``) and every wrong token (``"refused": "not_admin"``).

Wrong tokens are limited beyond the connection's budget: after ``ADMIN_PER_ADDRESS`` of
them from one address, or ``ADMIN_OVERALL`` from all addresses together (counted in the
store, so every node counts together), admin requests from that address, or from
everyone, are refused (``rate_limited``) until ``FAILURES_KEPT_S`` pass without one: the
right token too, so a guesser learns nothing even by luck.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from protocol.arena import Cleared
from protocol.arena_calendar import MINUTE_MS, operator_arena
from protocol.arena_entry import EntryConditions
from protocol.errors import SolraceError
from protocol.messages import Admin
from protocol.race import Now
from server.config import Settings
from server.desks.accounts import FAILURES_KEPT_S
from server.desks.arena_desk import record_of
from server.desks.arena_places import record_final_places
from server.races.fairplay import (
    CLEARED,
    DECISIONS,
    VOIDED,
    review_changes,
    review_runs,
    with_changes,
)
from server.races.results import logs_keep_s
from server.store import Store

log = logging.getLogger("solrace.admin")

ADMIN_PER_ADDRESS = 5  # wrong admin tokens from one address before its requests are refused
ADMIN_OVERALL = 20  # wrong admin tokens from all addresses before every request is refused
READS = frozenset({"flagged", "review", "audit"})
CHANGES = frozenset({"clear", "void", "close_account", "rename_account"})  # need a reason
OPERATOR = "operator"  # who made an operator's arena, when the request names nobody


class AdminError(SolraceError):
    """An admin request that cannot be done: its code and a sentence saying why."""


class AdminDesk:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.moderation = store.moderation
        self.token = settings.admin_token
        self.keep_s = logs_keep_s(settings)

    async def answer(self, request: Admin, moment: Now, address: str) -> dict[str, Any]:
        """Do what ``request`` asks, if its token is the admin token."""
        if self.token is None:
            raise AdminError("this server takes no admin requests (no --admin-token)", "no_admin")
        await self._check_token(request, moment, address)
        if request.command in CHANGES and not request.reason:
            raise AdminError(f"{request.command} needs a reason (for the audit log)", "no_reason")
        answer: dict[str, Any]
        if request.command == "flagged":
            answer = {"reviews": await self.moderation.flagged(request.limit)}
        elif request.command == "audit":
            answer = {"entries": await self.moderation.audit_log(request.limit)}
        elif request.command == "review":
            answer = {"review": await self._review(request)}
        elif request.command in ("clear", "void"):
            answer = {"review": await self._decide(request, moment)}
        elif request.command == "arena_create":
            answer = {"arena": await self._arena(request, moment)}
        else:
            answer = {"account": await self._account(request)}
        entry = await self._audit(request, moment, address)
        if request.command not in READS:
            log.warning("moderator's action", extra=entry)
        return answer

    async def _check_token(self, request: Admin, moment: Now, address: str) -> None:
        """Refuse a request from an address (or a deployment) that guessed too often, then
        one whose token is wrong (counted, logged and audited)."""
        assert self.token is not None
        limits = self.store.limits
        scopes = (f"admin-address:{address}", "admin-all")
        counts = [await limits.failures(scope) for scope in scopes]
        if counts[0] >= ADMIN_PER_ADDRESS or counts[1] >= ADMIN_OVERALL:
            raise AdminError("too many wrong admin tokens: wait 15 minutes", "rate_limited")
        if hmac.compare_digest(request.token.encode(), self.token.encode()):
            return
        for scope in scopes:
            await limits.note_failure(scope, FAILURES_KEPT_S)
        log.warning("an admin request with a wrong token", extra={"address": address})
        await self._audit(request, moment, address, refused="not_admin")
        raise AdminError("the admin token is wrong", "not_admin")

    async def _audit(
        self, request: Admin, moment: Now, address: str, refused: str | None = None
    ) -> dict[str, Any]:
        """Append what was asked, by whom, to the audit log; the entry."""
        entry = {
            "at_ms": moment.wall_ms,
            "command": request.command,
            "race": request.race,
            "username": request.username,
            "new_username": request.new_username,
            "title": request.title,
            "reason": request.reason,
            "address": address,
            "refused": refused,
        }
        kept = {k: v for k, v in entry.items() if v is not None}
        await self.moderation.audit(kept)
        return kept

    async def _review(self, request: Admin) -> dict[str, Any]:
        if request.race is None:
            raise AdminError(f"{request.command} needs the field 'race'", "missing_field")
        review = await self.moderation.review(request.race)
        if review is None:
            raise AdminError(f"race {request.race} has no fair-play review", "no_review")
        return review

    async def _decide(self, request: Admin, moment: Now) -> dict[str, Any]:
        """Clear or void a review; the boards and ratings follow."""
        review = await self._review(request)
        status = CLEARED if request.command == "clear" else VOIDED
        was = review["status"]
        if was not in DECISIONS[status]:
            raise AdminError(
                f"race {request.race}'s review is {was}: it cannot be {status}", "not_flagged"
            )
        decided = {**review, "status": status, "held": False}
        decided["decided"] = {"at_ms": moment.wall_ms, "reason": request.reason}
        kind, game, day = review["kind"], review["game"], review["day"]
        arena = review.get("arena")  # an arena heat: it scores arena points, never a rating
        if status == CLEARED and review["held"]:  # what was held counts now
            if arena is not None:  # where the clearing stands in the arena's log
                await self.store.arenas.append(arena, Cleared(review["race"]))
                record = await self.store.arenas.arena(arena)
                if record is not None and record.status == "ended":  # profiles follow
                    await record_final_places(self.store.arenas, record)
            elif kind == "daily":
                for run in review_runs(review):
                    await self.store.days.record_daily(game, day, run)
            else:
                changed = await self.store.accounts.rate_race(
                    game, review["race"], review_runs(review), moment.wall_ms, self.keep_s
                )
                decided = with_changes(decided, changed or {})
        if not await self.moderation.settle(review["race"], was, decided, self.keep_s):
            raise AdminError(f"race {request.race}'s review was decided meanwhile", "decided")
        if status == VOIDED and not review["held"]:  # it was public: it is taken back
            if kind == "daily":
                for run in review_runs(review):
                    await self.moderation.drop_daily_run(game, day, run)
            elif arena is None:  # an arena heat's points stay: its log has no taking back
                await self.moderation.take_back_ratings(game, review_changes(review))
        return decided

    async def _arena(self, request: Admin, moment: Now) -> dict[str, Any]:
        """An operator's arena, checked (``operator_arena``: ``bad_arena`` with a sentence)
        and stored, made by ``username`` (default ``operator``): listed and run as the
        calendar's are. ``arena_taken`` when another arena has its id."""
        fields = ("game", "key", "title", "start_ms", "minutes", "heat_size")
        given = {field: getattr(request, field) for field in fields}
        for field, value in given.items():
            if value is None:
                raise AdminError(f"arena_create needs the field {field!r}", "missing_field")
        arena = operator_arena(
            given["game"],
            given["key"],
            given["title"],
            given["start_ms"],
            given["minutes"] * MINUTE_MS,
            given["heat_size"],
            EntryConditions(request.rating_min, request.rating_max, request.min_rated_games),
            moment.wall_ms,
        )
        if not await self.store.arenas.create_arena(record_of(arena, request.username or OPERATOR)):
            raise AdminError(f"another arena is kept as {arena.id}", "arena_taken")
        return arena.as_dict()

    async def _account(self, request: Admin) -> dict[str, Any]:
        if request.username is None:
            raise AdminError(f"{request.command} needs the field 'username'", "missing_field")
        account = await self.store.accounts.account(request.username)
        if account is None:
            raise AdminError(f"there is no account {request.username}", "no_account")
        if request.command == "close_account":
            closed = await self.moderation.close_account(request.username)
            assert closed is not None
            return {"username": closed.username, "player": closed.player, "closed": True}
        if request.new_username is None:
            raise AdminError("rename_account needs the field 'new_username'", "missing_field")
        renamed = await self.moderation.rename_account(request.username, request.new_username)
        if renamed is None:
            raise AdminError(
                f"{request.new_username} (or a name that reads like it) is taken", "username_taken"
            )
        return {"username": renamed.username, "player": renamed.player, "closed": renamed.closed}
