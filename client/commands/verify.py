"""``solrace verify race RACE`` and ``solrace verify daily GAME DAY``: check results without
trusting the server. The race's public log (``race_log``) is fetched from ``--server`` (or
read from a file saved with ``--save``), its commitment recomputed, and every racer's
actions replayed with the engine (``protocol/verify.py``); for a daily challenge, every
run on the day's board (its ``--top``), each against the day's committed deal, and the
board's order. Exit 0 only when everything matches; each mismatch is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from client.api import ServerError
from client.cli import UsageError
from client.terminal.connection import Link, Unreachable, add_server_argument
from protocol.daily import parse_day
from protocol.errors import BadGame
from protocol.fairness import commitment, daily_scope
from protocol.games import GAMES, rules_for
from protocol.messages import MAX_BOARD_TOP
from protocol.ranking import Run, ranked
from protocol.verify import check_log

MISMATCH = 1  # exit status when something does not match
USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="WHAT")
    race = kinds.add_parser("race", help="a finished race, by its id")
    race.add_argument("race", nargs="?", metavar="RACE", help="the race id")
    daily = kinds.add_parser("daily", help="a past day's daily challenge of a game")
    daily.add_argument("game", nargs="?", metavar="GAME", help=f"one of: {', '.join(GAMES)}")
    daily.add_argument("day", nargs="?", metavar="YYYY-MM-DD", help="a day that is over")
    daily.add_argument(
        "--top",
        type=int,
        default=MAX_BOARD_TOP,
        metavar="N",
        help=f"how many of the board's best runs to check (at most {MAX_BOARD_TOP})",
    )
    for sub in (race, daily):
        add_server_argument(sub)
        sub.add_argument("--save", metavar="FILE", help="also save what was fetched, as JSON")
        sub.add_argument("--file", metavar="FILE", help="check a saved file instead")


def run(args: argparse.Namespace) -> int:
    if args.file:
        try:
            data = json.loads(Path(args.file).read_text())
        except (OSError, ValueError) as error:
            raise UsageError(f"solrace verify: cannot read {args.file}: {error}") from None
    else:
        _check_arguments(args)
        try:
            data = asyncio.run(_fetch(args))
        except Unreachable as error:
            print(f"solrace verify: {error}", file=sys.stderr)
            return USAGE
        except ServerError as error:
            print(f"solrace verify: the server refused: {error.message} [{error.code}]")
            return MISMATCH
        if args.save:
            Path(args.save).write_text(json.dumps(data, indent=1))
    problems = check_daily(data) if data.get("kind") == "daily" else check_log(data)
    name = f"daily {data['game']} {data['day']}" if data.get("kind") == "daily" else data["race"]
    if problems:
        print(f"{name}: {len(problems)} mismatch(es):")
        for problem in problems:
            print(f"  - {problem}")
        return MISMATCH
    checked = len(data["logs"]) if data.get("kind") == "daily" else len(data["racers"])
    print(f"{name}: everything matches ({checked} run(s) replayed)")
    return 0


def _check_arguments(args: argparse.Namespace) -> None:
    if args.kind == "race" and not args.race:
        raise UsageError("solrace verify race: give a RACE id, or --file")
    if args.kind == "daily":
        if args.game not in GAMES or not args.day:
            raise UsageError("solrace verify daily: give a GAME and a DAY, or --file")
        try:
            parse_day(args.day)
        except BadGame as error:
            raise UsageError(f"solrace verify daily: {error.message}") from None
        if not 1 <= args.top <= MAX_BOARD_TOP:
            raise UsageError(f"solrace verify daily: --top is 1 to {MAX_BOARD_TOP}")


async def _fetch(args: argparse.Namespace) -> dict[str, Any]:
    link = await Link.open(args.server, "verifier")
    try:
        client = link.client
        if args.kind == "race":
            return await client.race_log(args.race)
        board = await client.daily_board(args.game, day=args.day, top=args.top, around=0)
        shown = board["deal"] is not None  # others' runs only once the day is over
        logs = [await client.race_log(entry["race"]) for entry in board["top"]] if shown else []
        return {"kind": "daily", "game": args.game, "day": args.day, "board": board, "logs": logs}
    finally:
        await link.close()


def check_daily(data: dict[str, Any]) -> list[str]:
    """A day's board against its commitment and the replays of its runs."""
    board, logs = data["board"], data["logs"]
    problems: list[str] = []
    if board.get("deal") is None or board.get("nonce") is None:
        return ["the board does not show the day's deal and nonce yet (the day is not over)"]
    deal, nonce = int(board["deal"]), board["nonce"]
    options = dict(rules_for(data["game"]).options)
    if (
        commitment(data["game"], daily_scope(data["day"]), options, deal, nonce)
        != board["commitment"]
    ):
        problems.append("the day's commitment is not the hash of its deal and nonce")
    for entry, log in zip(board["top"], logs, strict=True):
        who = entry["name"]
        if log["commitment"] != board["commitment"] or log["deal"] != board["deal"]:
            problems.append(f"{who}'s run was not on the day's committed deal")
        problems += [f"{who}: {problem}" for problem in check_log(log)]
        (own,) = [e for e in log["result"]["ranking"] if e["player"] == entry["player"]]
        for field in ("finished", "time_ms", "actions", "progress", "at_ms"):
            if entry[field] != own[field]:
                problems.append(f"{who}'s {field} on the board is not their run's")
    runs = [
        Run.from_dict({k: v for k, v in e.items() if k not in ("rank", "bot")})
        for e in board["top"]
    ]
    if [run.player for run in ranked(runs)] != [run.player for run in runs]:
        problems.append("the board's order is not the ranking rule's")
    return problems
