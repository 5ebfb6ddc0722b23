"""The one part the executor hands inputs to (``server/handover/inputs.py``): what a write done or
refused, a timer, another node's news or a player gone leaves to decide, answered with
effects (``server/handover/effects.py``) for the executor to carry out. It asks the desks and the
race service that own each decision (the races followed here, a race's rating
``server/races/rating.py``, reading a race back ``server/races/read_back.py``, spectating, the
sessions) and calls nothing that carries out: whatever it leaves to do, it returns.

Each input type has one decision, listed in ``AT_ONCE`` (decided without the store) or
``READING`` (decided after reading it: a ``StoreError`` leaves nothing changed but what
was returned before, and the executor tries again where that is the rule).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from protocol.player_events import Started
from protocol.race import Phase
from protocol.race_views import racer_view
from server.config import Settings
from server.desks.arena_pairer import ArenaPairer
from server.desks.pairing import PairingDesk
from server.desks.session_desk import SessionDesk
from server.desks.spectating import SpectatingDesk
from server.handover.effects import Effects, Pull, Push, Reconcile, Retoken, Revoke
from server.handover.inputs import (
    ActRefused,
    ActStored,
    ArenaFeedDue,
    ArenaPairingDue,
    CaughtUpDue,
    EndWritten,
    FieldJudgeDue,
    Forgotten,
    GraceOver,
    HeatOverDue,
    Input,
    LetGo,
    LogCarried,
    LookAfterDue,
    LostWithNode,
    PairedHere,
    PairingDue,
    PullDue,
    RateDue,
    ReadBackDue,
    ReadingInput,
    ReconcileDue,
    Rewatched,
    StartDue,
    TimeLimitDue,
    TokenStored,
)
from server.races import read_back
from server.races.announcements import begin
from server.races.field_judge import judge_listed_runs
from server.races.followed import FollowedRaces
from server.races.log_sync import lost_under
from server.races.race_desk import RaceDesk
from server.races.rating import rate
from server.races.results import logs_keep_s
from server.state.sessions import Sessions
from server.store import Store

log = logging.getLogger("solrace.director")


class Deciding:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        node: str,
        sessions: Sessions,
        races: FollowedRaces,
        race_desk: RaceDesk,
        spectating: SpectatingDesk,
        pairing: PairingDesk,
        session_desk: SessionDesk,
        arenas: ArenaPairer,
    ) -> None:
        self.settings = settings
        self.store = store
        self.node = node
        self.sessions = sessions
        self.races = races
        self.race_desk = race_desk
        self.spectating = spectating
        self.pairing = pairing
        self.session_desk = session_desk
        self.arenas = arenas

    def decide(self, given: Input) -> Effects:
        """What ``given`` leaves to do, decided at once (``AT_ONCE``)."""
        return AT_ONCE[type(given)](self, given)

    async def decide_reading(self, given: ReadingInput) -> Effects:
        """What ``given`` leaves to do, decided after reading the store (``READING``)."""
        return await READING[type(given)](self, given)

    # ------------------------------------------------------------------ at once

    def act_stored(self, given: ActStored) -> Effects:
        self.races.stored(given.room, given.entry)
        return []

    def act_refused(self, given: ActRefused) -> Effects:
        """The action is taken back (the race read back from the store, once: a
        ``Reconcile``); a player another node holds now is let go here; one decided on
        top of lost actions has its seq spent with them."""
        room, player = given.room, given.entry.player
        effects: Effects = []
        if self.races.write_refused(room, player, given.fenced, given.moment):
            effects.append(Reconcile(room))
        if given.fenced:
            effects += self.session_desk.let_go(player)
        elif given.gap:
            lost_under(room, player, given.entry.seq)
        return effects

    def start_due(self, given: StartDue) -> Effects:
        return begin(given.room)

    def end_written(self, given: EndWritten) -> Effects:
        given.room.mark_stored()
        return []

    def forgotten(self, given: Forgotten) -> Effects:
        """The race is no longer followed here; its spectators are told."""
        self.races.forget(given.room)
        return self.spectating.forgotten(given.room, given.reason)

    def rewatched(self, given: Rewatched) -> Effects:
        return self.spectating.rewatch(given.room, given.reason)

    def let_go(self, given: LetGo) -> Effects:
        return self.session_desk.let_go(given.player)

    def token_stored(self, given: TokenStored) -> Effects:
        """An account's new token is stored: the guest's tokens are revoked, then the
        session is the account's, named by the new one."""
        return [
            Revoke(given.player, given.revoked),
            Retoken(given.player, given.token, given.account),
        ]

    def log_carried(self, given: LogCarried) -> Effects:
        """The carried entries applied when they continue the replica's log; else a
        ``Pull`` of the log."""
        room, player = given.room, given.player
        effects = self.races.carried(room, player, given.carried, given.moment)
        return [Pull(room, player)] if effects is None else effects

    def look_after(self, given: LookAfterDue) -> Effects:
        return self.races.look_after(given.room, given.moment)

    # ------------------------------------------------------------------ after reading

    async def rate_due(self, given: RateDue) -> Effects:
        return await rate(self.store, self.settings, given.room.race, given.moment)

    async def heat_over_due(self, given: HeatOverDue) -> Effects:
        """An ended arena heat is scored by one node: the one holding its first racer's
        session (none: the pairer scores it a little later)."""
        race = given.room.race
        if self.sessions.get(race.host) is None:
            return []
        return await self.arenas.scorer.scored_at_end(race, given.moment)

    async def reconcile_due(self, given: ReconcileDue) -> Effects:
        return await read_back.reconcile(self.races, given.room, given.moment, self._fence_of)

    def _fence_of(self, player: str) -> int:
        """The fence this node writes ``player``'s logs with: their session's, if here."""
        session = self.sessions.get(player)
        return session.fence if session is not None else 1

    async def read_back_due(self, given: ReadBackDue) -> Effects:
        return await read_back.read_back(self.races, given.room, given.moment)

    async def caught_up_due(self, given: CaughtUpDue) -> Effects:
        return await self.races.caught_up(given.room, given.moment)

    async def pull_due(self, given: PullDue) -> Effects:
        return await self.races.pull(given.room, given.player, given.moment)

    async def paired_here(self, given: PairedHere) -> Effects:
        """The race they are in now is followed here, then they are told; and, when it
        started before this node followed it (no countdown), that it started, with their
        cards (the start this node will never see)."""
        player, paired = given.player, given.paired
        room = await self.races.find(paired.race["race"], given.moment)
        effects: Effects = [Push(player, paired)]
        if room.race.phase is Phase.RUNNING and player in room.race.racers:
            effects.append(Push(player, Started(racer_view(room.race, player))))
        return effects

    async def grace_over(self, given: GraceOver) -> Effects:
        """Unless they came back or went to another node meanwhile, their races go on
        without them."""
        player = given.player
        if self.sessions.get(player) is not None:
            return []  # back (or signed in again) while the store was in trouble
        if await self.store.bus.player_node(player) not in (self.node, None):
            return []
        await self.store.pairing.leave_pool(player)
        return await self.race_desk.drop(player, given.moment)

    async def lost_with_node(self, given: LostWithNode) -> Effects:
        """Their races (all the store lists) go on without them."""
        races = await self.store.races.player_races(given.player)
        await self.store.pairing.leave_pool(given.player)
        return await self.race_desk.drop(given.player, given.moment, races)

    async def time_limit_due(self, given: TimeLimitDue) -> Effects:
        room = await self.races.find(given.race, given.moment)
        if room.race.phase is Phase.RUNNING and self.races.timed_out(room, given.moment):
            return await self.race_desk.time_out(room, given.moment)
        return []

    async def pairing_due(self, given: PairingDue) -> Effects:
        return await self.pairing.pair(given.moment)

    async def arena_pairing_due(self, given: ArenaPairingDue) -> Effects:
        return await self.arenas.tick(given.moment)

    async def arena_feed_due(self, given: ArenaFeedDue) -> Effects:
        return await self.arenas.desk.feed.tick(given.moment)

    async def field_judge_due(self, given: FieldJudgeDue) -> Effects:
        keep_s, hold = logs_keep_s(self.settings), self.settings.hold_flagged
        return await judge_listed_runs(self.store, given.moment, keep_s, hold)


