"""What the terminal shows, as ``rich`` renderables: boards, move lists, standings, rankings
and leaderboards, with times written for people.

Cards are coloured on a terminal (hearts and diamonds red) and plain text elsewhere; a
face-down card is ``##``. Nothing here reads input or talks to the server.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from client.views import View
from protocol.cards import SUIT_SYMBOLS, SUITS

CELL = 4  # columns per card: "10♥" and a space
BACK = "##"
EMPTY = "--"
OUTCOMES = {
    None: "playing",
    "finished": "finished",
    "resigned": "resigned",
    "dropped": "dropped out",
    "stuck": "stuck",
    "timed_out": "timed out",
}


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The pipe of standard output closed: raise, so that ``solrace.cli.main`` ends the
        command quietly (rich's own answer is ``SystemExit(1)``, the status of a failure)."""
        self.quiet = True  # nothing more to write
        raise BrokenPipeError


def shown_name(who: dict[str, Any]) -> str:
    """A racer's or entry's name as shown: a bot's always says so ("Robo (bot)")."""
    return f"{who['name']} (bot)" if who.get("bot") else str(who["name"])


def make_console(force_terminal: bool | None = None, stderr: bool = False) -> Console:
    """The console for standard output (or error): styles and screen clearing on a
    terminal, plain lines otherwise (``rich`` decides from ``isatty`` unless told)."""
    console = _Console(highlight=False, markup=False, force_terminal=force_terminal, stderr=stderr)
    console.soft_wrap = not console.is_terminal  # a pipe gets whole lines, never wrapped
    return console


FAILED = 1


def failure(text: str) -> int:
    """A runtime failure (no server, a refusal that ends the command): one line on
    standard error. Returns the exit status, 1."""
    make_console(stderr=True).print(f"solrace: {text}", style="red")
    return FAILED


# ---------------------------------------------------------------------- times


def clock(ms: int | None) -> str:
    """A race time: ``0:07.3``, ``12:34.5``, ``1:02:03.4``; ``-`` when there is none."""
    if ms is None:
        return "-"
    ms = max(0, int(ms))
    tenths = ms // 100
    seconds, tenth = divmod(tenths, 10)
    minutes, second = divmod(seconds, 60)
    hours, minute = divmod(minutes, 60)
    if hours:
        return f"{hours}:{minute:02d}:{second:02d}.{tenth}"
    return f"{minute}:{second:02d}.{tenth}"


def span(ms: int) -> str:
    """A stretch of time to come, roughly: ``5 h 07 min``, ``12 min 30 s``, ``8 s``."""
    seconds = max(0, int(ms) // 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, second = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {second:02d} s"
    return f"{second} s"


# ---------------------------------------------------------------------- cards and boards


def shown(name: str) -> str:
    """A card's notation (``10H``) as players see it, as the browser and the server's
    sentences show it: ``10♥``."""
    return name[:-1] + SUIT_SYMBOLS[SUITS.index(name[-1])]


def card(name: str | None) -> Text:
    """One card in a cell of ``CELL`` columns: red suits red, black ones bold."""
    if name is None:
        return Text(EMPTY.ljust(CELL), style="dim")
    if name == BACK:
        return Text(BACK.ljust(CELL), style="blue")
    return Text(shown(name).ljust(CELL), style="red" if name[-1] in "HD" else "bold")


def _row(cells: Sequence[Text], indent: str = " ") -> Text:
    line = Text(indent)
    for cell in cells:
        line.append_text(cell)
    line.rstrip()
    return line


def _labels(prefix: str, count: int) -> Text:
    return _row([Text(f"{prefix}{i}".ljust(CELL), style="cyan") for i in range(count)])


def board(view: View, has_waste: bool = True) -> RenderableType:
    """A player's view: stock count and waste, foundations, reserves, then the tableau with
    one column per pile (face-down cards as ``##``), each pile named as in the notation."""
    lines: list[Text] = []
    top = Text(" ")
    top.append("s ", style="cyan").append(f"{view['stock']:<3}")
    waste: list[str] = view.get("waste", [])
    if has_waste:
        top.append("  w ", style="cyan")
        if len(waste) > 3:
            top.append(f"({len(waste) - 3}) ", style="dim")
        for name in waste[-3:]:
            top.append_text(card(name))
        if not waste:
            top.append(EMPTY, style="dim")
    lines.append(top)
    lines.append(Text(""))
    foundations: list[list[str]] = view["foundations"]
    lines.append(_labels("f", len(foundations)))
    lines.append(_row([card(pile[-1] if pile else None) for pile in foundations]))
    reserves: list[list[str]] = view.get("reserves", [])
    if reserves:
        lines.append(Text(""))
        lines.append(_labels("r", len(reserves)))
        lines.append(_row([card(pile[-1] if pile else None) for pile in reserves]))
    lines.append(Text(""))
    tableau: list[list[str]] = view["tableau"]
    columns = [[BACK] * down + pile for pile, down in zip(tableau, view["face_down"], strict=True)]
    lines.append(_labels("t", len(columns)))
    depth = max((len(column) for column in columns), default=0)
    for row in range(max(depth, 1)):
        cells = []
        for column in columns:
            if row < len(column):
                cells.append(card(column[row]))
            elif row == 0:
                cells.append(card(None))
            else:
                cells.append(Text(" " * CELL))
        lines.append(_row(cells))
    return Group(*lines)


def legal_list(legal: Sequence[str], per_line: int = 5) -> Text:
    """The legal actions, numbered from 1, ``per_line`` to a line: ``  3) t3 2 t5``."""
    text = Text()
    for i, action in enumerate(legal, 1):
        text.append(f"{i:>3}) ", style="cyan").append(f"{action:<10}")
        if i % per_line == 0 or i == len(legal):
            text.rstrip()
            text.append("\n")
    if not legal:
        text.append("  (no legal action)\n", style="dim")
    text.rstrip()
    return text


# ---------------------------------------------------------------------- tables


def _table(console: Console, *columns: str, title: str | None = None) -> Table:
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD if console.is_terminal else box.ASCII2,
        title_justify="left",
    )
    for column in columns:
        right = column in ("#", "home", "actions", "time")
        table.add_column(column, justify="right" if right else "left")
    return table


