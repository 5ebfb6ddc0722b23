"""Carries out what the desks decide: each effect (``server/effects.py``) becomes a queued
event, a spectator feed item, a store job, a timer, or a race let go.

It also runs the act hot path's second half: the reply and the effects of an accepted
action wait until its log entry is written (``Writer``), and an action whose entry could
not be written is taken back and answered ``store_unavailable`` (``history_lost`` when the
store refused it as decided on top of actions it lost), and the race is then read back
from the store (``server/read_back.py``). What a race's failure or timer decides is the
race service's; this module only carries it out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable

from protocol.messages import Error
from protocol.race import Now
from server import read_back
from server.answers import Answer, Answers
from server.client import Client
from server.effects import (
    ActDecision,
    AfterAnswer,
    Effects,
    Follow,
    Forget,
    Post,
    PostAct,
    Push,
    PushAnywhere,
    Rate,
    Rewatch,
    StartAt,
    Write,
)
from server.jobs import AppendActions
from server.race_service import RaceService
from server.read_back import HISTORY_LOST, HISTORY_LOST_SENTENCE
from server.relay import Relay
from server.replica import lost_under
from server.retrying import until_the_store_takes_it
from server.rooms import Room
from server.sessions import Sessions
from server.spectating import SpectatingDesk
from server.store import Fenced, LogGap, StoreError
from server.store.base import STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
from server.writer import Writer

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


def now() -> Now:
    return Now(int(time.monotonic() * 1000), int(time.time() * 1000))


class Executor:
    def __init__(
        self,
        races: RaceService,
        spectating: SpectatingDesk,
        sessions: Sessions,
        writer: Writer,
        relay: Relay,
        answers: Answers,
        let_go: Callable[[str], None],
    ) -> None:
        """``let_go(player)``: another node holds the player now (their write was fenced)."""
        self.races = races
        self.spectating = spectating
        self.sessions = sessions
        self.writer = writer
        self.relay = relay
        self.answers = answers
        self.let_go = let_go
        self.reconciling: set[asyncio.Task[None]] = set()

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
            if write.on_written is not None:
                write.on_written()
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
            elif kind is StartAt:
                assert isinstance(effect, StartAt)
                delay_s = max(0.0, effect.mono_ms / 1000 - time.monotonic())
                loop = asyncio.get_running_loop()
                effect.room.start_handle = loop.call_later(delay_s, self.begin, effect.room)
            elif kind is Forget:
                assert isinstance(effect, Forget)
                self.races.forget(effect.room)
                self.spectating.forgotten(effect.room, effect.reason)
                self.relay.unfollow(effect.room)
            elif kind is Rewatch:
                assert isinstance(effect, Rewatch)
                self.spectating.rewatch(effect.room, effect.reason)
            elif kind is Follow:
                assert isinstance(effect, Follow)
                self.relay.follow(effect.room)
            elif kind is PushAnywhere:
                assert isinstance(effect, PushAnywhere)
                self.relay.push_anywhere(effect.player, effect.event)
            elif kind is Rate:
                assert isinstance(effect, Rate)
                task = asyncio.create_task(self._rate(effect.room))
                self.reconciling.add(task)
                task.add_done_callback(self.reconciling.discard)
            else:
                raise TypeError(f"not an effect to carry out here: {effect!r}")

    async def _rate(self, room: Room) -> None:
        """Rate the race, however long the store is in trouble (the store rates a race
        once, so another node following it may have done it meanwhile)."""

        async def rate() -> None:
            self.run(await self.races.rate(room, now()))

        await until_the_store_takes_it(rate, "rating a race", race=room.id)

    def begin(self, room: Room) -> None:
        self.run(self.races.begin(room))

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
            self.races.stored(room, entry)
            answers.act_answered(client, decision.reply, read_at)
            self.run(decision.effects)
            return

        def written() -> None:
            self.races.stored(room, entry)
            answers.act_answered(client, decision.reply, read_at)
            self.run(decision.effects)

        def refused(error: StoreError) -> None:
            fenced = isinstance(error, Fenced)  # another node holds the player now
            if self.races.write_refused(room, entry.player, fenced, now()):
                self._reconcile(room)
            if fenced:
                self.let_go(entry.player)
                client.deferred -= 1  # no answer: this connection is closed
                return
            request_id = getattr(decision.reply, "id", None)
            if isinstance(error, LogGap) and error.player == entry.player:
                lost_under(room, entry.player, entry.seq)  # decided on lost actions
                error_reply = Error(request_id, "act", HISTORY_LOST, HISTORY_LOST_SENTENCE)
            else:
                error_reply = Error(
                    request_id, "act", STORE_UNAVAILABLE, STORE_UNAVAILABLE_SENTENCE
                )
            answers.act_answered(client, error_reply, read_at)

        self.writer.submit(job, written, refused)

    def _reconcile(self, room: Room) -> None:
        """Once the writes before it are settled, read ``room``'s race back from the store
        (a write whose answer was lost may have gone in) and take that as the truth; if the
        store lost it, write it again from what was stored before."""

        async def reconcile() -> None:
            while True:
                await self.writer.idle.wait()
                try:
                    effects = await read_back.reconcile(self.races, room, now(), self._fence_of)
                except StoreError:
                    await asyncio.sleep(RECONCILE_PAUSE_S)
                    continue
                self.run(effects)
                log.info("race read back from the store", extra={"race": room.id})
                return

        task = asyncio.create_task(reconcile())
        self.reconciling.add(task)
        task.add_done_callback(self.reconciling.discard)

    def _fence_of(self, player: str) -> int:
        """The fence this node writes ``player``'s logs with: their session's, if here."""
        session = self.sessions.get(player)
        return session.fence if session is not None else 1

    def stop(self) -> None:
        for task in self.reconciling:
            task.cancel()
