"""``solrace play``'s loop over the race it plays (``RacerScreen``): events and typed lines
as they come, and a lost connection recovered; what it does with each event (joins, the
countdown and the start, standings, the result and what follows it)."""

from __future__ import annotations

import asyncio
import shlex
from typing import Any

from client.terminal import render
from client.terminal.connection import Unreachable
from client.terminal.racer import RacerScreen, held_sentence, join_command
from protocol.messages import Event, Watch


async def run(screen: RacerScreen) -> int:
    """Serve events and typed lines until the race's result; the exit status."""
    events: asyncio.Task[Event | Watch | None] = asyncio.create_task(screen.link.client.queue.get())
    line: asyncio.Future[str | None] = asyncio.ensure_future(screen.lines.next())
    try:
        while screen.result is None and not screen.leaving:
            closed = screen.closed
            waiting: set[asyncio.Future[Any]] = {events, line, closed}
            done, _ = await asyncio.wait(
                waiting,
                timeout=1.0 if screen.final_players is not None else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not done and screen.final_players is not None:
                show_final(screen, screen.final_players)
                break
            if events in done:
                item = events.result()
                if item is None:
                    return 1
                events = asyncio.create_task(screen.link.client.queue.get())
                if isinstance(item, Event):
                    await on_event(screen, item)
            if line in done:
                text = line.result()
                if text is None:
                    line = asyncio.get_running_loop().create_future()  # no more input
                    await screen.on_end_of_input()
                else:
                    line = asyncio.ensure_future(screen.lines.next())
                    await screen.on_line(text)
            if closed in done and closed is screen.closed and screen.result is None:
                await screen.recover()
    except Unreachable as error:
        return render.failure(str(error))
    finally:
        for task in (events, line, screen.countdown):
            if task is not None:
                task.cancel()
    return screen.status


async def on_event(screen: RacerScreen, event: Event) -> None:
    kind, data = event.kind, event.data
    race = data.get("race")
    race_id = race.get("race") if isinstance(race, dict) else race
    if kind != "snapshot" and kind != "shutdown" and race_id != screen.race_id:
        return  # about another race (an earlier one, say)
    if kind in ("joined", "left"):
        before = {p["player"] for p in screen.players}
        screen.adopt(data["race"])
        after = {p["player"]: render.shown_name(p) for p in screen.players}
        for player, name in after.items():
            if player not in before:
                screen.say(f"{name} joined ({len(after)}/{screen.info['max_players']}).")
        if kind == "left":
            screen.say(f"A racer left ({len(after)}/{screen.info['max_players']}).")
    elif kind == "countdown":
        screen.info.update(phase="countdown", start_at_ms=data["start_at_ms"])
        if screen.countdown is not None:
            screen.countdown.cancel()
        screen.countdown = asyncio.create_task(count_down(screen, data["start_at_ms"]))
    elif kind == "started":
        if screen.countdown is not None:
            screen.countdown.cancel()
        seen = screen.view is not None and screen.info.get("phase") == "running"
        screen.adopt(data)
        if seen:
            return  # a daily attempt: its first answer showed the start already
        screen.say("Go!", style="bold green")
        if screen.resign_at_start:
            await screen.resign()
        else:
            screen.draw()
    elif kind == "standings":
        screen.update_players(data["players"])
    elif kind == "result":
        screen.result = data
        show_result(screen, data)
    elif kind == "rematch":
        by = next(
            (render.shown_name(p) for p in screen.players if p["player"] == data["by"]),
            "A racer",
        )
        screen.say(
            f"{by} asks for a rematch: {join_command(screen.link.client.url, data['rematch'])}"
        )
    elif kind == "snapshot":
        for picture in data["races"]:
            if picture["race"] == screen.race_id:
                screen.adopt(picture, authoritative=True)
                screen.after_resync()
    elif kind == "history_lost":  # the server's store lost moves it had accepted
        screen.adopt(data["race"], authoritative=True)
        screen.after_resync()
        screen.say(lost_sentence(data["lost"]), style="bold red")
        screen.draw()
    elif kind == "held":  # the fair-play rule flagged a run of it (docs/fairness.md)
        screen.say(held_sentence(data), style="yellow")
    elif kind == "shutdown":
        screen.say(f"The server says: {data.get('reason', 'shutting down')}.", style="yellow")


def lost_sentence(lost: int) -> str:
    """What a racer is told when the server's store lost ``lost`` of their accepted moves."""
    moves = "your last move" if lost == 1 else f"your last {lost} moves"
    what = (
        f"The server lost {moves}: your game goes on from the cards shown."
        if lost
        else "The server lost some moves of this race."
    )
    return f"{what} It will not be rated or ranked."


RATING_NEWS_WAIT_S = 3.0  # how long the end of a race waits to hear what it did to ratings


async def show_rating_news(screen: RacerScreen) -> None:
    """After a race of two or more: what it did to ratings as the server tells it (``rated``:
    my new rating; ``unrated``: why not; ``held``), if told within a few seconds; other
    news of the race meanwhile (a rematch offer) is shown as during the race."""
    if screen.result is None or len(screen.result["ranking"]) < 2:
        return
    if screen.info.get("mode") != "race":
        return
    client = screen.link.client
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RATING_NEWS_WAIT_S
    while (left := deadline - loop.time()) > 0:
        try:
            event = await client.next_event(None, left, lambda d: d.get("race") == screen.race_id)
        except (TimeoutError, ConnectionError):
            return
        assert isinstance(event, Event)
        if event.kind in ("rated", "unrated", "held"):
            screen.say(rating_news(screen.me, event), style="yellow")
            return
        await on_event(screen, event)


def rating_news(me: str, event: Event) -> str:
    """What a ``rated``, ``unrated`` or ``held`` event tells the player, in a sentence."""
    if event.kind == "unrated":
        return str(event.data["message"])
    if event.kind == "held":
        return held_sentence(event.data)
    mine = event.data["ratings"].get(me)
    if mine is None:
        return "The race was rated."
    mark = "?" if mine["provisional"] else ""
    return f"Rated: your rating is {mine['rating']}{mark} ({mine['change']:+d})."


async def count_down(screen: RacerScreen, start_at_ms: int) -> None:
    left = start_at_ms - screen.link.server_now_ms()
    screen.say(f"The race starts in {max(left, 0) / 1000:.1f} s.")
    while left > 1000:
        await asyncio.sleep((left % 1000 or 1000) / 1000)
        left = start_at_ms - screen.link.server_now_ms()
        if left > 0:
            screen.say(f"{(left + 999) // 1000}...")


def show_result(screen: RacerScreen, result: dict[str, Any]) -> None:
    screen.say(render.ranking(screen.console, result["ranking"], screen.me, screen.total))
    for entry in result["ranking"]:
        if entry["player"] == screen.me:
            screen.say(f"You placed {render.ordinal(entry['rank'])} of {len(result['ranking'])}.")
    if result.get("deal"):
        assert screen.rules is not None
        screen.say(
            f"Deal number {result['deal']} (see it: solrace deal {screen.rules.name} "
            f"{result['deal']})."
        )
    if result.get("nonce"):
        verify = ["solrace", "verify", "race", result["race"], "--server", screen.link.client.url]
        screen.say(f"Check every move of this race:  {shlex.join(verify)}")


def show_final(screen: RacerScreen, players: list[dict[str, Any]]) -> None:
    screen.say(
        render.standings(screen.console, players, screen.me, screen.total, "Final standings")
    )
