"""Arguments several commands share: a game with its options, and deal numbers; and the
error bad command-line input raises (``UsageError``: one line, exit status 2)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from protocol.deals import parse_deal_number
from protocol.engine import Rules
from protocol.errors import BadGame, SolraceError
from protocol.games import GAMES, rules_for


class UsageError(SolraceError):
    """Bad command-line input: printed as one line, exit status 2."""

    code = "usage"


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(GAMES)}")
    parser.add_argument(
        "--options",
        default="{}",
        metavar="JSON",
        help='game options as a JSON object, e.g. \'{"down": 0, "up": 10}\' for Sanibel',
    )


def rules_from(args: argparse.Namespace) -> Rules:
    try:
        options: Any = json.loads(args.options)
    except (json.JSONDecodeError, RecursionError):
        raise BadGame(f"--options is not JSON: {args.options[:40]!r}", "bad_options") from None
    if not isinstance(options, dict):
        raise BadGame("--options must be a JSON object", "bad_options")
    return rules_for(args.game, options)


def deal_number(text: str) -> int:
    """argparse type for a deal number; BadGame (exit 2) when out of range."""
    return parse_deal_number(text)
