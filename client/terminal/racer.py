"""One racer's screen for ``solrace play``: the board, the clock, the opponents' progress,
the numbered legal actions, and a line of input per action.

The screen keeps the player's view from the ``act`` replies (docs/protocol.md), asks for
the legal actions with every action, and comes back by itself after a dropped connection:
it resumes the session, answers an action that was in flight by resending it with the same
``seq`` (the server never applies it twice), then takes a fresh snapshot of the race.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from rich.console import Console, RenderableType
from rich.text import Text
from websockets.exceptions import ConnectionClosed

from client.api import ServerError
from client.terminal import render
from client.terminal.connection import Link, Unreachable
from client.terminal.lines import LineReader
from client.views import View, ViewMismatch, after_action
from protocol.engine import Rules
from protocol.games import rules_for
from protocol.messages import Event

T = TypeVar("T")
RATE_RETRIES = 5  # a refused request is sent again this many times...
RATE_PAUSE_S = 0.5  # ...this long apart (the server refused it unread, so resending is safe)
QUICK_WAIT_S = 31 * 60  # the server keeps nobody waiting longer than 30 minutes

UNPROVEN = "This deal has not been proven winnable."  # under every screen of such a daily

HELP = """\
Type an action in the notation, or the number of one in the list:
  t3 2 t5   move the top 2 cards of t3 onto t5      w 1 f   waste card to a foundation
  deal      turn the stock      auto   send what can go home      undo   take back
