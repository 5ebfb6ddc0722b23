"""``solrace arena list|standings|watch``: the arenas running and to come, with countdowns;
an arena's standings; its standings as they change, until it ends. To race in one:
``solrace play --arena ID --account USERNAME`` (entering takes an account)."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from client.api import ServerError
from client.terminal import render
from client.terminal.connection import Link, Unreachable, add_server_argument, check_arguments
from client.terminal.render import make_console
from protocol.games import GAMES

WATCH_S = 24 * 3600.0  # ``watch`` gives up after this long without news
MAX_TOP = 100


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the arenas running and to come")
    listing.add_argument("game", metavar="GAME", nargs="?", choices=list(GAMES), help="one game")
    for name, text in (
        ("standings", "an arena's standings"),
        ("watch", "standings as they change"),
    ):
        sub = actions.add_parser(name, help=text)
        sub.add_argument(
            "arena", metavar="ARENA", help="the arena's id (from `solrace arena list`)"
        )
        sub.add_argument(
            "--top", metavar="N", type=int, default=10, help="lines shown (default 10)"
        )
    for sub in actions.choices.values():
        sub.add_argument("--json", action="store_true", help="print the server's answers as JSON")
        add_server_argument(sub)


def _top(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_TOP:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_TOP}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    check_arguments(args, "arena")
    return asyncio.run(arena(args))


async def arena(args: argparse.Namespace) -> int:
    console = make_console()
    try:
        link = await Link.open(args.server, "arena")
    except Unreachable as error:
        return render.failure(str(error))
    try:
        client = link.client
        if args.action == "list":
            arenas = await client.list_arenas(args.game)
            if args.json:
                print(json.dumps(arenas, separators=(",", ":")))
            else:
                console.print(listed(arenas, link.server_now_ms()), highlight=False)
            return 0
        page = await client.arena_standings(args.arena, top=args.top)
        show(console, args, page["top"], page["players"], page["status"] == "ended")
        if args.action == "watch" and page["status"] != "ended":
            await client.watch_arena(args.arena)
            while True:
                told = await client.next_event(
                    "arena_standings", timeout=WATCH_S, where=lambda d: d["arena"] == args.arena
                )
                show(console, args, told.data["top"], told.data["players"], told.data["final"])
                if told.data["final"]:
                    break
        return 0
    except ServerError as error:
        return render.failure(f"{error.message} [{error.code}]")
    finally:
        await link.close()


def listed(arenas: list[dict[str, Any]], now_ms: int) -> str:
    """The arenas, one a line: id, title, heat size, players and countdown."""
    if not arenas:
        return "No arena runs or starts within 3 hours."
    lines = []
    for one in arenas:
        if one["status"] == "running":
            when = f"running, ends in {render.span(one['end_ms'] - now_ms)}"
        else:
            when = f"starts in {render.span(one['start_ms'] - now_ms)}"
        players = render.count(one["players"], "player")
        lines.append(f"{one['id']}  {one['title']}, heats of {one['heat_size']}, {players}: {when}")
    return "\n".join(lines)


def show(
    console: Console, args: argparse.Namespace, top: list[dict[str, Any]], players: int, final: bool
) -> None:
    """One page of the standings (or the server's answer, with ``--json``)."""
    if args.json:
        print(json.dumps({"top": top, "players": players, "final": final}, separators=(",", ":")))
        return
    title = f"{args.arena}: {'final' if final else 'standings'} ({render.count(players, 'player')})"
    if not top:
        console.print(f"{title}: no heat scored yet.")
        return
    table = Table(title=title, title_justify="left")
    for column in ("#", "player", "points", "heats", "wins", "streak"):
        table.add_column(column)
    for line in top:
        streak = f"{line['streak']}{' (x2)' if line['on_streak'] else ''}"
        table.add_row(
            str(line["rank"]),
            line["name"],
            str(line["points"]),
            str(line["heats"]),
            str(line["wins"]),
            streak,
        )
    console.print(table)
