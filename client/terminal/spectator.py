"""A spectator's screen for ``solrace watch``: every racer's board, progress and moves, and
how many watch, live until the race's result.

On a terminal the screen is redrawn in place (``rich.live.Live``) with a ticking clock; on
a pipe each feed item is one line, with every board printed at the start. The views are
kept from the feed (``watch`` items) as docs/protocol.md says: items up to the snapshot's
``feed_seq`` are already in it; a gap, an unknown racer or an event that does not fit
takes a fresh snapshot. A race that may count (``boards_live`` false: rated, or a ranked
daily attempt) shows each racer's progress only, and every board once it is over.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.panel import Panel
from rich.text import Text
from websockets.exceptions import ConnectionClosed

from client.terminal import render
from client.terminal.connection import Link, Unreachable
from client.views import ViewMismatch, after_action
from protocol.engine import Rules
from protocol.games import rules_for
from protocol.messages import Event, Watch

RECENT = 8  # moves listed under the boards on a terminal
HELD = "boards shown when the race ends"


def keep_progress(standing: dict[str, Any], data: dict[str, Any]) -> None:
    """A racer's standing as an ``act`` or ``progress`` item tells it."""
    for key in ("progress", "actions", "outcome", "time_ms"):
        standing[key] = data[key]


class SpectatorScreen:
    def __init__(self, console: Console, link: Link) -> None:
        self.console = console
        self.link = link
        self.race_id = ""
        self.info: dict[str, Any] = {}
        self.rules: Rules | None = None
        self.last_seq = 0
        self.spectators = 0
        self.recent: deque[Text] = deque(maxlen=RECENT)
        self.result: dict[str, Any] | None = None
        self.live: Live | None = None

    @property
    def players(self) -> list[dict[str, Any]]:
        players: list[dict[str, Any]] = self.info.get("players", [])
        return players

    @property
    def total(self) -> int:
        return self.rules.card_total if self.rules else 0

    def standing(self, player: str) -> dict[str, Any] | None:
        return next((p for p in self.players if p["player"] == player), None)

    # ------------------------------------------------------------------ snapshots

    async def spectate(self, race_id: str) -> None:
        """Start watching; ServerError when refused (a racer, an unfinished daily...)."""
        self.race_id = race_id
        self.adopt(await self.link.client.spectate(race_id))

    async def resync(self) -> None:
        self.adopt(await self.link.client.snapshot(self.race_id))

    def adopt(self, info: dict[str, Any]) -> None:
        self.info = info
        self.last_seq = info.get("feed_seq", self.last_seq)
        self.spectators = info.get("spectators", self.spectators)
        if self.rules is None:
            self.rules = rules_for(info["game"], info["options"])

    # ------------------------------------------------------------------ the loop

    async def run(self) -> int:
        """Follow the feed until the race's result; the exit status."""
        if self.info.get("phase") == "done":
            self.console.print(
                render.standings(self.console, self.players, "", self.total, "Final standings")
            )
            return 0
        if self.console.is_terminal:
            with Live(
                console=self.console,
                get_renderable=self.screen,
                refresh_per_second=4,
                transient=False,
            ) as live:
                self.live = live
                status = await self.follow()
            self.live = None
        else:
            self.introduce()
            status = await self.follow()
        if self.result is not None:
            if self.live is None and not self.console.is_terminal:
                self.print_boards()
            self.console.print(render.ranking(self.console, self.result["ranking"], "", self.total))
            if self.result.get("deal"):
                self.console.print(f"Deal number {self.result['deal']}.")
        return status

    async def follow(self) -> int:
        closed = self.link.closed()
        try:
            while self.result is None:
                item = await self._next(closed)
                if item is None:
                    if self.link.was_replaced():
                        raise Unreachable("another connection took over this session")
                    self.note("Connection lost; reconnecting...", "yellow")
                    await self.link.reconnect()
                    closed = self.link.closed()
                    await self.spectate(self.race_id)
                    self.note("Reconnected.", "green")
                    continue
                if isinstance(item, Watch) and item.race == self.race_id:
                    await self.on_item(item)
                elif isinstance(item, Event) and item.kind == "watch_ended":
                    if item.data.get("race") == self.race_id:
                        await self.spectate(self.race_id)
                        if item.data.get("reason") == "history_lost":
                            self.note("The server lost some moves of this race.", "yellow")
                            if self.live is None:  # a terminal redraws by itself
                                self.print_boards()
                elif isinstance(item, Event) and item.kind == "shutdown":
                    self.note(f"The server says: {item.data.get('reason')}.", "yellow")
        except Unreachable as error:
            return render.failure(str(error))
        except BrokenPipeError:
            raise  # our standard output closed, not the connection (solrace.cli handles it)
        except (ConnectionError, ConnectionClosed) as error:
            return render.failure(f"the connection failed: {error}")
        return 0

    async def _next(self, closed: asyncio.Future[None]) -> Event | Watch | None:
        """The next feed item or event; None when the connection has closed."""
        getter = asyncio.ensure_future(self.link.client.queue.get())
        waiting: set[asyncio.Future[Any]] = {getter, closed}
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            return getter.result()
        getter.cancel()
        if not self.link.client.queue.empty():
            return self.link.client.queue.get_nowait()
        return None

    async def on_item(self, item: Watch) -> None:
        if item.seq <= self.last_seq:
            return  # already in the snapshot
        if item.seq > self.last_seq + 1:
            await self.resync()
            if item.seq <= self.last_seq:
                return
        self.last_seq = item.seq
        data = item.data
        if item.kind == "countdown":
            self.info.update(phase="countdown", start_at_ms=data["start_at_ms"])
            self.note(f"The race starts in {data['starts_in_ms'] / 1000:.1f} s.")
        elif item.kind == "started":
            await self.resync()  # racers may have joined since the snapshot: take them all
            self.note("Started.", "bold green")
            if not self.console.is_terminal:
                self.print_boards()
        elif item.kind == "act":
            await self.on_act(data)
        elif item.kind == "progress":
            self.on_progress(data)
        elif item.kind == "retired":
            standing = self.standing(data["player"])
            if standing is not None:
                standing["outcome"] = data["outcome"]
                self.note(f"{render.shown_name(standing)}: {render.outcome(standing)}.", "yellow")
        elif item.kind == "spectators":
            self.spectators = data["count"]
            self.note(f"{self.spectators} watching.", "dim")
        elif item.kind == "result":
            self.info["phase"] = "done"
            self.result = data
            for player, view in (data.get("revealed") or data.get("boards") or {}).items():
                standing = self.standing(player)
                if standing is not None:
                    standing["view"] = view

    async def on_act(self, data: dict[str, Any]) -> None:
        standing = self.standing(data["player"])
        if standing is None or "view" not in standing:
            await self.resync()
            return
        assert self.rules is not None
        try:
            standing["view"] = after_action(standing["view"], data, self.rules.undo_allowed)
        except ViewMismatch:
            await self.resync()
            standing = self.standing(data["player"])
            if standing is None:
                return
        keep_progress(standing, data)
        line = Text(f"{render.shown_name(standing)}: ", style="bold")
        line.append(data["action"], style="cyan")
        line.append(f" ({render.describe_events(data['events'])})")
        actions = render.count(standing["actions"], "action")
        line.append(f" · {standing['progress']}/{self.total} home · {actions}")
        if data["outcome"] is not None:
            line.append(f" · {render.outcome(standing)}", style="bold green")
        self.note(line)

    def on_progress(self, data: dict[str, Any]) -> None:
        """A racer's progress in a race whose boards are held until its end."""
        standing = self.standing(data["player"])
        if standing is None:
            return
        keep_progress(standing, data)
        self.note(self.title(standing))

    # ------------------------------------------------------------------ drawing

    def note(self, text: str | Text, style: str | None = None) -> None:
        """Something happened: a line on a pipe, the list of recent moves on a terminal."""
        line = text if isinstance(text, Text) else Text(text, style=style or "")
        if self.live is not None:
            self.recent.append(line)
            self.live.refresh()
        else:
            self.console.print(line)

    def introduce(self) -> None:
        assert self.rules is not None
        names = ", ".join(map(render.shown_name, self.players))
        self.console.print(
            f"Watching race {self.race_id}: {self.rules.title} ({self.rules.describe_options()}), "
            f"{self.info.get('phase')}, racers {names}; {self.spectators} watching."
        )
        if any("view" in p for p in self.players):
            self.print_boards()
        elif self.info.get("boards_live") is False:
            self.console.print(f"A race that counts: progress only, {HELD}.")

    def print_boards(self) -> None:
        assert self.rules is not None
        for standing in self.players:
            if "view" in standing:
                self.console.print(self.title(standing))
                self.console.print(render.board(standing["view"], self.rules.has_waste))

    def title(self, standing: dict[str, Any]) -> Text:
        return Text(
            f"{render.shown_name(standing)} · {standing['progress']}/{self.total} home · "
            f"{render.count(standing['actions'], 'action')} · {render.outcome(standing)}",
            style="bold",
        )

    def screen(self) -> RenderableType:
        """The live screen: header with the clock, every board, the recent moves."""
        assert self.rules is not None
        start = self.info.get("start_at_ms")
        elapsed = self.link.server_now_ms() - start if start else None
        header = Text(f"{self.rules.title} · race {self.race_id} · ", style="bold")
        header.append(
            render.clock(elapsed)
            if self.info.get("phase") == "running"
            else str(self.info.get("phase")),
            style="bold yellow",
        )
        header.append(f" · {self.spectators} watching")
        boards = [
            Panel(
                render.board(p["view"], self.rules.has_waste) if "view" in p else Text(HELD),
                title=self.title(p),
                expand=False,
            )
            for p in self.players
            if "view" in p or self.info.get("boards_live") is False
        ]
        return Group(header, Columns(boards), *self.recent)