Other commands: moves (the list again), board (draw again), start (host: start now),
resign (give up this race), quit (resign and leave), help."""


class RacerScreen:
    """Plays one race (or daily attempt) for the player of ``link`` until its result."""

    def __init__(self, console: Console, link: Link, lines: LineReader) -> None:
        self.console = console
        self.link = link
        self.lines = lines
        self.race_id = ""
        self.info: dict[str, Any] = {}
        self.rules: Rules | None = None
        self.view: View | None = None
        self.legal: list[str] = []
        self.answered = 0  # the last action number the server answered
        self.shown: dict[str, tuple[int, Any]] = {}  # others' progress and outcome, as told
        self.result: dict[str, Any] | None = None
        self.final_players: list[dict[str, Any]] | None = None  # done, but no result came
        self.countdown: asyncio.Task[None] | None = None
        self.closed = link.closed()
        self.leaving = False
        self.resign_at_start = False
        self.status = 0
        self.unproven = False  # a daily deal the solver did not prove winnable: say so

    @property
    def me(self) -> str:
        return self.link.client.player

    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.info.get("players", [])
        return players

    @property
    def mine(self) -> dict[str, Any]:
        for standing in self.players:
            if standing["player"] == self.me:
                return standing
        return {"player": self.me, "progress": 0, "actions": 0, "outcome": None}

    @property
    def total(self) -> int:
        return self.rules.card_total if self.rules else 0

    def say(self, text: RenderableType, style: str | None = None) -> None:
        self.console.print(text, style=style)

    # ------------------------------------------------------------------ entering

    def adopt(self, info: dict[str, Any], authoritative: bool = False) -> None:
        """Take the race info (or racer view) ``info``. Its cards replace ours only when it
        is at least as recent as the last answer we had (or ``authoritative``)."""
        self.race_id = info["race"]
        you = info.get("you")
        self.info = {k: v for k, v in info.items() if k != "you"}
        if self.rules is None:
            self.rules = rules_for(info["game"], info["options"])
        if you and "view" in you and (authoritative or you["seq"] >= self.answered):
            self.view, self.legal = you["view"], list(you.get("legal", []))
            self.answered = you["seq"]
            seqs = self.link.client.seqs
            seqs[self.race_id] = max(seqs.get(self.race_id, 0), you["seq"])
        for standing in self.players:
            self.shown[standing["player"]] = (standing["progress"], standing["outcome"])

    # ------------------------------------------------------------------ the loop

    def update_players(self, players: list[dict[str, Any]]) -> None:
        """New standings: say who moved up or finished (not every action)."""
        self.info["players"] = players
        for standing in players:
            seen = (standing["progress"], standing["outcome"])
            if standing["player"] != self.me and self.shown.get(standing["player"]) != seen:
                self.say(
                    f"{render.shown_name(standing)}: {standing['progress']}/{self.total} home, "
                    f"{render.count(standing['actions'], 'action')}, {render.outcome(standing)}",
                    style="magenta",
                )
            self.shown[standing["player"]] = seen

    # ------------------------------------------------------------------ typed lines

    async def on_line(self, line: str) -> None:
        text = " ".join(line.split())
        word = text.lower()
        if not text:
            self.prompt()
        elif word in ("help", "?", "h"):
            self.say(HELP)
            self.prompt()
        elif word in ("moves", "m", "list", "l"):
            self.say(render.legal_list(self.legal))
            self.prompt()
        elif word in ("board", "b"):
            self.draw()
        elif word == "start":
            await self.guarded(lambda: self.link.client.start_race(self.race_id))
        elif word == "resign":
            await self.resign()
        elif word in ("quit", "exit", "q"):
            await self.quit()
        elif text.isdigit():
            number = int(text)
            if self.view is None:
                self.say("The race has not started yet.", style="yellow")
            elif 1 <= number <= len(self.legal):
                await self.act(self.legal[number - 1])
            else:
                self.say(
                    f"There is no action {number}: choose 1 to {len(self.legal)}.", style="red"
                )
                self.prompt()
        else:
            await self.act(text)

    async def on_end_of_input(self) -> None:
        """No more input: leave before the start, resign while playing, then wait for the
        result."""
        if self.mine.get("outcome") is not None:
            return
        phase = self.info.get("phase")
        if phase == "open":
            await self.quit()
        elif phase == "countdown":
            self.resign_at_start = True
        elif phase == "running":
            await self.resign()

    async def resign(self) -> None:
        if await self.guarded(lambda: self.link.client.resign(self.race_id)) is not None:
            self.say("You resigned.", style="yellow")
            self.mine["outcome"] = "resigned"

    async def quit(self) -> None:
        phase = self.info.get("phase")
        if phase == "open":
            await self.guarded(lambda: self.link.client.leave_race(self.race_id))
            self.say("You left the race.")
        elif phase in ("countdown", "running") and self.mine.get("outcome") is None:
            await self.resign()
        self.leaving = True

    async def guarded(self, call: Callable[[], Awaitable[T]]) -> T | None:
        """A request whose refusal is shown as a sentence instead of ending the screen."""
        try:
            return await self.persist(call)
        except ServerError as error:
            self.say(f"{error.message} [{error.code}]", style="red")
            return None

    async def persist(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, again after reconnecting when the connection drops under it, and
        again a little later when the server says to slow down."""
        slowed = 0
        while True:
            try:
                return await call()
            except (ConnectionError, ConnectionClosed):
                await self.recover(resync=False)
            except ServerError as error:
                if error.code != "rate_limited" or slowed >= RATE_RETRIES:
                    raise
                slowed += 1
                await asyncio.sleep(RATE_PAUSE_S)

    # ------------------------------------------------------------------ actions

    async def act(self, action: str) -> None:
        client = self.link.client
        seq = client.seqs.get(self.race_id, 0) + 1
        reconnected = False

        async def send() -> dict[str, Any]:
            nonlocal reconnected
            try:
                return await client.act(self.race_id, action, seq=seq, legal=True)
            except (ConnectionError, ConnectionClosed):
                reconnected = True
                raise

        try:
            reply = await self.persist(send)
        except ServerError as error:
            self.say(f"{error.message} [{error.code}]", style="red")
            self.prompt()
            return
        self.answered = max(self.answered, reply["seq"])
        if "standings" in reply:
            self.update_players(reply["standings"])
        mine = self.mine
        mine.update(
            progress=reply["progress"],
            actions=reply["actions"],
            outcome=reply["outcome"],
            time_ms=reply["time_ms"],
        )
        if reconnected or self.view is None:
            await self.resync()
        else:
            assert self.rules is not None
            try:
                self.view = after_action(self.view, reply, self.rules.undo_allowed)
                self.legal = list(reply.get("legal", []))
            except ViewMismatch:
                await self.resync()
        note = f"{reply['action']}: {render.describe_events(reply['events'])}"
        self.draw(note, prompt=reply["outcome"] is None)
        self.announce_outcome(reply)

    def announce_outcome(self, reply: dict[str, Any]) -> None:
        outcome = reply["outcome"]
        if outcome == "finished":
            self.say(
                f"You finished in {render.clock(reply['time_ms'])} with {reply['actions']} "
                "actions.",
                style="bold green",
            )
        elif outcome == "stuck":
            self.say("No action is left and undo is off: your race is over.", style="yellow")
        if outcome is not None and any(p["outcome"] is None for p in self.players):
            self.say("Waiting for the others to finish...")

    # ------------------------------------------------------------------ connection

    async def recover(self, resync: bool = True) -> None:
        """The connection dropped: resume the session and (unless an action in flight is
        about to be resent) take a fresh snapshot. Unreachable when that fails."""
        if self.link.was_replaced():
            raise Unreachable("another connection took over this player's session")
        self.say("Connection lost; reconnecting...", style="yellow")
        await self.link.reconnect()
        self.closed = self.link.closed()
        self.say("Reconnected.", style="green")
        if resync and self.race_id:
            await self.resync()
            self.draw()

    async def resync(self) -> None:
        info = await self.persist(lambda: self.link.client.snapshot(self.race_id))
        self.adopt(info, authoritative=True)
        self.after_resync()

    def after_resync(self) -> None:
        if self.info.get("phase") == "done" and self.result is None:
            self.final_players = self.players

    # ------------------------------------------------------------------ drawing

    def header(self) -> Text:
        assert self.rules is not None
        mine = self.mine
        if mine.get("time_ms") is not None:
            elapsed: int | None = mine["time_ms"]
        elif self.info.get("start_at_ms") is not None:
            elapsed = self.link.server_now_ms() - self.info["start_at_ms"]
        else:
            elapsed = None
        where = (
            f"daily {self.info.get('day')}"
            if self.info.get("mode") == "daily"
            else f"race {self.race_id}"
        )
        text = Text(f"{self.rules.title} · {where} · ", style="bold")
        text.append(render.clock(elapsed), style="bold yellow")
        text.append(
            f" · {mine['progress']}/{self.total} home · {render.count(mine['actions'], 'action')}"
        )
        return text

    def draw(self, note: str | None = None, prompt: bool = True) -> None:
        """The whole screen: header, board, others' standings, numbered actions."""
        if self.view is None or self.rules is None:
            self.prompt()
            return
        if self.console.is_terminal:
            self.console.clear()
        self.say(self.header())
        if self.unproven:
            self.say(UNPROVEN, style="yellow")
        self.say(render.board(self.view, self.rules.has_waste))
        if len(self.players) > 1:
            self.say(render.standings(self.console, self.players, self.me, self.total, "Racers"))
        if self.mine.get("outcome") is None:
            self.say(Text("Actions:", style="bold"))
            self.say(render.legal_list(self.legal))
        if note:
            self.say(note, style="green")
        if prompt and self.mine.get("outcome") is None:
            self.prompt()

    def prompt(self) -> None:
        if self.mine.get("outcome") is not None or self.result is not None:
            return
        question = "Your move (a number, an action, or help): "
        if self.console.is_terminal:
            self.console.print(question, end="", style="bold")
        else:
            self.say(question.rstrip())


