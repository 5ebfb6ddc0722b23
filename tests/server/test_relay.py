"""The relay's own work (news from other nodes, pulls, pushes) stops cleanly with the
server: work cancelled before it began leaves no coroutine that was never awaited (a full
run once warned "coroutine 'Relay._pull.<locals>.pull' was never awaited"). And it
decides nothing: each piece of news is handed on as an input (``server/handover/inputs.py``)."""

from __future__ import annotations

import asyncio
import gc
import warnings
from types import SimpleNamespace

from server.carry.relay import Relay
from server.handover.inputs import LetGo
from server.handover.node_news import Logged, RecordChanged, TakenOver, encode
from server.store import MemoryStore, node_channel


async def test_work_cancelled_before_it_began_leaves_nothing_unawaited() -> None:
    relay = Relay("n", MemoryStore(), None, {})  # type: ignore[arg-type]
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        relay._spawn(work())
        relay.stop()  # before the loop ran the task once
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        gc.collect()
    assert started == []
    assert not [w for w in caught if "never awaited" in str(w.message)]
    assert not relay.tasks


class Handed:
    """Hands that only note what the relay hands them (``server/handover/ports.py``)."""

    def __init__(self) -> None:
        self.given: list[object] = []

    def hand(self, given: object) -> None:
        self.given.append(given)

    async def hand_reading(self, given: object) -> None:
        self.given.append(given)


async def test_the_relay_decides_nothing_it_hands_each_news_on_as_an_input() -> None:
    room = SimpleNamespace(id="r1", race=SimpleNamespace(racers={"ann": None}))
    relay = Relay("here", MemoryStore(), None, {"r1": room})  # type: ignore[arg-type,dict-item]
    hands = Handed()
    relay.listen(hands)  # type: ignore[arg-type]
    relay.heard("race:r1", encode(Logged("ann", "there", ((1, 100, "draw"),))))
    relay.heard("race:r1", encode(Logged("ann", "there")))  # not carried: the log is read
    relay.heard("race:r1", encode(RecordChanged(2, "there")))
    relay.heard("race:r1", encode(RecordChanged(3, "here")))  # its own: no news
    relay.heard(node_channel("here"), encode(TakenOver("bob", "there")))
    relay.heard("race:r9", encode(RecordChanged(2, "there")))  # a race not followed here
    await asyncio.sleep(0)
    kinds = [(type(given).__name__, getattr(given, "room", None)) for given in hands.given]
    assert kinds == [
        ("LogCarried", room),
        ("LetGo", None),
        ("PullDue", room),
        ("CaughtUpDue", room),
    ]
    assert hands.given[1] == LetGo("bob")
