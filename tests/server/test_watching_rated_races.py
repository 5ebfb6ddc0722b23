"""Spectators of a race that may count (``ranked``: a race the server paired, a ranked
daily attempt) see progress only while it runs: all its racers share one deal, so a card
one racer turns up may lie face down in another's position (a guest tab on the racer's
own address would show it to them). At its end the feed's ``result`` brings every board."""

from __future__ import annotations

import re
from typing import Any

from harness import player, running_server

from client.api import Client
from protocol.cards import name
from protocol.engine import GameState
from protocol.games import rules_for
from protocol.race import view_json
from protocol.replay import replay
from protocol.wire import decode_from_server

GAME = "mount_sunflower"  # one deck: every card is unique, so a leak is exact
CARD = re.compile(r"^(A|[2-9]|10|J|Q|K)[CSHD]$")


def cards_in(value: Any) -> set[str]:
    """Every card named anywhere in a decoded frame."""
    if isinstance(value, str):
        return {value} if CARD.match(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def hidden(state: GameState) -> set[str]:
    """The cards its racer cannot see: face down in the tableau, and the stock."""
    position = state.position
    down = {
        name(card)
        for pile, count in zip(position.tableau, position.face_down, strict=True)
        for card in pile[:count]
    }
    return down | {name(card) for card in position.stock}


async def paired(first: Client, second: Client) -> str:
    """``first`` and ``second`` wait for a quick race and are paired: its id, once both
    have the start."""
    await first.quick_race(GAME)
    await second.quick_race(GAME)
    race: str = (await first.next_event("paired")).data["race"]["race"]
    for client in (first, second):
        await client.next_event("started")
    return race


async def play_first_legal(client: Client, race: str, count: int) -> list[str]:
    """``count`` actions of ``client``'s, each the first legal one but ``undo``."""
    legal = (await client.snapshot(race))["you"]["legal"]
    played = []
    for _ in range(count):
        action = next(a for a in legal if a != "undo")
        legal = (await client.act(race, action, legal=True))["legal"]
        played.append(action)
    return played


def frames(client: Client) -> list[dict[str, Any]]:
    return [decode_from_server(frame, client.encoding) for frame in client.received]


async def test_a_spectator_of_a_rated_race_sees_no_card_face_down_in_a_racer_s_position() -> None:
    rules = rules_for(GAME)
    async with running_server(countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        sam = await player(server, "Sam", record=True)  # Bob's guest tab, say
        race = await paired(ann, bob)
        watched = await sam.spectate(race)
        assert watched["ranked"]
        played = await play_first_legal(ann, race, 12)
        for client in (ann, bob):
            await client.resign(race)
        result = (await sam.next_event("result")).data
        deal = int(result["deal"])  # shown at the race's end
        bob_hides = hidden(rules.start(deal))  # Bob never moved
        running = True
        for frame in frames(sam):
            if frame.get("kind") == "result":
                running = False
            if running:
                leaked = cards_in(frame) & bob_hides
                assert not leaked, f"{sorted(leaked)} face down in Bob's position: {frame}"
        assert watched["boards_live"] is False
        ends = {ann.player: replay(rules, deal, played), bob.player: rules.start(deal)}
        for racer, state in ends.items():
            assert result["boards"][racer] == view_json(rules.view(state))
        progress = [f for f in frames(sam) if f.get("kind") == "progress"]
        assert [f["actions"] for f in progress] == list(range(1, len(played) + 1))
        for client in (ann, bob, sam):
            await client.close()
