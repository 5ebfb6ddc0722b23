"""Profiles: what anyone may know of a player: their name and whether it is an account's,
their rating in each game, head-to-head races played and won, best ranked daily runs,
daily streak and latest races (each a race id: its log replays it)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import date, timedelta
from typing import Any

from protocol.daily import day_of
from protocol.games import GAMES
from protocol.players import is_bot
from protocol.race import Now, RaceError
from protocol.race_views import run_json
from protocol.ratings import aged
from server.races.results import rating_json
from server.store import Store
from server.store.records import History

RECENT_SHOWN = 20


class ProfileDesk:
    def __init__(self, store: Store) -> None:
        self.store = store

    async def profile(
        self, player: str | None, username: str | None, moment: Now
    ) -> dict[str, Any]:
        """The profile of ``player`` (an id) or of the account ``username``; RaceError
        ``player_not_found`` when nothing is known of them."""
        if username is not None:
            account = await self.store.accounts.account(username)
            if account is None:
                raise RaceError(f"there is no account {username!r}", "player_not_found")
            player = account.player
        assert player is not None
        name = await self.store.accounts.account_of(player)
        past = await self.store.accounts.history(player)
        if name is None and not past.recent:
            raise RaceError("nothing is known of this player", "player_not_found")
        today = day_of(moment.wall_ms)
        ratings = {}
        charts = {}
        best = {}
        for game in GAMES:
            rating = (await self.store.accounts.ratings(game, [player])).get(player)
            ratings[game] = rating_json(aged(rating, moment.wall_ms)) if rating else None
            charts[game] = [
                list(point) for point in await self.store.accounts.rating_history(game, player)
            ]
            board = await self.store.days.best_board(game, 1, player, 0)
            best[game] = (
                {"rank": board.me.rank, **run_json(board.me.run, False)} if board.me else None
            )
        return {
            "player": player,
            "name": name or past.recent[0]["name"],
            "account": name is not None,
            "bot": is_bot(player),
            "ratings": ratings,
            "races": {
                game: {"played": past.played.get(game, 0), "won": past.won.get(game, 0)}
                for game in GAMES
            },
            "finished": {game: finished_json(past, game) for game in GAMES},
            "rating_history": charts,
            "best_daily": best,
            "streak": streaks(past.days, today),
            "daily_today": {
                game: any(
                    e["mode"] == "daily" and e["game"] == game and e["day"] == today
                    for e in past.recent
                )
                for game in GAMES
            },
            "recent": past.recent[:RECENT_SHOWN],
            "arenas": [asdict(place) for place in await self.store.arenas.places(player)],
            "best_arena_place": await self.store.arenas.best_place(player),
        }


def finished_json(past: History, game: str) -> dict[str, int | None]:
    """How many races and daily runs of ``game`` the player finished, and their average
    time (ms, rounded; None before the first)."""
    count = past.finished.get(game, 0)
    average = round(past.time_ms.get(game, 0) / count) if count else None
    return {"count": count, "average_ms": average}


def streaks(days: list[str], today: str) -> dict[str, int]:
    """The current daily streak (consecutive days with a ranked run, ending today, or
    yesterday when today's is still to play) and the longest one, from the days in order."""
    ordinals = sorted({date.fromisoformat(day).toordinal() for day in days})
    longest = run = 0
    previous = None
    for ordinal in ordinals:
        run = run + 1 if previous is not None and ordinal == previous + 1 else 1
        longest = max(longest, run)
        previous = ordinal
    now = date.fromisoformat(today)
    last = {(now - timedelta(days=back)).toordinal() for back in (0, 1)}
    current = run if previous is not None and previous in last else 0
    return {"current": current, "longest": longest}