def join_command(url: str, race_id: str) -> str:
    """The command that joins ``race_id`` at the server ``url``, always with its URL: the
    others' default (their SOLRACE_SERVER, or 127.0.0.1) may well be another server."""
    return shlex.join(["solrace", "play", "--race", race_id, "--server", url])


def held_sentence(data: dict[str, Any]) -> str:
    """What a ``held`` event tells the player (never why: docs/fairness.md)."""
    if data["what"] == "daily":
        return "Held for review: a moderator looks at this run before it goes on the board."
    return "Held for review: a moderator looks at this race before it moves any rating."


def held_after_result(link: Link) -> list[str]:
    """The ``held`` news that came after the result (the events read meanwhile)."""
    said = []
    queue = link.client.queue
    while not queue.empty():
        item = queue.get_nowait()
        if isinstance(item, Event) and item.kind == "held":
            said.append(held_sentence(item.data))
    return said


async def show_daily_board(console: Console, link: Link, game: str) -> None:
    """After a daily attempt: whether the run is held for a moderator (told before the
    board's answer), the day's board around the player, and when the day ends."""
    try:
        data = await link.client.daily_board(game, top=5, around=2)
    except (ServerError, ConnectionError):
        return  # a courtesy after the attempt: the command ends well without it
    for sentence in held_after_result(link):
        console.print(sentence, style="yellow")
    total = rules_for(game).card_total
    entries = [*data["top"], *data["around"], data["me"]]
    title = f"Daily board {data['day']} ({render.count(data['total'], 'player')})"
    console.print(render.leaderboard(console, entries, link.client.player, total, title))
    left = data["next_day_ms"] - link.server_now_ms()
    console.print(f"The next daily challenge begins in {render.span(left)}.")
