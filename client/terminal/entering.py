"""The ways into a race for ``solrace play``: create one, join one, wait to be paired, start
the day's daily; and signing in first. Each says what it did, then the screen
(``RacerScreen``) plays the race."""

from __future__ import annotations

from typing import Any

from client.terminal import render
from client.terminal.racer import QUICK_WAIT_S, RacerScreen, join_command
from protocol.games import rules_for


async def create(
    screen: RacerScreen, game: str, options: dict[str, Any], deal: int | None, players: int
) -> None:
    info = await screen.link.client.create_race(
        game, options=options or None, deal=deal, max_players=players
    )
    screen.adopt(info)
    assert screen.rules is not None
    screen.say(
        f"Race {screen.race_id} created: {screen.rules.title} "
        f"({screen.rules.describe_options()}), {players} racer{'s' if players > 1 else ''}."
    )
    say_seal(screen)
    if players > 1:
        screen.say(f"Others join with:  {join_command(screen.link.client.url, screen.race_id)}")
        screen.say("It starts when it is full; type 'start' to start it sooner.")


def say_seal(screen: RacerScreen) -> None:
    """The deal's commitment, before play: the reveal at the end can be checked
    against it (docs/fairness.md)."""
    screen.say(f"Deal sealed before play: {screen.info['commitment']}", style="dim")


async def join(screen: RacerScreen, race_id: str) -> None:
    screen.adopt(await screen.link.client.join_race(race_id))
    assert screen.rules is not None
    names = ", ".join(map(render.shown_name, screen.players))
    screen.say(
        f"Joined race {screen.race_id}: {screen.rules.title} ({screen.rules.describe_options()}); "
        f"racers {names} ({len(screen.players)}/{screen.info['max_players']})."
    )
    say_seal(screen)


async def sign_in(
    screen: RacerScreen, username: str, password: str, register: bool = False
) -> None:
    client = screen.link.client
    if register:
        await client.register(username, password)
        screen.say(f"Account {username} created; you are signed in.")
    else:
        await client.sign_in(username, password)
        screen.say(f"Signed in as {client.name}.")


async def quick(screen: RacerScreen, game: str) -> None:
    """Wait in the game's pool until paired, then race."""
    client = screen.link.client
    waiting = await client.quick_race(game)
    title = rules_for(game).title
    screen.say(f"Waiting for someone to race at {title} (your rating {waiting['rating']})...")
    standing = waiting.get("standing") or {}
    if standing.get("code"):  # paired all the same: the race is not rated
        screen.say(f"This race will not be rated. {standing['reason']}")
    paired = await client.next_event("paired", timeout=QUICK_WAIT_S)
    screen.adopt(paired.data["race"])
    others = [render.shown_name(p) for p in screen.players if p["player"] != client.player]
    screen.say(f"Paired with {', '.join(others)}: race {screen.race_id} starts soon.")


async def daily(screen: RacerScreen, game: str) -> None:
    data = await screen.link.client.daily_start(game)
    screen.adopt(data["race"])
    assert screen.rules is not None
    standing = data.get("standing") or {}
    kind = (
        "ranked"
        if data["ranked"]
        else f"practice: {standing['reason']}"
        if standing.get("code") not in (None, "guest")
        else f"practice on yesterday's deal ({data['day']}): a guest never sees today's; "
        "sign in with --account to play today's, ranked"
        if screen.link.client.account is None
        else "practice: only your first attempt of the day counts"
    )
    proven = "; proven winnable" if data["certified"] else ""
    screen.unproven = not data["certified"]
    screen.say(
        f"Daily {screen.rules.title} of {data['day']} ({kind}{proven}). Your clock is running."
    )
    say_seal(screen)
    if screen.view is not None:
        screen.draw()
