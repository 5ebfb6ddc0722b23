"""``solrace watch RACE``: spectate a race live (every racer's board, progress and moves,
and how many watch) until it ends. ``solrace watch --live`` lists the races to watch."""

from __future__ import annotations

import argparse
import asyncio
import re

from client.api import ServerError
from client.commands.common import UsageError
from client.terminal import render
from client.terminal.connection import (
    Link,
    Unreachable,
    add_name_argument,
    add_server_argument,
    check_arguments,
)
from client.terminal.render import make_console
from client.terminal.spectator import SpectatorScreen


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("race", metavar="RACE", nargs="?", help="the id of the race to watch")
    parser.add_argument("--live", action="store_true", help="list the races that can be watched")
    add_server_argument(parser)
    add_name_argument(parser, default="spectator")


def run(args: argparse.Namespace) -> int:
    check_arguments(args, "watch")
    if (args.race is None) == (not args.live):
        raise UsageError("solrace watch: give a RACE id, or --live to list the races")
    if args.race is not None and not re.fullmatch(r"[a-z0-9]{1,24}", args.race):
        raise UsageError(f"solrace watch: {args.race[:30]!r} is not a race id")
    return asyncio.run(watch(args))


async def watch(args: argparse.Namespace) -> int:
    console = make_console()
    try:
        link = await Link.open(args.server, args.name)
    except Unreachable as error:
        return render.failure(str(error))
    try:
        if args.live:
            return await list_live(link)
        screen = SpectatorScreen(console, link)
        try:
            await screen.spectate(args.race)
        except ServerError as error:
            return render.failure(f"{error.message} [{error.code}]")
        return await screen.run()
    finally:
        await link.close()


async def list_live(link: Link) -> int:
    console = make_console()
    races = await link.client.list_live()
    if not races:
        console.print("No race is being played right now.")
        return 0
    for race in races:
        names = ", ".join(map(render.shown_name, race["players"]))
        kind = f"daily {race['day']}" if race["mode"] == "daily" else "race"
        console.print(
            f"{race['race']}  {race['game']:<20} {kind:<16} {race['phase']:<9} "
            f"{names}  ({race['spectators']} watching)"
        )
    return 0
