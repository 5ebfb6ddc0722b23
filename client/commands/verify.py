"""``solrace verify race RACE``, ``solrace verify daily GAME DAY`` and ``solrace verify arena
ARENA``: check results without trusting the server. The race's public log (``race_log``) is
fetched from ``--server`` (or read from a file saved with ``--save``), its commitment
recomputed, and every racer's actions replayed with the engine (``protocol/verify.py``);
for a daily challenge, every run on the day's board (its ``--top``), each against the
day's committed deal, and the board's order; for an ended arena, its signed final result
(``arena_result``) and every heat's log, each heat's result against its race and the
standings recomputed from the log (``protocol/verify_arena.py``). Exit 0 only when
everything matches; each mismatch is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from itertools import islice
from pathlib import Path
from typing import Any

from client.api import Client, ServerError
from client.commands.common import UsageError
from client.commands.pinning import Trust, read_json, trusted_keys
from client.terminal.connection import Link, Unreachable, add_server_argument
from protocol.daily import candidate_deals, parse_day, seed_matches
from protocol.daily_choice import certified_choice, max_candidates
from protocol.errors import BadGame
from protocol.fairness import commitment, daily_scope
from protocol.fields import MAX_BOARD_TOP
from protocol.games import GAMES, rules_for
from protocol.ranking import Run, ranked
from protocol.receipts import receipts
from protocol.signing import signature_problem
from protocol.solver.certify import Certified
from protocol.verify import check_log
from protocol.verify_arena import BadArenaResult, check_arena

MISMATCH = 1  # exit status when something does not match
USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="WHAT")
    race = kinds.add_parser("race", help="a finished race, by its id")
    race.add_argument("race", nargs="?", metavar="RACE", help="the race id")
    daily = kinds.add_parser("daily", help="a past day's daily challenge of a game")
    daily.add_argument("game", nargs="?", metavar="GAME", help=f"one of: {', '.join(GAMES)}")
    daily.add_argument("day", nargs="?", metavar="YYYY-MM-DD", help="a day that is over")
    arena = kinds.add_parser("arena", help="an ended arena, by its id")
    arena.add_argument("arena", nargs="?", metavar="ARENA", help="the arena id")
    daily.add_argument(
        "--top",
        type=int,
        default=MAX_BOARD_TOP,
        metavar="N",
        help=f"how many of the board's best runs to check (at most {MAX_BOARD_TOP})",
    )
    daily.add_argument(
        "--choice",
        action="store_true",
        help="also check the day's deal was chosen by the rule from the day's seed in the "
        "published hash chain (re-runs the certification: minutes for Shady Lanes)",
    )
    race.add_argument(
        "--receipt",
        metavar="HEX",
        help="the last receipt your client was given in this race (an act answer's "
        "'receipt'): checks the log holds exactly the actions you were told were accepted",
    )
    for sub in (race, daily, arena):
        add_server_argument(sub)
        sub.add_argument("--save", metavar="FILE", help="also save what was fetched, as JSON")
        sub.add_argument("--file", metavar="FILE", help="check a saved file instead")
        sub.add_argument(
            "--keys",
            metavar="FILE",
            help="the server's public keys (its GET /signing-keys answer, saved) to check "
            "signatures with; default: asked of --server. Only keys pinned for --server "
            "(the first ones seen, kept in ~/.config/solrace/known-keys.json) or given by "
            "--pin are trusted",
        )
        sub.add_argument(
            "--pin",
            metavar="FINGERPRINT",
            help="trust (and pin for --server) only the key with this fingerprint: the "
            "SHA-256 of the public key (64 hex digits) or its key id (the first 16), as "
            "the operators publish it",
        )


def run(args: argparse.Namespace) -> int:
    if args.file:
        data = read_json(args.file, "a log or a day's board")
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
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind == "arena":
        return _arena(args, data)
    try:
        daily = kind == "daily"
        problems = check_daily(data) if daily else check_log(data)
        name = f"daily {data['game']} {data['day']}" if daily else data["race"]
        signed = [data["board"], *data["logs"]] if daily else [data]
        trust = trusted_keys(args.server, args.keys, args.pin)
        proven = [*trust.said, *_signatures(signed, trust, problems)]
        if not daily and args.receipt:
            proven.append(_receipt(data, args.receipt.strip().lower(), problems))
        if daily and args.choice:
            proven.append(_choice(data, problems))
        committed = data["board"]["commitment"] if daily else data["commitment"]
    except RecursionError:
        raise UsageError("solrace verify: the file is too deeply nested to be a log") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise UsageError(f"solrace verify: not a log or a day's board ({error!r})") from None
    print(f"commitment: {committed} (compare it with the one shown before play)")
    for line in proven:
        print(line)
    if problems:
        print(f"{name}: {len(problems)} mismatch(es):")
        for problem in problems:
            print(f"  - {problem}")
        return MISMATCH
    checked = len(data["logs"]) if daily else len(data["racers"])
    print(
        f"{name}: everything matches ({checked} run(s) replayed; the deal is the one "
        "committed to, every action legal with times from 0 in order, each outcome, place "
        "and time recomputed, each racer once)"
    )
    return 0


def _arena(args: argparse.Namespace, data: dict[str, Any]) -> int:
    """An arena's final result and its heats' logs: every heat replayed and held against
    the result logged, and the standings recomputed from the log."""
    try:
        result, logs = data["result"], data["logs"]
        problems = check_arena(result, logs)
        played = [log for log in logs.values() if log is not None]
        trust = trusted_keys(args.server, args.keys, args.pin)
        proven = [*trust.said, *_signatures([result, *played], trust, problems)]
    except BadArenaResult as error:
        raise UsageError(f"solrace verify: {error.message}") from None
    except RecursionError:
        raise UsageError("solrace verify: the file is too deeply nested to be a result") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        raise UsageError(f"solrace verify: not an arena's result ({error!r})") from None
    for line in proven:
        print(line)
    name = f"arena {result['arena']}"
    if problems:
        print(f"{name}: {len(problems)} mismatch(es):")
        for problem in problems:
            print(f"  - {problem}")
        return MISMATCH
    print(
        f"{name}: everything matches ({len(played)} heat(s) replayed, each heat's result "
        f"the race's, {len(result['standings'])} standings line(s) recomputed from its "
        f"{len(result['log'])} log entries)"
    )
    return 0


def _signatures(documents: list[dict[str, Any]], trust: Trust, problems: list[str]) -> list[str]:
    """Each signature checked against the trusted keys (a failure goes to ``problems``);
    what was proven, to print. No key at all is a failure too: nothing was proven."""
    if not trust.keys:
        problems.append(
            f"the signatures were not checked: no key is {trust.name}, and none was offered "
            "(give --keys FILE, a reachable --server, or --pin with a pinned key)"
        )
        return ["signatures: NOT CHECKED (no key to check them with): this proves nothing"]
    failed = False
    for document in documents:
        signer = (document.get("signature") or {}).get("key")
        if signer is not None and str(signer) not in trust.keys:
            trouble: str | None = f"it is signed with key {signer!r}, which is not {trust.name}"
        else:
            trouble = signature_problem(document, trust.keys)
        if trouble is not None:
            failed = True
            problems.append(f"the server's signature: {trouble}")
    return [] if failed else [f"signatures: all {len(documents)} by {trust.by}"]


def _receipt(log: dict[str, Any], receipt: str, problems: list[str]) -> str:
    """Whose log the receipt is the running hash of: it proves that racer's whole log only
    when it is the receipt after their last action (docs/fairness.md, "Receipts")."""
    for racer in log["racers"]:
        told = receipts(log["race"], racer["player"], racer["actions"])
        if receipt not in told:
            continue
        at, name = told.index(receipt) + 1, racer["name"]
        if at < len(told):
            problems.append(
                f"the log holds {len(told) - at} action(s) of {name} after the receipt's "
                "that it does not prove you were told of: give the last receipt your client "
                "was given (if its answer was lost, an action you sent can be among them)"
            )
            return (
                f"receipt: {name}'s first {at} action(s) of {len(told)} match it, not the whole log"
            )
        return (
            f"receipt: {name}'s {at} action(s), all of them, are exactly those the server "
            "said it accepted"
        )
    problems.append(
        "the receipt matches no racer's log: an action you were told was accepted is "
        "missing, changed or moved"
    )
    return "receipt: does not match"


def _check_arguments(args: argparse.Namespace) -> None:
    if args.kind == "race" and not args.race:
        raise UsageError("solrace verify race: give a RACE id, or --file")
    if args.kind == "arena" and not args.arena:
        raise UsageError("solrace verify arena: give an ARENA id, or --file")
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
        if args.kind == "arena":
            return await _fetch_arena(client, args.arena)
        board = await client.daily_board(args.game, day=args.day, top=args.top, around=0)
        shown = board["deal"] is not None  # others' runs only once the day is over
        logs = [await client.race_log(entry["race"]) for entry in board["top"]] if shown else []
        return {
            "kind": "daily",
            "game": args.game,
            "day": args.day,
            "top": args.top,
            "board": board,
            "logs": logs,
        }
    finally:
        await link.close()


async def _fetch_arena(client: Client, arena: str) -> dict[str, Any]:
    """The arena's signed result and each heat's log (None: its race never opened)."""
    result = await client.arena_result(arena)
    logs: dict[str, dict[str, Any] | None] = {}
    for heat in result["heats"]:
        try:
            logs[heat["heat"]] = await client.race_log(heat["heat"])
        except ServerError as error:
            if error.code != "race_not_found":
                raise
            logs[heat["heat"]] = None
    return {"kind": "arena", "arena": arena, "result": result, "logs": logs}


def check_daily(data: dict[str, Any]) -> list[str]:
    """A day's board against its commitment and the replays of its runs."""
    board, logs = data["board"], data["logs"]
    problems: list[str] = []
    if board.get("deal") is None or board.get("nonce") is None:
        return ["the board does not show the day's deal and nonce yet (the day is not over)"]
    deal, nonce = int(board["deal"]), board["nonce"]
    top = board["top"]
    if [entry["rank"] for entry in top] != list(range(1, len(top) + 1)):
        problems.append("the board's places are not 1, 2, 3, ... in order: an entry is missing")
    if len({entry["player"] for entry in top}) != len(top):
        problems.append("a player is on the board twice")
    asked = data.get("top")
    if asked is not None and len(top) != min(board["total"], asked):
        problems.append(f"the board shows {len(top)} of its best {min(board['total'], asked)}")
    if len(data["logs"]) != len(top):
        return [*problems, "a run on the board has no log"]
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


