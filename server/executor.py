"""Carries out what the desks decide: each effect (``server/effects.py``) becomes a queued
event, a spectator feed item, a store job, a timer, or a race let go. It decides nothing:
what a timer, a write or a failure leaves to decide is handed to the decider as an input
(``server/inputs.py``: a start signal due, a race to rate or read back, an end written, a
race forgotten) and the effects it returns are carried out in turn. It imports no desk,
service or decider: it is given one (``server/ports.py``: ``Decider``).

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
from collections.abc import Coroutine
from typing import Any

from protocol.messages import Error
from server.answers import Answer, Answers
from server.client import Client
from server.effects import (
    ActDecision,
    AfterAnswer,
    Effect,
    Effects,
    Follow,
    Forget,
    Post,
    PostAct,
    Pull,
    Push,
    PushAnywhere,
    Rate,
    Reconcile,
    Rewatch,
    StartAt,
    Write,
)
from server.inputs import (
    ActRefused,
    ActStored,
    Forgotten,
    Input,
    RateDue,
    ReadingInput,
    ReconcileDue,
    Rewatched,
    StartDue,
)
from server.jobs import AppendActions
from server.moment import now
from server.ports import Decider, Outlet
from server.relay import Relay
from server.retrying import until_the_store_takes_it
from server.rooms import Room
from server.sessions import Sessions
from server.store import Fenced, LogGap, StoreError
from server.store.base import (
    HISTORY_LOST,
    HISTORY_LOST_SENTENCE,
    STORE_UNAVAILABLE,
    STORE_UNAVAILABLE_SENTENCE,
)
from server.writer import Writer

__all__ = ["Executor", "followed", "now"]

log = logging.getLogger("solrace.executor")
RECONCILE_PAUSE_S = 0.5  # between tries to read a race back from the store


def followed(effects: Effects, answer: Answer) -> tuple[Effects, Answer]:
    """``effects`` but their ``AfterAnswer``s, and ``answer`` running those once it is sent."""
    afters = [effect.run for effect in effects if type(effect) is AfterAnswer]
    if not afters:
        return effects, answer
    if answer.then is not None:
        afters.insert(0, answer.then)

    def then() -> None:
        for run in afters:
            run()

    rest = [effect for effect in effects if type(effect) is not AfterAnswer]
    return rest, dataclasses.replace(answer, then=then)


class Executor:
    def __init__(
        self,
        decider: Decider,
        sessions: Sessions,
        writer: Writer,
        relay: Relay,
        answers: Answers,
        outlet: Outlet,
    ) -> None:
        """Carries out what ``decider`` returns; the relay's news and the ``outlet``'s
        effects come here too (both are plugged in to this executor as it is built)."""
        self.decider = decider
        self.sessions = sessions
        self.writer = writer
        self.relay = relay
        self.answers = answers
        self.tasks: set[asyncio.Task[None]] = set()
        relay.listen(self)
        outlet.carrier = self

    # ------------------------------------------------------------------ handing inputs

    def hand(self, given: Input) -> None:
        """Hand ``given`` to the decider and carry out what it returns."""
        effects = self.decider.decide(given)
        if effects:
            self.run(effects)

    async def hand_reading(self, given: ReadingInput) -> None:
        """Hand ``given`` to the decider (which reads the store first) and carry out what
        it returns; its StoreError is raised, with nothing carried out."""
        self.run(await self.decider.decide_reading(given))

    # ------------------------------------------------------------------ effects

    def run(self, effects: Effects, answer: Answer | None = None) -> asyncio.Future[None] | None:
        """Carry out ``effects``: their writes first; then ``answer`` (a request's) and
        the rest, once the writes are done, however long the store takes (nothing is
        told before it is stored; the writes are never dropped). Returns a future done
        when all is carried out, or None when it was at once (nothing to write).
        ``AfterAnswer`` effects run right after ``answer`` is sent."""
        if answer is not None:
            effects, answer = followed(effects, answer)
        writes = [effect for effect in effects if type(effect) is Write]
        if not writes:
            if answer is not None:
                self.answers.send(answer)
            self._carry_out(effects)
            return None
        rest = [effect for effect in effects if type(effect) is not Write]
        loop = asyncio.get_running_loop()
        told: asyncio.Future[None] = loop.create_future()
        left = len(writes)

        def tell() -> None:
            if not told.done():
                told.set_result(None)
                if answer is not None:
                    self.answers.send(answer)
                self._carry_out(rest)

        def one_written(write: Write) -> None:
            nonlocal left
            if write.then is not None:
                self.hand(write.then)
            left -= 1
            if left == 0:
                tell()

        for write in writes:
            self.writer.submit(write.job, lambda write=write: one_written(write))  # type: ignore[misc]
        return told

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
                self.sessions.push(effect.player, effect.event)
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
            case Pull(room, player):
                self.relay.pull(room, player)
            case PushAnywhere(player, event):
                self.relay.push_anywhere(player, event)
            case Rate(room):
                self._spawn(self._rate(room))
            case Reconcile(room):
                self._spawn(self._reconcile(room))
            case _:
                raise TypeError(f"not an effect to carry out here: {effect!r}")

    def _start_due(self, room: Room) -> None:
        self.hand(StartDue(room))

    async def _rate(self, room: Room) -> None:
        """Hand the race over to be rated, however long the store is in trouble (the store
        rates a race once, so another node following it may have done it meanwhile)."""

        async def rate() -> None:
            await self.hand_reading(RateDue(room, now()))

        await until_the_store_takes_it(rate, "rating a race", race=room.id)

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
