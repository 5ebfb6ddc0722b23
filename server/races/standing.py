"""What ranked play costs an account, from the store: its good standing (its age and
finished games, ``protocol/standing.py``), the addresses, devices and token lineages
(``Seen``) it is seen on, and the accounts related to it (seen on one of them within
``RELATED_WINDOW_MS``) that have already started a day's daily challenge: a ranked run
of an account related to one of them is held for a moderator with that evidence
(``server/races/results.py``), and related accounts never rate each other
(``server/races/rating.py``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from protocol.daily import DAY_MS
from protocol.standing import StandingRule, standing
from server.config import Settings
from server.store import Relation, Store, StoreError

log = logging.getLogger("solrace.gateway")

RELATED_WINDOW_MS = 7 * DAY_MS  # accounts seen on one address or device this recently


@dataclass(frozen=True, slots=True)
class RankedGate:
    """What a daily attempt may count as: ranked only when ``allowed``; ``related``, the
    evidence of each related account that started the day's daily before it."""

    allowed: bool = True
    related: tuple[dict[str, Any], ...] = ()


def rule_of(settings: Settings) -> StandingRule:
    return StandingRule(settings.ranked_account_days, settings.ranked_account_games)


async def standing_of(
    store: Store, settings: Settings, player: str, account: str | None, now_ms: int
) -> dict[str, Any]:
    """``player``'s standing (``account``: their username; None: a guest)."""
    if account is None:
        return standing(rule_of(settings), None, 0, now_ms)
    kept = await store.accounts.account(account)
    finished = sum((await store.accounts.history(player)).finished.values())
    return standing(rule_of(settings), kept.created_ms if kept else 0, finished, now_ms)


async def told_standing(
    store: Store, settings: Settings, player: str, account: str | None, now_ms: int
) -> dict[str, Any] | None:
    """``standing_of`` for an answer that does not depend on it (``welcome``, ``register``,
    ``sign_in``, ``quick_race``): None when the store does not answer, so the request's
    own work is never undone by it (what counts is decided again where it counts)."""
    try:
        return await standing_of(store, settings, player, account, now_ms)
    except StoreError:
        log.warning("could not read a player's standing", extra={"player": player})
        return None


@dataclass(frozen=True, slots=True)
class Seen:
    """Where a connection shows an account: its ``address``, its client's ``device`` id
    (None: not given) and its token ``lineage``, the hashes of the tokens it presented at
    hello or held since (a guest's, the account's, another account's signed out)."""

    address: str
    device: str | None
    lineage: tuple[str, ...]


async def note_seen(store: Store, player: str, seen: Seen, now_ms: int) -> None:
    """An account was seen on ``seen``'s address, device (when given) and each token of its
    lineage: an account signed in or registered on a session that spoke for another is
    related to it (how ``session``)."""
    sightings = [("address", seen.address)]
    sightings += [("device", seen.device)] if seen.device else []
    sightings += [("session", token) for token in seen.lineage]
    for how, value in sightings:
        await store.accounts.note_sighting(player, how, value, now_ms, RELATED_WINDOW_MS)


async def related_to(store: Store, player: str, now_ms: int) -> list[Relation]:
    """The accounts related to ``player`` now."""
    return await store.accounts.related(player, now_ms - RELATED_WINDOW_MS)


async def related_starters(
    store: Store, player: str, game: str, day: str, now_ms: int
) -> tuple[dict[str, Any], ...]:
    """The evidence of each account related to ``player`` that has started ``day``'s
    ``game`` daily (claimed its attempt): who, how related, when seen so."""
    found = []
    for relation in await related_to(store, player, now_ms):
        if await store.days.ranked_attempt(game, day, relation.other) is None:
            continue
        username = await store.accounts.account_of(relation.other)
        found.append({**relation.as_dict(), "account": username, "player": relation.other})
    return tuple(found)


async def related_pair(store: Store, players: list[str], now_ms: int) -> bool:
    """Whether any two of ``players`` are related."""
    for player in players:
        if any(r.other in players for r in await related_to(store, player, now_ms)):
            return True
    return False


async def daily_gate(
    store: Store,
    settings: Settings,
    player: str,
    account: str | None,
    game: str,
    day: str,
    now_ms: int,
    registered_today: bool,
) -> tuple[RankedGate, dict[str, Any]]:
    """Whether a daily attempt of ``player``'s may be ranked (an account in good standing,
    not made today unless new accounts may rank), with the related accounts that started
    ``day``'s daily before it; and the player's standing, for the answer."""
    told = await standing_of(store, settings, player, account, now_ms)
    if account is None or told["code"] is not None or registered_today:
        return RankedGate(allowed=False), told
    return RankedGate(True, await related_starters(store, player, game, day, now_ms)), told