def _choice(data: dict[str, Any], problems: list[str]) -> str:
    """The day's deal is the first of the day's candidates (from its seed in the chain)
    that the certification accepts, the seed in the chain of the published anchor."""
    board, game, day = data["board"], data["game"], data["day"]
    chain = board.get("chain") or {}
    seed, anchor = chain.get("seed"), chain.get("anchor")
    if not seed or not anchor or board.get("deal") is None:
        problems.append("the day's seed is not shown yet (its day is not over)")
        return "choice: not checked"
    if not seed_matches(seed, day, anchor):
        problems.append("the day's seed does not hash to the chain's anchor")
        return "choice: the seed is not in the chain"
    candidates = list(islice(candidate_deals(game, day, seed), max_candidates(game)))
    deal = int(board["deal"])
    chosen = candidates[0]
    if deal != chosen:  # a certifying server: the first candidate the solver proves
        verdict = certified_choice(game, candidates)  # node budgets only: no clock
        if not isinstance(verdict, Certified):
            problems.append("no candidate of the day's seed was proven winnable here")
            return "choice: not proven"
        chosen = verdict.number
    if deal != chosen:
        problems.append(f"the day's deal {deal} is not the rule's choice from its seed ({chosen})")
        return "choice: does not match"
    return (
        f"choice: the deal is the rule's choice from the day's seed, which hashes to the "
        f"chain's anchor {anchor} (published ahead: compare it with the one you saw)"
    )
