"""``solrace play``: race (join one, or create one) or play the daily challenge, in the
terminal. Actions are typed in the notation or chosen by number from the legal ones."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
from typing import Any

from client.api import ServerError
from client.commands.common import UsageError, deal_number
from client.terminal import entering, racer_events, render
from client.terminal.arena_play import race_arena
from client.terminal.connection import (
    Link,
    Unreachable,
    add_name_argument,
    add_server_argument,
    check_arguments,
)
from client.terminal.lines import LineReader
from client.terminal.racer import RacerScreen, show_daily_board
from client.terminal.render import make_console
from protocol.fields import MAX_PLAYERS
from protocol.games import GAMES, rules_for


def configure(parser: argparse.ArgumentParser) -> None:
    add_server_argument(parser)
    add_name_argument(parser)
    entry = parser.add_mutually_exclusive_group(required=True)
    entry.add_argument("--race", metavar="ID", help="join the race with this id")
    entry.add_argument(
        "--create",
        metavar="GAME",
        choices=list(GAMES),
        help=f"create a race of GAME ({', '.join(GAMES)})",
    )
    entry.add_argument(
        "--daily", metavar="GAME", choices=list(GAMES), help="play today's daily challenge of GAME"
    )
    entry.add_argument(
        "--arena",
        metavar="ID",
        help="enter this arena (solrace arena list) and race its heats until it ends "
        "(takes --account)",
    )
    entry.add_argument(
        "--quick",
        metavar="GAME",
        choices=list(GAMES),
        help="race someone now: wait to be paired with a player of a close rating",
    )
    parser.add_argument(
        "--account",
        metavar="USERNAME",
        help="sign in to this account first (ranked daily attempts are for accounts); the "
        "password comes from SOLRACE_PASSWORD, or is asked for",
    )
    parser.add_argument(
        "--register", action="store_true", help="with --account: create the account first"
    )
    parser.add_argument(
        "--risk",
        action="store_true",
        help="with --arena: race its heats in risk mode (no undo; a win pays 2 points more)",
    )
    parser.add_argument(
        "--deal", metavar="N", help="with --create: the deal number (default random)"
    )
    parser.add_argument(
        "--players",
        metavar="K",
        type=_players,
        default=None,
        help=f"with --create: racers, 1 to {MAX_PLAYERS} (default 2)",
    )
    parser.add_argument(
        "--options",
        metavar="JSON",
        default=None,
        help="with --create: game options, e.g. '{\"undo\": false}'",
    )


def password() -> str:
    """The account's password: ``SOLRACE_PASSWORD``, or asked for without echo."""
    return os.environ.get("SOLRACE_PASSWORD") or getpass.getpass("Password: ")


def _players(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_PLAYERS}")
    return int(text)


def _options(args: argparse.Namespace) -> dict[str, Any]:
    try:
        options: Any = json.loads(args.options or "{}")
    except json.JSONDecodeError:
        raise UsageError(f"solrace play: --options is not JSON: {args.options[:40]!r}") from None
    if not isinstance(options, dict):
        raise UsageError("solrace play: --options must be a JSON object")
    rules_for(args.create, options)  # a bad option is a usage error (exit 2) here already
    return options


def run(args: argparse.Namespace) -> int:
    check_arguments(args, "play")
    if args.create is None:
        for flag in ("deal", "players", "options"):
            if getattr(args, flag) is not None:
                raise UsageError(f"solrace play: --{flag} goes with --create only")
    if args.register and not args.account:
        raise UsageError("solrace play: --register goes with --account")
    deal = deal_number(args.deal) if args.deal is not None else None
    options = _options(args) if args.create else {}
    return asyncio.run(play(args, options, deal))


async def play(args: argparse.Namespace, options: dict[str, Any], deal: int | None) -> int:
    console = make_console()
    try:
        link = await Link.open(args.server, args.name)
    except Unreachable as error:
        return render.failure(str(error))
    try:
        screen = RacerScreen(console, link, LineReader())
        try:
            if args.account:
                await entering.sign_in(screen, args.account, password(), register=args.register)
            if args.arena:
                return await race_arena(console, link, screen.lines, args.arena, args.risk)
            if args.race:
                await entering.join(screen, args.race)
            elif args.create:
                await entering.create(screen, args.create, options, deal, args.players or 2)
            elif args.quick:
                await entering.quick(screen, args.quick)
            else:
                await entering.daily(screen, args.daily)
        except ServerError as error:
            return render.failure(f"{error.message} [{error.code}]")
        except BrokenPipeError:
            raise  # our standard output closed, not the connection (solrace.cli handles it)
        except ConnectionError as error:
            return render.failure(f"the connection failed: {error}")
        status = await racer_events.run(screen)
        if args.daily and screen.result is not None:
            await show_daily_board(console, link, args.daily)
        else:
            await racer_events.show_rating_news(screen)
        return status
    finally:
        await link.close()
