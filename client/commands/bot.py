"""``solrace bot``: bots that join a race, create one, or play the daily challenge through
a real server, seeing only what a person would see (see client/bot.py)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets

from client.bot import run_bots
from client.commands.common import UsageError
from client.terminal.connection import clean_name
from protocol.deals import parse_deal_number
from protocol.games import GAMES

MAX_PREFIX = 17  # a name is at most 24 characters: the prefix, up to "50", "-" and the tag


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server",
        default=os.environ.get("SOLRACE_SERVER", "ws://127.0.0.1:8765/ws"),
        help="websocket URL of the server [SOLRACE_SERVER]",
    )
    parser.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    parser.add_argument(
        "--name",
        default="bot",
        help=f"name prefix, 1 to {MAX_PREFIX} characters; bots are NAME1-TAG, NAME2-TAG, ... "
        "where TAG is four random hex digits, one per command (default bot)",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=0.5,
        help="seconds between a bot's actions (default 0.5); keep it above 1/30 s, the "
        "server's default rate limit per connection",
    )
    parser.add_argument(
        "--nodes", type=int, default=50_000, help="solver budget per plan (positions)"
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--race", help="join this race")
    what.add_argument(
        "--create",
        choices=list(GAMES),
        metavar="GAME",
        help="create a race of GAME for the bots (all of them race)",
    )
    what.add_argument(
        "--daily",
        choices=list(GAMES),
        metavar="GAME",
        help="each bot plays today's daily challenge of GAME",
    )
    parser.add_argument("--deal", help="with --create: the deal number")
    parser.add_argument("--options", default="{}", help="with --create: game options as JSON")
    parser.add_argument("--json", action="store_true", help="print each bot's last reply as JSON")


def bot_names(prefix: str, count: int) -> list[str]:
    """``prefix`` numbered from 1, then a random tag shared by this command's bots: distinct
    within one command, and (but for a 1-in-65,536 chance) from another command's bots."""
    tag = secrets.token_hex(2)
    return [f"{prefix}{i + 1}-{tag}" for i in range(count)]


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.count <= 50:
        raise SystemExit("error: solrace bot: --count must be from 1 to 50")
    create = None
    if args.create:
        create = {
            "game": args.create,
            "options": json.loads(args.options) or None,
            "deal": parse_deal_number(args.deal) if args.deal else None,
        }
    if not 1 <= len(args.name) <= MAX_PREFIX or clean_name(args.name) != args.name:
        raise UsageError(f"solrace bot: --name must be 1 to {MAX_PREFIX} printable characters")
    names = bot_names(args.name, args.count)
    results = asyncio.run(
        run_bots(
            args.server,
            names,
            race=args.race,
            create=create,
            daily=args.daily,
            pace_s=args.pace,
            nodes=args.nodes,
        )
    )
    for name, result in zip(names, results, strict=True):
        if args.json:
            print(json.dumps({"bot": name, **result}))
        else:
            print(
                f"{name}: {result.get('outcome')} after {result.get('actions', 0)} actions"
                + (f" in {result['time_ms'] / 1000:.1f} s" if result.get("time_ms") else "")
            )
    return 0
