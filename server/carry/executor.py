"""Carries out what the desks decide: each effect (``server/handover/effects.py``) becomes a queued
event, a spectator feed item, a store job, a timer, or a race let go. It decides nothing:
what a timer, a write or a failure leaves to decide is handed to the decider as an input
(``server/handover/inputs.py``: a start signal due, a race to rate or read back, an end written, a
race forgotten) and the effects it returns are carried out in turn. It imports no desk,
service or decider: it is given one (``server/handover/ports.py``: ``Decider``).

It also runs the act hot path's second half: the reply and the effects of an accepted
action wait until its log entry is written (``Writer``); an entry the store refused is
handed back (``ActRefused``: the decider takes the action back) and answered
``store_unavailable`` (``history_lost`` when it was decided on top of actions the store
lost).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from protocol.messages import Error
from server.carry.relay import Relay
from server.carry.retrying import until_the_store_takes_it
from server.carry.writer import Writer
from server.edge.answers import Answer, Answers
from server.edge.client import Client
from server.edge.lines import Line, Lines
from server.handover.effects import (
    ActDecision,
    AfterAnswer,
    Attach,
    Close,
    Effect,
    Effects,
    Follow,
    Forget,
    HangUp,
    Post,
    PostAct,
    Pull,
    Push,
    PushAnywhere,
    Rate,
    Reconcile,
    Retoken,
    Revoke,
    Rewatch,
    ScoreHeat,
    Send,
    StartAt,
    TellTaken,
    Write,
    WriteBehind,
)
from server.handover.inputs import (
    ActRefused,
    ActStored,
    Forgotten,
    HeatOverDue,
    Input,
    RateDue,
    ReadingInput,
    ReconcileDue,
    Rewatched,
    StartDue,
)
from server.handover.jobs import AppendActions
from server.handover.moment import now
from server.handover.ports import Decider, Owed
from server.state.rooms import Room
from server.store import Fenced, LogGap, Store, StoreError
from server.store.base import (
    HISTORY_LOST,
    HISTORY_LOST_SENTENCE,
    STORE_UNAVAILABLE,
    STORE_UNAVAILABLE_SENTENCE,
)

__all__ = ["Executor", "now"]

log = logging.getLogger("solrace.executor")
RECONCILE_PAUSE_S = 0.5  # between tries to read a race back from the store
STORED_FIRST = (Write, Revoke)  # carried out before the rest of their list (and its answer)


def _hanging_up(line: Line, hang_up: HangUp) -> Callable[[], Effects]:
    """What closes ``line`` after its answer, as ``hang_up`` asks."""

    def close() -> Effects:
        line.close(hang_up.code, hang_up.reason)
        return []

    return close


class Executor:
    def __init__(
        self,
        decider: Decider,
        lines: Lines,
        writer: Writer,
        relay: Relay,
        answers: Answers,
        owed: Owed,
        store: Store,
    ) -> None:
        """Carries out what ``decider`` returns, and what decisions ``owed`` whatever
        became of their request (taken first); the relay's news comes here too (the relay
        is plugged in to this executor as it is built). Players' lines (``lines``) are the
        edge's: what is sent goes out on them."""
        self.decider = decider
        self.lines = lines
        self.sessions = lines.sessions
        self.store = store
        self.writer = writer
        self.relay = relay
        self.answers = answers
        self.owed = owed
        self.tasks: set[asyncio.Task[None]] = set()
        relay.listen(self)

    # ------------------------------------------------------------------ handing inputs

    def hand(self, given: Input) -> None:
        """Hand ``given`` to the decider and carry out what it returns."""
        effects = self.decider.decide(given)
        if effects:
            self.run(effects)

    async def hand_reading(self, given: ReadingInput) -> None:
        """Hand ``given`` to the decider (which reads the store first) and carry out what
        it returns; its StoreError is raised, with nothing carried out but what it owes."""
        try:
            effects = await self.decider.decide_reading(given)
        finally:
            self.carry_out_owed()
        self.run(effects)

    def carry_out_owed(self) -> None:
        """Carry out what decisions owe (``Owed``), before anything decided after them."""
        if self.owed.effects:
            self.run(self.owed.take())

    # ------------------------------------------------------------------ effects

    def run(self, effects: Effects, answer: Answer | None = None) -> asyncio.Future[None] | None:
        """Carry out ``effects``: what they store first (``Write``, ``Revoke``); then
        ``answer`` (a request's) and the rest, once that is stored, however long the store
        takes (nothing is told before it is stored; the writes are never dropped); a
        write's ``then`` is decided once it is written, and what that stores is waited
        for too. Returns a future done when all is carried out, or None when it was at
        once (nothing to store). ``Attach`` comes first, ``AfterAnswer`` effects run right
        after ``answer`` is sent. What decisions owe is carried out first, on its own."""
        self.carry_out_owed()
        if answer is not None:
            effects, answer = self._followed(effects, answer)
        stored = [effect for effect in effects if type(effect) in STORED_FIRST]
        if not stored:
            if answer is not None:
                self.answers.send(answer)
            self._carry_out(effects)
            return None
        rest = [effect for effect in effects if type(effect) not in STORED_FIRST]
        told: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        left = len(stored)

        def one_stored(_: object = None) -> None:
            nonlocal left
            left -= 1
            if left == 0 and not told.done():
                told.set_result(None)
                if answer is not None:
                    self.answers.send(answer)
                self._carry_out(rest)

        def one_written(write: Write) -> None:
            after = self._then(write.then) if write.then is not None else None
            if after is None:
                one_stored()
            else:
                after.add_done_callback(one_stored)

        for effect in stored:
            if type(effect) is Write:
                self.writer.submit(effect.job, lambda write=effect: one_written(write))  # type: ignore[misc]
            else:
                assert isinstance(effect, Revoke)
                self._spawn(self._revoke(effect, one_stored))
        return told

    def _then(self, given: Input) -> asyncio.Future[None] | None:
        """Hand what a write leaves to decide; what it returns is carried out (a future
        while it is being stored)."""
        effects = self.decider.decide(given)
        return self.run(effects) if effects else None

    def _followed(self, effects: Effects, answer: Answer) -> tuple[Effects, Answer]:
        """``effects`` but the request's own: its ``Attach`` carried out now, on the
        connection that asked; its ``AfterAnswer``s run once ``answer`` is sent, and what
        they return carried out then, and its ``HangUp`` after them."""
        rest: Effects = []
        afters: list[Callable[[], Effects]] = []
        line = answer.client.line
        for effect in effects:
            if type(effect) is Attach:
                self.lines.attach(line, effect.session)
                answer.client.session = effect.session
            elif type(effect) is AfterAnswer:
                afters.append(effect.run)
            elif type(effect) is HangUp:
                afters.append(_hanging_up(line, effect))
            else:
                rest.append(effect)
        if not afters:
            return rest, answer
        before = answer.then

        def then() -> None:
            if before is not None:
                before()
            for run in afters:
                self._carry_out(run())

        return rest, dataclasses.replace(answer, then=then)

    def _carry_out(self, effects: Effects) -> None:
        mono_ms = 0
        for effect in effects:
            kind = type(effect)
            if kind is PostAct:
                assert isinstance(effect, PostAct)
                mono_ms = mono_ms or int(time.monotonic() * 1000)
                effect.room.post_act(effect.racer, effect.reply, mono_ms)
            elif kind is Push:
                assert isinstance(effect, Push)
                self.lines.push(effect.player, effect.event)
            elif kind is Post:
                assert isinstance(effect, Post)
                mono_ms = mono_ms or int(time.monotonic() * 1000)
                effect.room.post(effect.kind, effect.data, mono_ms, effect.racer)
            else:
                self._carry_out_other(effect)

    def _carry_out_other(self, effect: Effect) -> None:
        """The effects that are not on the hot path (timers, following, tasks)."""
        match effect:
            case StartAt(room, mono_ms):
                delay_s = max(0.0, mono_ms / 1000 - time.monotonic())
                loop = asyncio.get_running_loop()
                room.start_handle = loop.call_later(delay_s, self._start_due, room)
            case Forget(room, reason):
                self.hand(Forgotten(room, reason))
                self.relay.unfollow(room)
            case Rewatch(room, reason):
                self.hand(Rewatched(room, reason))
            case Follow(room):
                self.relay.follow(room)
            case WriteBehind(job):
                self.writer.submit(job)
            case TellTaken(player, previous):
                self.relay.taken(player, previous)
            case Pull(room, player):
                self.relay.pull(room, player)
            case PushAnywhere(player, event):
                self.relay.push_anywhere(player, event)
            case Send(player, message):
                self.lines.send(player, message)
            case Close(player, code, reason):
                self.lines.close(player, code, reason)
            case Retoken(player, token, account):
                self.sessions.became_account(player, token, account)
            case Rate(room):
                self._spawn(self._rate(room))
            case ScoreHeat(room):
                self._spawn(self._score_heat(room))
            case Reconcile(room):
                self._spawn(self._reconcile(room))
            case _:
                raise TypeError(f"not an effect to carry out here: {effect!r}")

    async def _revoke(self, revoke: Revoke, done: Callable[[], None]) -> None:
        """Revoke the tokens, however long the store is in trouble; then ``done``."""

        async def revoked() -> None:
            await self.store.accounts.revoke_tokens(revoke.player, list(revoke.token_hashes))

        await until_the_store_takes_it(revoked, "revoking tokens", player=revoke.player)
        done()

    def _start_due(self, room: Room) -> None:
        self.hand(StartDue(room))

    async def _rate(self, room: Room) -> None:
        """Hand the race over to be rated, however long the store is in trouble (the store
        rates a race once, so another node following it may have done it meanwhile)."""

        async def rate() -> None:
            await self.hand_reading(RateDue(room, now()))

        await until_the_store_takes_it(rate, "rating a race", race=room.id)

    async def _score_heat(self, room: Room) -> None:
        """Hand the ended heat over to be scored here; tried once: a heat left unscored is
        the pairer's to score (``server/desks/arena_known.py``, ``SCORED_AT_END_MS``)."""
        try:
            await self.hand_reading(HeatOverDue(room, now()))
        except Exception as error:
            log.warning(
                "an arena heat could not be scored as it ended",
                extra={"race": room.id, "error": str(error)},
            )

    async def _reconcile(self, room: Room) -> None:
        """Once the writes before it are settled, hand ``room`` over to be read back from
        the store (a write whose answer was lost may have gone in), until the store
        answers."""
        while True:
            await self.writer.idle.wait()
            try:
                await self.hand_reading(ReconcileDue(room, now()))
            except StoreError:
                await asyncio.sleep(RECONCILE_PAUSE_S)
                continue
            log.info("race read back from the store", extra={"race": room.id})
            return

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # ------------------------------------------------------------------ the act hot path

    def act(self, decision: ActDecision, client: Client, fence: int, read_at: float) -> None:
        """Answer ``client``'s ``act`` once its entry is written, then carry out what
        follows; without an entry, in its turn among the actions before it. ``read_at``:
        when the frame was read (``time.perf_counter``)."""
        answers = self.answers
        answers.act_pending(client)
        entry, room = decision.entry, decision.room
        if entry is None or room is None:
            if self.writer.at_once(None):
                answers.act_answered(client, decision.reply, read_at)
            else:
                self.writer.submit(
                    None, lambda: answers.act_answered(client, decision.reply, read_at)
                )
            return
        logged = room.race.racers[entry.player].log  # the entry is its last
        after = logged[-2].seq if len(logged) > 1 else 0
        job = AppendActions(room.id, (entry,), fence, after)
        if self.writer.at_once(job):  # the memory store: stored already
            self.hand(ActStored(room, entry))
            answers.act_answered(client, decision.reply, read_at)
            self.run(decision.effects)
            return

        def written() -> None:
            self.hand(ActStored(room, entry))
            answers.act_answered(client, decision.reply, read_at)
            self.run(decision.effects)

        def refused(error: StoreError) -> None:
            fenced = isinstance(error, Fenced)  # another node holds the player now
            gap = isinstance(error, LogGap) and error.player == entry.player
            self.hand(ActRefused(room, entry, fenced, gap, now()))
            if fenced:
                client.deferred -= 1  # no answer: this connection is closed
                return
            request_id = getattr(decision.reply, "id", None)
            if gap:
                error_reply = Error(request_id, "act", HISTORY_LOST, HISTORY_LOST_SENTENCE)
            else:
                error_reply = Error(
                    request_id, "act", STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
                )
            answers.act_answered(client, error_reply, read_at)

        self.writer.submit(job, written, refused)

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
