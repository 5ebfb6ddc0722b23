"""``solrace bench fairplay``'s own options and its run: on a real server (the default),
``--offline`` (the plans without a server, ``bench/fairplayoffline.py``), ``--accounts``
(the rules over an account's runs on saved runs, ``bench/fairplayaccounts.py`` and
``bench/fairplayrecord.py``) and ``--field`` (the time rules on simulated days,
``bench/fairplayfield.py``)."""

from __future__ import annotations

import argparse
import asyncio
import json


def fairplay_options(parser: argparse.ArgumentParser) -> None:
    """The options only ``bench fairplay`` reads (``--players``, ``--seed``, ``--quick`` and
    ``--json`` are the command's)."""
    offline = "fairplay: no server; the plans' signals on DEALS deals a game (--players a deal)"
    parser.add_argument("--offline", type=int, metavar="DEALS", help=offline)
    knowers = "fairplay --offline: knowers a deal (4)"
    parser.add_argument("--knowers", type=int, default=4, help=knowers)
    save = "fairplay --offline: write each run's figures to FILE"
    parser.add_argument("--save", metavar="FILE", help=save)
    accounts = "fairplay: the rule over an account's runs on accounts drawn from saved runs"
    parser.add_argument("--accounts", nargs="+", metavar="FILE", help=accounts)
    simulated = "fairplay: the time rules on simulated days of a daily board (no server)"
    parser.add_argument("--field", action="store_true", help=simulated)
    field_accounts = "fairplay --field: honest accounts (2000)"
    parser.add_argument("--field-accounts", type=int, default=2000, help=field_accounts)
    parser.add_argument("--days", type=int, default=30, help="fairplay --field: days (30)")


def run_fairplay(args: argparse.Namespace) -> int:
    """Simulated honest players, cheaters and bots on a real server: the shares flagged."""
    from bench.fairplayaccounts import measure_accounts, print_accounts
    from bench.fairplaybench import measure, print_fairplay
    from bench.fairplayfield import measure_field, print_field
    from bench.fairplayoffline import measure_offline, print_offline
    from bench.fairplayrecord import print_record, record_shares
    from bench.reporting import reported

    if args.field:
        field = measure_field(args.field_accounts, args.days, args.seed, args.quick)
        return reported(field, args.json, print_field)
    if args.accounts:
        accounts = measure_accounts(args.accounts, args.seed)
        accounts["record"] = record_shares(args.accounts, args.seed)
        if args.json:
            print(json.dumps(accounts))
        else:
            print_accounts(accounts)
            print_record(accounts["record"])
        return 0
    if args.offline:
        figures = measure_offline(
            args.offline, args.players or 40, args.seed, args.knowers, args.save
        )
        print(json.dumps(figures)) if args.json else print_offline(figures)
        return 0
    honest = (4 if args.quick else 100) if args.players is None else args.players
    result = asyncio.run(measure(honest, args.quick, args.seed))
    print(json.dumps(result)) if args.json else print_fairplay(result)
    return 0
