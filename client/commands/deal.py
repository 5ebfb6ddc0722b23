"""``solrace deal GAME NUMBER [NUMBER ...]``: the dealer's view of deals, every card shown."""

from __future__ import annotations

import argparse
import json

from client.commands.common import add_game_arguments, deal_number, rules_from
from client.text import draw


def configure(parser: argparse.ArgumentParser) -> None:
    add_game_arguments(parser)
    parser.add_argument("numbers", nargs="+", metavar="NUMBER", help="deal numbers, 1 to 10**20-1")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")


def run(args: argparse.Namespace) -> int:
    rules = rules_from(args)
    numbers = [deal_number(text) for text in args.numbers]
    for i, number in enumerate(numbers):
        position = rules.deal(number)
        if args.json:
            print(json.dumps(position.dealer_json(rules.name, number), separators=(",", ":")))
        else:
            if i:
                print()
            print(f"{rules.title} deal {number} ({rules.describe_options()})")
            print(draw(position, rules))
    return 0
