"""``solrace replay GAME NUMBER [FILE|-]``: apply actions (one per line) to a deal and print
the position with its legal actions; ``--trace`` prints every position on the way.

Blank lines and lines starting with ``#`` are skipped. An illegal or malformed action
stops the replay with exit status 1 and ``{"error": {"index", "action", "code", "message"}}``
(``index`` counts actions from 0).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from client.commands.common import UsageError, add_game_arguments, deal_number, rules_from
from client.text import draw
from protocol.engine import GameState, Rules
from protocol.replay import ReplayFailure, replay_steps

ILLEGAL = 1


def configure(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser)
    parser.add_argument("number", metavar="NUMBER", help="the deal number")
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE|-",
        help="actions, one per line (default: standard input)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--trace",
        action="store_true",
        help="print the position after every action, the start first",
    )


def read_actions(source: str) -> list[str]:
    """The action lines of ``source`` (a file name, or ``-`` for standard input)."""
    try:
        if source == "-":
            text = sys.stdin.read()
        else:
            with open(source, encoding="utf-8") as handle:
                text = handle.read()
    except UnicodeDecodeError:
        where = "standard input" if source == "-" else source
        raise UsageError(f"solrace replay: {where} is not UTF-8 text") from None
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def summary(rules: Rules, state: GameState, number: int) -> dict[str, Any]:
    return {
        "state": state.position.dealer_json(rules.name, number),
        "legal": [str(a) for a in rules.legal_actions(state)],
        "won": rules.is_won(state.position),
        "stuck": rules.is_stuck(state),
    }


def describe(rules: Rules, state: GameState) -> str:
    legal = " | ".join(str(a) for a in rules.legal_actions(state)) or "(none)"
    flags = "won" if rules.is_won(state.position) else "stuck" if rules.is_stuck(state) else ""
    return f"{draw(state.position, rules)}\nlegal: {legal}" + (f"\n{flags}" if flags else "")


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    number = deal_number(args.number)
    actions = read_actions(args.file)
    state: GameState | None = None
    try:
        for index, state in enumerate(replay_steps(rules, number, actions)):
            if args.trace:
                _print(rules, state, number, args.json, actions[index - 1] if index else None)
    except ReplayFailure as failure:
        if args.json:
            print(json.dumps({"error": failure.as_dict()}))
        else:
            print(
                f"action {failure.index} ({failure.action!r}) refused: "
                f"{failure.message} [{failure.code}]"
            )
        return ILLEGAL
    assert state is not None
    if not args.trace:
        _print(rules, state, number, args.json, None)
    return 0


def _print(rules: Rules, state: GameState, number: int, as_json: bool, action: str | None) -> None:
    if as_json:
        print(json.dumps(summary(rules, state, number), separators=(",", ":")))
    else:
        print(f"--- after {action}" if action else f"--- {rules.title} deal {number}")
        print(describe(rules, state))
