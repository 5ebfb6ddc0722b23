"""Racing an arena in the terminal (``solrace play --arena ID``): enter it, then race each
heat the server puts you in (a fresh race screen each), with the standings between heats,
until the arena ends or you leave (``quit`` in a heat: you withdraw)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console

from client.terminal import racer_events, render
from client.terminal.connection import Link
from client.terminal.lines import LineReader
from client.terminal.racer import RacerScreen

HEAT_WAIT_S = 6 * 3600.0  # the longest an arena runs: waiting for a heat gives up then


async def race_arena(
    console: Console, link: Link, lines: LineReader, arena: str, risk: bool = False
) -> int:
    """Enter ``arena`` (in risk mode if ``risk``) and race its heats; the last heat's exit
    status."""
    client = link.client
    entered = await client.join_arena(arena, risk=risk)
    title = entered["arena"]["title"]
    console.print(f"You are in {title} ({arena}); heats start while it runs.")
    status = 0
    while True:
        event = await client.next_event(None, timeout=HEAT_WAIT_S, where=of_arena(arena))
        if event.kind == "arena_standings":
            me = event.data["me"]
            place = f"{render.ordinal(me['rank'])}, {me['points']} points" if me else "not placed"
            players = render.count(event.data["players"], "player")
            console.print(f"Standings: you are {place} ({players}).")
            if event.data["final"]:
                console.print(f"{title} is over.")
                return status
            continue
        if event.kind != "paired":
            continue
        screen = RacerScreen(console, link, lines)
        screen.adopt(event.data["race"])
        screen.say(f"Your heat: race {screen.race_id} starts soon.")
        status = await racer_events.run(screen)
        if screen.leaving:
            await client.change_arena(arena, "withdraw")
            console.print(f"You withdrew from {title}; your points stay.")
            return status


def of_arena(arena: str) -> Callable[[dict[str, Any]], bool]:
    """Whether an event's data is of ``arena``: its standings, or a heat of it."""

    def test(data: dict[str, Any]) -> bool:
        race = data.get("race")
        return data.get("arena") == arena or (isinstance(race, dict) and race.get("arena") == arena)

    return test
