"""An arena's heats scored (docs/arenas.md, "Running an arena", step 2). A heat is scored
as its race ends, by the node holding its first racer's session, once the race's end is
written (``scored_at_end``); the node that holds the arena's pairing lease
(``server/desks/arena_pairer.py``) scores the heats over that were not scored so within
``SCORED_AT_END_MS`` (their node died, or the scoring failed): up to ``HEATS_AT_ONCE`` side
by side, each failing alone. Either way the heat's race is read, replayed and reviewed by
fair play, then its result (placed by the races' one ranking rule) is appended to the
arena's log, once (a retry, a second node, or the pairer after the racers' node appends
nothing more). A heat whose race was never opened counts as nobody finishing it after
``LOST_HEAT_MS``; a heat fair play holds is held, and its flagged players are removed from
the arena.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

from protocol.arena import HeatResult, Racer, Removed, heat_from_runs
from protocol.arena_calendar import Arena
from protocol.phases import Phase
from protocol.player_events import Held
from protocol.race import LogEntry, Now, Race
from protocol.race_views import race_runs
from server.handover.effects import Effects, PushAnywhere
from server.handover.jobs import KeepReview
from server.races.fairplay import FLAGGED, history_times, review_of
from server.races.followed import restored
from server.races.race_desk import RaceDesk
from server.races.results import logs_keep_s
from server.store import Store
from server.store.arena_records import HeatStart

log = logging.getLogger("solrace.arenas")

HEATS_AT_ONCE = 32  # heats worked out (or opened) side by side at most: the store has 100
LOST_HEAT_MS = 60_000  # a heat whose race never opened is scored as nobody finishing

# a heat's result, its review, and when it ended (its racers came back from it)
Scoring = tuple[HeatResult, dict[str, Any] | None, int]


class HeatScorer:
    """Scores an arena's heats whose races are over; notes in ``back_at`` (shared with the
    pairer) when each racer came back from a heat."""

    def __init__(
        self, store: Store, race_desk: RaceDesk, back_at: dict[tuple[str, str], int]
    ) -> None:
        self.store = store
        self.race_desk = race_desk
        self.back_at = back_at
        self.reading = asyncio.Semaphore(HEATS_AT_ONCE)  # heats over worked out at once

    async def unscored(self, unscored: list[HeatStart]) -> tuple[list[HeatStart], list[HeatStart]]:
        """The heats of ``unscored`` (not scored yet) split: those running (the store lists
        their race live: one read of the list), and the others (their race is over, or was
        never opened)."""
        live = set(await self.store.races.listed_races("live"))
        return [h for h in unscored if h.heat in live], [h for h in unscored if h.heat not in live]

    async def scored_at_end(self, race: Race, moment: Now) -> Effects:
        """The arena heat ``race``, over and its end written, scored at once (nothing when
        its arena has ended or was cancelled: a heat still running when its arena closed
        counts nothing)."""
        assert race.settings.arena is not None
        record = await self.store.arenas.arena(race.settings.arena)
        if record is None or record.status in ("ended", "cancelled"):
            return []
        racers = tuple(race.racers)
        heat = HeatStart(race.id, 0, race.settings.deal, racers, race.start_wall or moment.wall_ms)
        scoring = await self._result(heat, moment)
        _, effects = await self._scored(record.arena, record.game, [heat], [scoring], moment)
        return effects

    async def ends(self, heats: list[HeatStart], now_ms: int) -> dict[str, int]:
        """When each of ``heats`` (scored) ended: its last racer's finish or retirement, as
        its race's record says (``now_ms`` when it cannot be read, or says none), so a
        racer back from a heat another node scored breathes from its end, not from when
        the pairer read its result."""

        async def end(heat: HeatStart) -> int:
            async with self.reading:
                return ended(await self.store.races.load_race(heat.heat), now_ms)

        read = await asyncio.gather(*(end(heat) for heat in heats), return_exceptions=True)
        return {
            heat.heat: now_ms if isinstance(at, BaseException) else at
            for heat, at in zip(heats, read, strict=True)
        }

    async def scoring(
        self, arena: Arena, over: list[HeatStart], moment: Now
    ) -> tuple[list[HeatStart], Effects]:
        """The heats of ``over`` worked out side by side, then scored in their order."""
        working = [asyncio.ensure_future(self._working_out(heat, moment)) for heat in over]
        try:
            scorings = await asyncio.gather(*working, return_exceptions=True)
        finally:
            for task in working:
                task.cancel()  # nothing once done; the node stopping
        return await self._scored(arena.id, arena.game, over, scorings, moment)

    async def _working_out(self, heat: HeatStart, moment: Now) -> Scoring | None:
        """``_result``, at most ``HEATS_AT_ONCE`` heats side by side (the store has 100
        connections, which the wave's heats opened meanwhile use too)."""
        async with self.reading:
            return await self._result(heat, moment)

    async def _scored(
        self,
        arena: str,
        game: str,
        over: list[HeatStart],
        scorings: list[Scoring | BaseException | None],
        moment: Now,
    ) -> tuple[list[HeatStart], Effects]:
        """Score every heat of ``over`` whose result was worked out, in the heats' order (a
        heat fair play holds is held, and its flagged players removed from the arena);
        the heats of ``over`` still unscored (their race not over, or its reading
        failed: read again on the next tick), and what scoring them tells."""
        still: list[HeatStart] = []
        effects: Effects = []
        for heat, scoring in zip(over, scorings, strict=True):
            if isinstance(scoring, Exception):  # this heat only
                log.warning(
                    "an arena heat's result could not be worked out",
                    extra={"arena": arena, "heat": heat.heat, "error": str(scoring)},
                )
            elif isinstance(scoring, BaseException):  # cancelled: the node is stopping
                raise scoring
            if not isinstance(scoring, tuple):
                still.append(heat)
                continue
            result, review, ended_ms = scoring
            if review is not None and review["status"] == FLAGGED:
                await self._keep(arena, result, review)  # first: a moderator may act on it
            await self.store.arenas.append(arena, result)
            for player in heat.racers:
                self.back_at[(arena, player)] = ended_ms
            if review is not None and result.held:  # flagged, and flagged runs are held
                effects += await self._removed(arena, game, result, review)
        return still, effects

    async def _keep(self, arena: str, result: HeatResult, review: dict[str, Any]) -> None:
        """A flagged heat's review is kept for a moderator (with its arena: a clearing is
        logged there), before the heat is scored."""
        kept = {**review, "arena": arena}
        keep_s = logs_keep_s(self.race_desk.settings)
        failed = (await self.store.write([KeepReview(result.heat, kept, keep_s)]))[0]
        if failed is not None:
            raise failed

    async def _removed(
        self, arena: str, game: str, result: HeatResult, review: dict[str, Any]
    ) -> Effects:
        """A held heat: each flagged player is removed from the arena (off the standings,
        every heat of theirs counted as not finished) and told ``held``."""
        flagged = sorted(p for p, judged in review["players"].items() if judged["reasons"])
        for player in flagged:
            await self.store.arenas.append(arena, Removed(player))
        log.warning("arena heat held", extra={"arena": arena, "heat": result.heat})
        held = Held(result.heat, game, "race")
        return [PushAnywhere(player, held) for player in flagged]

    async def _result(self, heat: HeatStart, moment: Now) -> Scoring | None:
        """The heat's result once its race is over (None while it runs), its fair-play
        review (None for a heat whose race never opened), and when it ended (``ended``)."""
        record = await self.store.races.load_race(heat.heat)
        if record is None or not record.get("racers"):
            if moment.wall_ms - heat.at_ms < LOST_HEAT_MS:
                return None
            unplayed = tuple(Racer(p, place, False, 0, 0) for place, p in enumerate(heat.racers, 1))
            return HeatResult(heat.heat, unplayed), None, moment.wall_ms
        if record["phase"] != Phase.DONE.value:
            return None
        actions = await self.store.races.actions(heat.heat)
        game = record["settings"]["game"]
        histories = {
            player: history_times(await self.store.accounts.history(player), game, heat.heat)
            for player in (racer["player"] for racer in record["racers"])
        }
        return worked_out(record, actions, histories, moment, self.race_desk.settings.hold_flagged)


def ended(record: dict[str, Any] | None, now_ms: int) -> int:
    """When the race of ``record`` ended: its last racer's finish or retirement (``now_ms``
    when it says none, or is later)."""
    done = [racer.get("done_at") or 0 for racer in (record or {}).get("racers", [])]
    return min(now_ms, max(done, default=0) or now_ms)


def worked_out(
    record: dict[str, Any],
    actions: list[LogEntry],
    histories: dict[str, list[int]],
    moment: Now,
    hold: bool,
) -> Scoring:
    """An ended heat's result from its race's ``record`` and ``actions`` (replayed), its
    fair-play review as a rated race's (``server/races/fairplay.py``: the racers' earlier
    finished times ``histories``; ``hold``: flagged runs held), and when it ended."""
    race = restored(record, actions, moment)
    undos = {p: sum(1 for a in r.log.actions() if a == "undo") for p, r in race.racers.items()}
    runs = race_runs(race)
    review = review_of(race, runs, moment.wall_ms, None, histories, hold)
    result = heat_from_runs(race.id, runs, frozenset(race.settings.risk), undos)
    return replace(result, held=review["held"]), review, ended(record, moment.wall_ms)
