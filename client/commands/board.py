"""``solrace board GAME``: a daily leaderboard as a table (today's unless ``--date``), or the
all-time board with ``--best``, and the time until the next daily challenge."""

from __future__ import annotations

import argparse
import asyncio
import json

from client.api import ServerError
from client.commands.common import UsageError
from client.terminal import render
from client.terminal.connection import Link, Unreachable, add_server_argument, check_arguments
from client.terminal.render import make_console
from protocol.daily import day_of, next_day_start_ms, parse_day
from protocol.errors import BadGame
from protocol.fields import MAX_BOARD_TOP
from protocol.games import GAMES, rules_for


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game", metavar="GAME", choices=list(GAMES), help=f"one of: {', '.join(GAMES)}"
    )
    parser.add_argument(
        "--date", metavar="YYYY-MM-DD", help="a past day's board (default today, UTC)"
    )
    parser.add_argument(
        "--top",
        metavar="N",
        type=_top,
        default=10,
        help=f"how many of the best to show, 1 to {MAX_BOARD_TOP} (default 10)",
    )
    parser.add_argument(
        "--best",
        action="store_true",
        help="the all-time board: each player's best ranked daily run",
    )
    parser.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    add_server_argument(parser)


def _top(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_BOARD_TOP:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MAX_BOARD_TOP}")
    return int(text)


def run(args: argparse.Namespace) -> int:
    check_arguments(args, "board")
    if args.date is not None:
        if args.best:
            raise UsageError("solrace board: --date and --best do not go together")
        try:
            parse_day(args.date)
        except BadGame as error:
            raise UsageError(f"solrace board: --date: {error.message}") from None
    return asyncio.run(board(args))


async def board(args: argparse.Namespace) -> int:
    console = make_console()
    try:
        link = await Link.open(args.server, "board")
    except Unreachable as error:
        return render.failure(str(error))
    try:
        client = link.client
        if args.best:
            data = await client.best_board(args.game, top=args.top, around=0)
        else:
            data = await client.daily_board(args.game, day=args.date, top=args.top, around=0)
    except ServerError as error:
        return render.failure(f"{error.message} [{error.code}]")
    finally:
        await link.close()
    if args.json:
        print(json.dumps(data, separators=(",", ":")))
        return 0
    rules = rules_for(args.game)
    if args.best:
        title = f"{rules.title}: all-time best ({render.count(data['total'], 'player')})"
    else:
        players = render.count(data["total"], "player")
        title = f"{rules.title}: daily challenge of {data['day']} ({players})"
    if data["top"]:
        console.print(render.leaderboard(console, data["top"], "", rules.card_total, title))
    else:
        console.print(f"{title}: no runs yet.")
    if data.get("commitment"):
        console.print(f"The deal was sealed before play: {data['commitment']}")
    if data.get("deal"):
        console.print(
            f"The deal was number {data['deal']} (nonce {data['nonce']}); "
            f"check every run: solrace verify daily {args.game} {data['day']}"
        )
    now_ms = link.server_now_ms()
    next_day = data.get("next_day_ms") or next_day_start_ms(day_of(now_ms))
    console.print(
        f"The next daily challenge begins in {render.span(next_day - now_ms)} (midnight UTC)."
    )
    return 0
