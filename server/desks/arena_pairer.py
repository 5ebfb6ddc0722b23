"""An arena's running (docs/arenas.md, "Running an arena"), by the node that holds the
arena's pairing lease (``store.arenas``: fenced, so a node that lost it never starts a
heat again), every ``PAIR_EVERY_S``:

1. at its start, every participant is checked against the entry conditions again (one who
   no longer meets them is withdrawn); the arena is ``running``;
2. each heat started and not yet scored whose race has been over ``SCORED_AT_END_MS`` is
   scored (``server/desks/arena_scoring.py``; a heat is scored as its race ends by its
   racers' node, so these are the heats that node left: it died, or the scoring failed),
   side by side with the wave (3) being paired and opened; a racer whose heat's result the
   tick read comes back from it then (their breather starts);
3. while it runs, the idle participants (active, not in a heat) are paired in one wave
   (``protocol/arena_pairing.py``): each heat is recorded under the lease, then its race
   opened with every racer in it (so it counts down by itself; those who chose risk mode
   named in its settings' ``risk``: no undo), all heats of the wave on one deal, and each
   racer told ``paired`` on whatever node holds their session; a heat that cannot open is
   undone (its half-made race left, the heat taken back) and its racers pair again;
4. after its end no heat starts; heats still running finish and count; once none is left
   the arena has ended: its final places go on the players' profiles.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Mapping

from protocol.arena_calendar import Arena
from protocol.arena_pairing import REPEAT_AFTER_MS, Idle, PairingRule, pair_wave, wave_deal
from protocol.games import rules_for
from protocol.player_events import Paired
from protocol.race import Now, RaceError, RaceSettings
from protocol.race_views import public_info
from protocol.ratings import Rating
from server.desks.arena_desk import ArenaDesk, status_at
from server.desks.arena_feed import FINISHING_MS, not_long_over
from server.desks.arena_known import KnownArena
from server.desks.arena_places import record_final_places
from server.desks.arena_scoring import HEATS_AT_ONCE, HeatScorer
from server.handover.effects import Effects, PushAnywhere
from server.races.race_desk import RaceDesk, new_id
from server.store import Store, StoreError
from server.store.arena_records import (
    ArenaRecord,
    ArenaRefused,
    HeatStart,
    Participant,
    StaleLease,
)

log = logging.getLogger("solrace.arenas")

PAIR_EVERY_S = 1.0
LEASE_MS = 10_000  # an arena's pairing lease: another node takes over this long after
HEATS_WAITED_MS = 30 * 60_000  # after its end an arena waits this long for heats running


class ArenaPairer:
    def __init__(
        self,
        store: Store,
        race_desk: RaceDesk,
        desk: ArenaDesk,
        node: str,
        repeat_after_ms: int = REPEAT_AFTER_MS,
    ) -> None:
        self.store = store
        self.race_desk = race_desk
        self.desk = desk
        self.node = node
        self.back_at: dict[tuple[str, str], int] = {}  # (arena, player) -> back from a heat
        self.secret = ""
        self.repeat_after_ms = repeat_after_ms  # ``--arena-repeat-after-ms``
        self.scorer = HeatScorer(store, race_desk, self.back_at)
        self.undoing: dict[str, set[HeatStart]] = {}  # arena -> heats whose undoing failed
        self.known: dict[str, KnownArena] = {}  # arena -> what was read under its token

    async def tick(self, moment: Now) -> Effects:
        """Run every arena of the calendar and the operators' that is stored and not
        ended."""
        effects: Effects = []
        made = await self.desk.made(moment.wall_ms - FINISHING_MS)
        for arena in not_long_over(self.desk.calendar, moment.wall_ms, made):
            try:
                effects += await self.run_arena(arena, moment)
            except (StoreError, ArenaRefused) as error:
                log.warning(
                    "running an arena failed", extra={"arena": arena.id, "error": str(error)}
                )
        return effects

    async def run_arena(self, arena: Arena, moment: Now) -> Effects:
        record = await self.store.arenas.arena(arena.id)
        if record is None or record.status in ("ended", "cancelled"):
            return []
        token = await self.store.arenas.take_lease(arena.id, self.node, LEASE_MS)
        if token is None:
            return []
        if record.status == "scheduled":
            await self._checked_again(arena, moment)
            await self.store.arenas.set_status(arena.id, "running")
        for heat in sorted(self.undoing.pop(arena.id, set()), key=lambda h: h.heat):
            await self._undone(arena, heat, token, moment)  # tried again: its racers freed
        try:
            known = await self._known(arena.id, token, moment.wall_ms)
            return await self._ran(arena, record, known, moment)
        except BaseException:  # what it knows may be part way: read it all again
            self.known.pop(arena.id, None)
            raise

    async def _known(self, arena: str, token: int, now_ms: int) -> KnownArena:
        """The arena as it is now: the log's tail read while the lease's token is the one
        it was read under; everything read again under a new one (another node may have
        paired meanwhile)."""
        known, back = self.known.get(arena), self.back_at
        if known is None or known.token != token:
            known = self.known[arena] = KnownArena(arena, token)
            scored = await known.read(self.store)
            ends = {heat.heat: now_ms for heat in scored}  # everyone breathes: few reads
        else:
            scored = await known.read_tail(self.store)
            scored = [h for h in scored if any(back.get((arena, p), 0) < h.at_ms for p in h.racers)]
            ends = await self.scorer.ends(scored, now_ms)
        for heat in scored:  # its racers are back from it, unless scored here (by then)
            for player in heat.racers:
                if back.get((arena, player), 0) < heat.at_ms:
                    back[(arena, player)] = ends[heat.heat]
        return known

    async def _ran(
        self, arena: Arena, record: ArenaRecord, known: KnownArena, moment: Now
    ) -> Effects:
        """One tick of a running (or ending) arena: the heats over scored, side by side
        with a wave paired; the arena ended once no heat is left."""
        running, over = await self.scorer.unscored(list(known.unscored.values()))
        left = known.left_over(over, moment.wall_ms)
        # the heats over left to the pairer are worked out (read, replayed, reviewed) and
        # scored while the wave is paired and opened
        scoring = asyncio.ensure_future(self.scorer.scoring(arena, left, moment))
        try:
            paired: Effects = []
            if status_at(arena, moment.wall_ms) == "running":
                paired = await self._wave(arena, known, running + over, moment)
            still, told = await scoring
        except Exception:  # the wave failed (or the scoring: then this fails alike)
            with contextlib.suppress(Exception):  # what scoring tells is owed, still
                self.race_desk.races.owed.add((await scoring)[1])
            raise
        finally:
            scoring.cancel()  # nothing once done; the node stopping
        if status_at(arena, moment.wall_ms) == "running":
            return told + paired
        if (
            not (running or still or len(left) < len(over))
            or moment.wall_ms - arena.end_ms > HEATS_WAITED_MS
        ):
            await self._ended(record)
        return told

    async def _checked_again(self, arena: Arena, moment: Now) -> None:
        """At its start, whoever no longer meets the entry conditions is withdrawn."""
        for participant in await self.store.arenas.participants(arena.id):
            if participant.status == "withdrawn":
                continue
            account = await self.store.accounts.account_of(participant.player)
            refusal = await self.desk.entry_refusal(
                arena, participant.player, account, moment.wall_ms
            )
            if refusal is not None:
                await self.store.arenas.change(
                    arena.id, participant.player, "withdraw", moment.wall_ms
                )
                log.info("withdrawn at the start", extra={"arena": arena.id, "code": refusal.code})

    async def _wave(
        self,
        arena: Arena,
        known: KnownArena,
        open_heats: list[HeatStart],
        moment: Now,
    ) -> Effects:
        """Pair the idle participants in one wave, all its heats on one deal (``known``:
        the arena's heats and log as they are now; ``open_heats``: those not scored)."""
        participants = await self.store.arenas.participants(arena.id)  # read once a wave
        idle, ratings = await self._idle(arena, known, open_heats, participants)
        # in a thread: 1,000 idle players in heats of 2 take ~0.2 s of CPU (bench arena-pairing)
        rule = PairingRule(arena.heat_size, repeat_after_ms=self.repeat_after_ms)
        wave = await asyncio.to_thread(pair_wave, idle, rule, moment.wall_ms)
        if not wave.heats:
            return []
        number = known.wave + 1
        deal = wave_deal(await self._secret(), arena.id, number)
        risky = frozenset(p.player for p in participants if p.risk)
        started = [
            HeatStart(new_id(), number, deal, racers, moment.wall_ms) for racers in wave.heats
        ]
        effects: Effects = []
        for first in range(0, len(started), HEATS_AT_ONCE):
            some = started[first : first + HEATS_AT_ONCE]
            opened = await asyncio.gather(
                *(self._started(arena, known, heat, risky, ratings, moment) for heat in some),
                return_exceptions=True,
            )
            for heat, result in zip(some, opened, strict=True):
                if isinstance(result, Exception):  # this heat only: the others are told
                    log.warning(
                        "an arena heat could not open",
                        extra={"arena": arena.id, "heat": heat.heat, "error": str(result)},
                    )
                elif isinstance(result, BaseException):  # cancelled: the node is stopping
                    raise result
                else:
                    effects += result
        log.info("arena wave", extra={"arena": arena.id, "wave": number, "heats": len(wave.heats)})
        return effects

    async def _started(
        self,
        arena: Arena,
        known: KnownArena,
        heat: HeatStart,
        risky: frozenset[str],
        ratings: Mapping[str, Rating],
        moment: Now,
    ) -> Effects:
        """The heat recorded under the lease, then its race opened (``HEATS_AT_ONCE`` heats
        of a wave side by side: a wave of 1,000 players, one heat after another, took
        seconds of store round trips, and 500 at once waited past the store's deadline for
        its connections), and known; nothing when another node pairs this arena now."""
        try:
            await self.store.arenas.start_heat(arena.id, heat, known.token)
            opened = await self._opened(arena, heat, risky, ratings, moment)
        except StaleLease:
            return []
        except Exception:  # its start's answer lost too: it may be recorded, so undone
            await self._undone(arena, heat, known.token, moment)
            raise
        known.started(heat)
        return opened

    async def _undone(self, arena: Arena, heat: HeatStart, token: int, moment: Now) -> None:
        """A heat that could not open strands nobody: the racers its half-made race holds
        leave it (the last one out closes it), then the heat is taken back (a heat whose
        start was never recorded: nothing to take back), so its racers are idle for the
        next wave (none of them was told ``paired``). When that fails too (or its answer is
        lost) it is tried again at the start of this node's next tick of the arena, under
        its lease then; a node that no longer holds the lease leaves the heat, which is
        scored as any other (a race that never opened, as nobody finishing after
        ``LOST_HEAT_MS``)."""
        try:
            try:
                room = await self.race_desk.races.find(heat.heat, moment)
            except RaceError:  # no race was made
                racers: list[str] = []
            else:
                racers = list(reversed(room.race.racers))  # the last one in first out
            for player in racers:
                _, left = await self.race_desk.leave_race(player, heat.heat, moment)
                self.race_desk.races.owed.add(left)
            await self.store.arenas.take_back_heat(arena.id, heat.heat, token)
        except (StoreError, RaceError) as error:
            self.undoing.setdefault(arena.id, set()).add(heat)
            log.warning(
                "an arena heat that could not open was not undone yet",
                extra={"arena": arena.id, "heat": heat.heat, "error": str(error)},
            )

    async def _idle(
        self,
        arena: Arena,
        known: KnownArena,
        open_heats: list[HeatStart],
        participants: list[Participant],
    ) -> tuple[list[Idle], dict[str, Rating]]:
        """The active participants in no heat (nor in one being undone), not removed; and
        their ratings in the arena's game (read once: their heats' badges show them)."""
        busy = {player for heat in open_heats for player in heat.racers}
        busy |= {p for heat in self.undoing.get(arena.id, ()) for p in heat.racers}
        busy |= known.scorer.removed
        table = known.scorer.table()
        rank = {standing.player: standing.rank for standing in table}
        last = known.last
        active = [p for p in participants if p.status == "active" and p.player not in busy]
        ratings = await self.store.accounts.ratings(arena.game, [p.player for p in active])
        idle = [
            idle_entry(
                p,
                rank.get(p.player, len(table) + 1),
                ratings.get(p.player, Rating()).rating,
                self.back_at.get((arena.id, p.player), 0),
                last.get(p.player, frozenset()),
            )
            for p in active
        ]
        return idle, {p.player: ratings.get(p.player, Rating()) for p in active}

    async def _opened(
        self,
        arena: Arena,
        heat: HeatStart,
        risky: frozenset[str],
        ratings: Mapping[str, Rating],
        moment: Now,
    ) -> Effects:
        """The heat's race opened, every racer in it (those of ``risky`` in risk mode: no
        undo; each with their rating as the wave read it), and each told ``paired``."""
        settings = RaceSettings(
            game=arena.game,
            options=dict(rules_for(arena.game).options),
            deal=heat.seed,
            max_players=len(heat.racers),
            public=True,
            countdown_ms=self.race_desk.settings.countdown_ms,
            nonce=secrets.token_hex(16),
            ranked=True,  # it counts: no live boards for spectators (docs/fairness.md)
            paired=True,
            arena=arena.id,
            risk=tuple(player for player in heat.racers if player in risky),
        )
        names = await self.desk.feed.names_of(list(heat.racers))
        first, *others = heat.racers
        room, effects = await self.race_desk.open_room(
            settings, first, names[first], moment, heat.heat, True, ratings.get(first)
        )
        for player in others:
            _, joined = await self.race_desk.join_race(  # the server's heat: never limited
                player,
                names[player],
                room.id,
                moment,
                account=True,
                limited=False,
                seat=True,
                rating=ratings.get(player),
            )
            effects += joined
        info = public_info(room.race)
        return [*effects, *(PushAnywhere(player, Paired(info)) for player in heat.racers)]

    async def _ended(self, record: ArenaRecord) -> None:
        """The final standings go on every placed player's profile; the arena is over. A
        clearing written before the status changed (its moderator saw the arena running,
        so did not write the places) is counted by writing them again."""
        counted = await record_final_places(self.store.arenas, record)
        await self.store.arenas.set_status(record.arena, "ended")
        self.known.pop(record.arena, None)
        if await self.store.arenas.log(record.arena, counted):
            await record_final_places(self.store.arenas, record)
        log.info("arena ended", extra={"arena": record.arena})

    async def _secret(self) -> str:
        """The deployment's secret the waves' deals are drawn from (the daily deals')."""
        if not self.secret:
            self.secret = await self.store.daily_secret(secrets.token_hex(16))
        return self.secret


def idle_entry(
    participant: Participant, rank: int, rating: float, back_ms: int, last: frozenset[str]
) -> Idle:
    """``participant`` as a wave sees them: idle since they joined, resumed or came back
    from a heat (``back_ms``), whichever was last; only the last gives a breather."""
    came = max(participant.joined_ms, participant.resumed_ms or 0)
    return Idle(
        participant.player, rank, rating, max(came, back_ms), last, from_heat=back_ms > came
    )