AT_ONCE: dict[type, Callable[[Deciding, Any], Effects]] = {
    ActStored: Deciding.act_stored,
    ActRefused: Deciding.act_refused,
    StartDue: Deciding.start_due,
    EndWritten: Deciding.end_written,
    Forgotten: Deciding.forgotten,
    Rewatched: Deciding.rewatched,
    LetGo: Deciding.let_go,
    LogCarried: Deciding.log_carried,
    LookAfterDue: Deciding.look_after,
    TokenStored: Deciding.token_stored,
}
READING: dict[type, Callable[[Deciding, Any], Awaitable[Effects]]] = {
    RateDue: Deciding.rate_due,
    HeatOverDue: Deciding.heat_over_due,
    ReconcileDue: Deciding.reconcile_due,
    ReadBackDue: Deciding.read_back_due,
    CaughtUpDue: Deciding.caught_up_due,
    PullDue: Deciding.pull_due,
    PairedHere: Deciding.paired_here,
    GraceOver: Deciding.grace_over,
    LostWithNode: Deciding.lost_with_node,
    TimeLimitDue: Deciding.time_limit_due,
    PairingDue: Deciding.pairing_due,
    ArenaPairingDue: Deciding.arena_pairing_due,
    ArenaFeedDue: Deciding.arena_feed_due,
    FieldJudgeDue: Deciding.field_judge_due,
}
