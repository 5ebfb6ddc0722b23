"""One ``act``'s way through the server (docs/server.md, "One `act`, walked"): decided,
carried out, stored, answered, turning back once, where the store's write comes back. The
answer is sent by the executor through the connection's answers (``server/edge/answers.py``),
never by a closure of the gateway's."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from harness import player, running_server, winning_actions

from protocol.messages import Result, ServerMessage
from server.edge.lines import Line, Lines
from server.store import Store

GAME, DEAL = "mount_sunflower", 18
SERVER = Path(__file__).resolve().parents[2] / "server"
NOT_WATCHED = {SERVER / "store", SERVER / "bench"}  # the store's own modules are not counted


async def test_an_action_is_answered_by_the_executor_and_never_back_through_the_gateway(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    senders: list[list[str]] = []  # per act answer: the server modules on the stack, inner first
    send = Lines.write  # what writes on a player's line

    def watched(lines: Lines, line: Line, message: ServerMessage) -> None:
        if type(message) is Result and message.of == "act":
            frames = [Path(frame.filename) for frame in inspect.stack()[1:]]
            modules = [
                path.stem
                for path in frames
                if SERVER in path.parents and not NOT_WATCHED & set(path.parents)
            ]
            senders.append([m for i, m in enumerate(modules) if i == 0 or modules[i - 1] != m])
        send(lines, line, message)

    monkeypatch.setattr(Lines, "write", watched)
    async with running_server(store, countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        await ann.next_event("started")
        for action in winning_actions(GAME, DEAL)[:5]:
            await ann.act(race, action)
    if store.__class__.__name__ == "RedisStore":
        # the entry goes out in the writer's batch; when Redis has it, the writer hands it
        # back to the executor, which answers: the one turn
        assert senders == [["answers", "executor", "writer"]] * 5
    else:  # the memory store has it at once: straight on from the frame read to the answer
        assert senders == [["answers", "executor", "gateway", "connection"]] * 5
