"""Quick pairing: ``quick_race {game}`` puts a player in the game's pool (kept in the store,
so every node's players wait together); the node holding the ``timers`` lease pairs the
pools every ``PAIR_EVERY_S`` with the pure rule of ``protocol/pairing.py`` (close ratings,
the window widening with waiting time), takes each pair out of the pool in one step, and
opens a race for the two: both racers joined, so it counts down by itself. Each player is
told ``paired`` on whatever node holds their session (which follows the race from then on).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from protocol.deals import MAX_DEAL
from protocol.games import GAMES, rules_for
from protocol.pairing import WINDOW, Waiting, Window, matches
from protocol.player_events import Paired
from protocol.players import is_bot
from protocol.race import Now, Phase, RaceError, RaceSettings
from protocol.race_views import public_info
from protocol.ratings import DEFAULT, aged
from server.handover.effects import Effects, PushAnywhere
from server.races.race_desk import RaceDesk
from server.store import Store

log = logging.getLogger("solrace.pairing")

PAIR_EVERY_S = 0.25
MAX_WAIT_MS = 30 * 60_000  # a player waiting this long alone is taken out of the pool


class PairingDesk:
    def __init__(
        self, store: Store, race_desk: RaceDesk, countdown_ms: int, window: Window = WINDOW
    ) -> None:
        self.store = store
        self.race_desk = race_desk
        self.countdown_ms = countdown_ms
        self.window = window

    async def join(
        self, player: str, name: str, account: bool, game: str, moment: Now, bots: bool = False
    ) -> dict[str, Any]:
        """``player`` waits in ``game``'s pool with their rating (a guest's is the new
        player's 1500), paired with a bot only if ``bots`` (a person asked for one).
        Refused while they race, or wait in another game's pool."""
        if any(room.race.phase is not Phase.DONE for room in self.race_desk.races.racing(player)):
            raise RaceError("finish or leave your race before racing someone new", "in_race")
        rating = DEFAULT
        if account:
            stored = await self.store.accounts.ratings(game, [player])
            rating = aged(stored.get(player, DEFAULT), moment.wall_ms)
        entry = {
            "player": player,
            "name": name,
            "rating": rating.rating,
            "joined_ms": moment.wall_ms,
            "account": account,
            "bots": bots,
        }
        waiting_in = await self.store.pairing.join_pool(game, entry)
        if waiting_in is not None and waiting_in != game:
            title = rules_for(waiting_in).title
            raise RaceError(
                f"you wait for a {title} race already: cancel it first", "already_waiting"
            )
        pool = await self.store.pairing.pool(game)
        mine = next((e for e in pool if e["player"] == player), entry)  # kept since it joined
        return {
            "game": game,
            "waiting": True,
            "rating": round(rating.rating),
            "bots": bots,
            "joined_ms": mine["joined_ms"],
            "waiting_players": len(pool),
            "window": {
                "start": round(self.window.start),
                "widen_per_s": round(self.window.widen_per_s),
                "unlimited_after_ms": self.window.unlimited_after_ms,
            },
        }

    async def cancel(self, player: str) -> dict[str, Any]:
        """``player`` stops waiting (nothing when they were not)."""
        return {"game": await self.store.pairing.leave_pool(player), "waiting": False}

    async def pair(self, moment: Now) -> Effects:
        """Pair every pool once (the lease holder calls this): open a race for each pair
        and tell both players."""
        effects: Effects = []
        for game in GAMES:
            entries = await self.store.pairing.pool(game)
            if not entries:
                continue
            by_player = {entry["player"]: entry for entry in entries}
            for entry in entries:
                if moment.wall_ms - entry["joined_ms"] > MAX_WAIT_MS:
                    await self.store.pairing.leave_pool(entry["player"])
                    del by_player[entry["player"]]
            waiting = [
                Waiting(
                    e["player"],
                    float(e["rating"]),
                    e["joined_ms"],
                    is_bot(e["player"]),
                    e.get("bots", False),
                )
                for e in by_player.values()
            ]
            for first, second in matches(waiting, moment.wall_ms, self.window):
                if await self.store.pairing.take_pair(game, first.player, second.player):
                    pair = (by_player[first.player], by_player[second.player])
                    effects += await self._open(game, pair, moment)
        return effects

    async def _open(
        self, game: str, pair: tuple[dict[str, Any], dict[str, Any]], moment: Now
    ) -> Effects:
        """A race of two on a random deal of ``game`` with its usual options, public, both
        racers in it (so it starts by itself), and a ``paired`` event for each."""
        host, guest = pair
        settings = RaceSettings(
            game=game,
            options=dict(rules_for(game).options),
            deal=secrets.randbelow(MAX_DEAL) + 1,
            max_players=2,
            public=True,
            countdown_ms=self.countdown_ms,
            nonce=secrets.token_hex(16),
            # says what will happen: a bot or a guest in it, and it is never rated
            ranked=all(p["account"] and not is_bot(p["player"]) for p in pair),
            paired=True,
        )
        room, effects = await self.race_desk.open_room(
            settings, host["player"], host["name"], moment, account=host["account"]
        )
        _, joined = await self.race_desk.join_race(
            guest["player"], guest["name"], room.id, moment, guest["account"], seat=True
        )
        info = public_info(room.race)
        log.info("paired", extra={"race": room.id, "players": [host["player"], guest["player"]]})
        told = [PushAnywhere(p["player"], Paired(info)) for p in pair]
        return [*effects, *joined, *told]