def outcome(standing: dict[str, Any]) -> str:
    """How a racer stands: ``playing``, ``finished 1:23.4``, ``resigned``..."""
    word = OUTCOMES.get(standing.get("outcome"), str(standing.get("outcome")))
    if standing.get("outcome") == "finished":
        return f"{word} {clock(standing.get('time_ms'))}"
    return word


def standings(
    console: Console, players: Sequence[dict[str, Any]], me: str, total: int, title: str
) -> Table:
    """Every racer's progress (cards home), actions and state; ``me`` is marked."""
    table = _table(console, "", "player", "home", "actions", "state", title=title)
    for standing in players:
        mine = standing["player"] == me
        table.add_row(
            ">" if mine else "",
            shown_name(standing),
            f"{standing['progress']}/{total}",
            str(standing["actions"]),
            outcome(standing),
            style="bold" if mine else None,
        )
    return table


def ranking(console: Console, entries: Sequence[dict[str, Any]], me: str, total: int) -> Table:
    """A race's final ranking (``result`` entries), best first."""
    table = _table(console, "#", "player", "result", "time", "actions", "home", title="Result")
    for entry in entries:
        mine = entry["player"] == me
        table.add_row(
            str(entry["rank"]),
            shown_name(entry) + (" (you)" if mine else ""),
            OUTCOMES.get(entry.get("outcome"), "finished" if entry["finished"] else "-"),
            clock(entry["time_ms"]) if entry["finished"] else "-",
            str(entry["actions"]),
            f"{entry['progress']}/{total}",
            style="bold" if mine else None,
        )
    return table


def leaderboard(
    console: Console, entries: Sequence[dict[str, Any] | None], me: str, total: int, title: str
) -> Table:
    """Board entries (runs with a rank): finishers by time, then did-not-finish runs."""
    table = _table(console, "#", "player", "time", "actions", "home", "when", title=title)
    shown: set[int] = set()
    for entry in entries:
        if entry is None or entry["rank"] in shown:
            continue
        shown.add(entry["rank"])
        mine = entry["player"] == me
        table.add_row(
            str(entry["rank"]),
            shown_name(entry) + (" (you)" if mine else ""),
            clock(entry["time_ms"]) if entry["finished"] else "DNF",
            str(entry["actions"]),
            f"{entry['progress']}/{total}",
            _when(entry.get("at_ms")),
            style="bold" if mine else None,
        )
    return table


def _when(at_ms: int | None) -> str:
    if not at_ms:
        return ""
    moment = dt.datetime.fromtimestamp(at_ms / 1000, dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


# ---------------------------------------------------------------------- what happened


def describe_events(events: Sequence[dict[str, Any]]) -> str:
    """An action's event items in words: ``9♥ 8♣ t3 -> t5; t3 turned up Q♠``."""
    parts = []
    for event in events:
        kind = event.get("type")
        if kind == "moved":
            moved = " ".join(map(shown, event["cards"]))
            parts.append(f"{moved} {event['src']} -> {event['dst']}")
        elif kind == "revealed":
            parts.append(f"{event['pile']} turned up {shown(event['card'])}")
        elif kind == "dealt":
            dealt = ", ".join(
                f"{shown(c)} to {p}" for p, c in zip(event["piles"], event["cards"], strict=True)
            )
            parts.append(f"dealt {dealt}")
        elif kind == "refilled":
            card_in = shown(event["card"])
            parts.append(f"{event['reserve']} refilled with {card_in} from {event['src']}")
        elif kind == "undone":
            parts.append(f"took back {event['action']}")
    return "; ".join(parts)


def count(n: int, noun: str) -> str:
    """``1 action``, ``2 actions``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
