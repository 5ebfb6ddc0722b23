"""``solrace admin``: a moderator's tools, authenticated by the server's admin token
(``SOLRACE_ADMIN_TOKEN``, or ``--token-file``), never by a player's account.

    solrace admin flagged                       the runs and races waiting for a moderator
    solrace admin review RACE                   one race's fair-play review and signals
    solrace admin clear RACE --reason TEXT      a flagged run goes on the boards (or is rated)
    solrace admin void RACE --reason TEXT       off the boards; its rating changes taken back
    solrace admin close USERNAME --reason TEXT  the account can no longer sign in
    solrace admin rename USERNAME NEW --reason TEXT
    solrace admin audit                         the moderators' latest actions
    solrace admin arena create --game G --title T --start ISO --minutes M --heat-size K
        [--key KEY] [--rating-min R] [--rating-max R] [--min-rated-games N] [--by NAME]
                                                an operator's arena, listed and run as the
                                                calendar's (docs/arenas.md)

Every change is written in the server's audit log with its reason, every read and every
wrong token with the address it came from. ``--json`` prints the
server's answer as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from client.api import ServerError
from client.commands.common import UsageError
from client.terminal import render
from client.terminal.connection import Link, Unreachable, add_server_argument, check_arguments
from protocol.fairplay import REASONS as SIGNAL_REASONS

# what each reason a review gives means: the signals' (protocol/fairplay.py) and the
# server's own (server/races/fairplay.py)
REASONS = {
    **SIGNAL_REASONS,
    "related_account": "an account related to one that started the day's daily first",
}

# subcommand -> (the request's command, its positional fields)
SUBCOMMANDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "flagged": ("flagged", ()),
    "review": ("review", ("race",)),
    "clear": ("clear", ("race",)),
    "void": ("void", ("race",)),
    "close": ("close_account", ("username",)),
    "rename": ("rename_account", ("username", "new_username")),
    "audit": ("audit", ()),
    "arena": ("arena_create", ("action",)),  # ``arena create`` and its options
}
ARENA_OPTIONS = ("game", "key", "title", "minutes", "heat_size", "rating_min", "rating_max")
NEEDS_REASON = {"clear", "void", "close", "rename"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "what", metavar="WHAT", choices=list(SUBCOMMANDS), help=" | ".join(SUBCOMMANDS)
    )
    parser.add_argument("target", nargs="*", metavar="ARG", help="a race id, or usernames")
    parser.add_argument("--reason", help="why (kept in the audit log; needed for a change)")
    parser.add_argument(
        "--token-file",
        type=Path,
        help="a file holding the admin token [default: SOLRACE_ADMIN_TOKEN]",
    )
    parser.add_argument("--limit", type=int, default=20, help="entries listed, 1 to 100")
    parser.add_argument("--json", action="store_true", help="print the server's answer as JSON")
    arena = parser.add_argument_group("arena create")
    arena.add_argument("--game", help="the arena's game")
    arena.add_argument("--key", default="event", help="its key in its id, 1 to 16 of a-z 0-9")
    arena.add_argument("--title", help="its title, 1 to 60 characters")
    arena.add_argument("--start", help="its start, ISO 8601 (UTC unless it says), a whole minute")
    arena.add_argument("--minutes", type=int, help="how long it runs, 5 to 360")
    arena.add_argument("--heat-size", type=int, help="racers in a heat, 2 to 4")
    arena.add_argument("--rating-min", type=int, help="the lowest rating in the game it takes")
    arena.add_argument("--rating-max", type=int, help="the highest rating in the game it takes")
    arena.add_argument("--min-rated-games", type=int, default=0, help="rated games it asks")
    arena.add_argument("--by", help="the operator who makes it [default: operator]")
    add_server_argument(parser)


def run(args: argparse.Namespace) -> int:
    check_arguments(args, "admin")
    command, fields = SUBCOMMANDS[args.what]
    if len(args.target) != len(fields):
        wanted = " ".join(field.upper() for field in fields) or "nothing more"
        raise UsageError(f"solrace admin {args.what}: takes {wanted}")
    if args.what in NEEDS_REASON and not args.reason:
        raise UsageError(f"solrace admin {args.what}: --reason is needed (for the audit log)")
    if not 1 <= args.limit <= 100:
        raise UsageError("solrace admin: --limit must be 1 to 100")
    token = _token(args.token_file)
    request: dict[str, Any] = dict(zip(fields, args.target, strict=True))
    if args.what == "arena":
        request = _arena_request(args)
    if args.reason:
        request["reason"] = args.reason
    if command in ("flagged", "audit"):
        request["limit"] = args.limit
    return asyncio.run(_admin(args, token, command, request))


def _arena_request(args: argparse.Namespace) -> dict[str, Any]:
    """``arena create``'s fields (the server checks their ranges: ``bad_arena``)."""
    if args.target != ["create"]:
        raise UsageError("solrace admin arena: takes create")
    needed = {"--game": args.game, "--title": args.title, "--start": args.start}
    needed |= {"--minutes": args.minutes, "--heat-size": args.heat_size}
    missing = [option for option, value in needed.items() if value is None]
    if missing:
        raise UsageError(f"solrace admin arena create: give {', '.join(missing)}")
    try:
        start = dt.datetime.fromisoformat(args.start)
    except ValueError:
        raise UsageError("solrace admin arena create: --start is not an ISO 8601 time") from None
    if start.tzinfo is None:
        start = start.replace(tzinfo=dt.UTC)
    request = {name: getattr(args, name) for name in ARENA_OPTIONS}
    request |= {"start_ms": int(start.timestamp() * 1000), "min_rated_games": args.min_rated_games}
    if args.by:
        request["username"] = args.by
    return {name: value for name, value in request.items() if value is not None}


def _token(path: Path | None) -> str:
    if path is not None:
        try:
            return path.read_text().strip()
        except OSError as error:
            raise UsageError(f"solrace admin: --token-file: {error.strerror}") from None
    token = os.environ.get("SOLRACE_ADMIN_TOKEN", "").strip()
    if not token:
        raise UsageError("solrace admin: no admin token (SOLRACE_ADMIN_TOKEN or --token-file)")
    return token


async def _admin(args: argparse.Namespace, token: str, command: str, fields: dict[str, Any]) -> int:
    try:
        link = await Link.open(args.server, "moderator")
    except Unreachable as error:
        return render.failure(str(error))
    try:
        answer = await link.client.request("admin", token=token, command=command, **fields)
    except ServerError as error:
        return render.failure(f"{error.message} [{error.code}]")
    finally:
        await link.close()
    if args.json:
        print(json.dumps(answer, separators=(",", ":")))
    else:
        for line in lines(command, answer):
            print(line)
    return 0


def lines(command: str, answer: dict[str, Any]) -> list[str]:
    """What a person reads of ``answer``."""
    if command == "flagged":
        reviews = answer["reviews"]
        return [review_line(review) for review in reviews] or ["Nothing is waiting."]
    if command == "audit":
        return [audit_line(entry) for entry in answer["entries"]] or ["No moderator's action yet."]
    if "review" in answer:
        review = answer["review"]
        out = [review_line(review)]
        for player, seen in review["players"].items():
            signals = seen["signals"]
            out.append(
                f"  {seen['name']} ({player}): {signals['actions']} actions, "
                f"{signals['undos']} undos, median think {signals['think_median_ms']} ms, "
                f"spread {signals['think_cv']}, solver line {signals.get('line_kept', '-')}"
                f"/{signals['line_length']} kept, time {signals['time_ms']} ms against a median "
                f"of {signals['history_median_ms']} over {signals['history_runs']} runs, "
                f"useful reveals {signals.get('lucky_reveals', '-')}/"
                f"{signals.get('blind_reveals', '-')} "
                f"(expected {signals.get('lucky_expected', '-')}, z {signals.get('lucky_z', '-')})"
            )
            out += evidence_lines(seen.get("evidence", {}))
        return out
    if "arena" in answer:
        return [arena_line(answer["arena"])]
    account = answer["account"]
    closed = " (closed)" if account["closed"] else ""
    return [f"Account {account['username']} ({account['player']}){closed}."]


def evidence_lines(evidence: dict[str, dict[str, Any]]) -> list[str]:
    """One line per reason a player was flagged: the figures that flag it, the rule's
    threshold beside them (a reason this client does not know is shown by its name)."""
    return [
        f"    {REASONS.get(reason, reason)}: "
        + ", ".join(f"{name} {value}" for name, value in figures.items())
        for reason, figures in evidence.items()
    ]


def review_line(review: dict[str, Any]) -> str:
    """One line per review: the race, what it is, its status and why it was flagged."""
    why = sorted({r for seen in review["players"].values() for r in seen["reasons"]})
    names = ", ".join(seen["name"] for seen in review["players"].values())
    day = f" {review['day']}" if review.get("day") else ""
    held = " held" if review.get("held") else ""
    return (
        f"{review['race']} {review['kind']} {review['game']}{day} [{review['status']}{held}] "
        f"{names}: " + ("; ".join(REASONS.get(r, r) for r in why) or "nothing flagged")
    )


def audit_line(entry: dict[str, Any]) -> str:
    """One audit entry: when, from where, what on what, and why (or that it was refused)."""
    words = [str(entry["at_ms"]), str(entry.get("address", "?")), entry["command"]]
    words += [str(entry[k]) for k in ("race", "username", "new_username") if k in entry]
    if "refused" in entry:
        return " ".join(words) + f": refused ({entry['refused']})"
    return " ".join(words) + (f": {entry['reason']}" if "reason" in entry else "")


def arena_line(arena: dict[str, Any]) -> str:
    """An operator's arena made: its id, title, game, start, length and heats."""
    start = dt.datetime.fromtimestamp(arena["start_ms"] / 1000, dt.UTC)
    return (
        f"Arena {arena['id']}: {arena['title']} ({arena['game']}), from "
        f"{start:%Y-%m-%d %H:%M} UTC for {arena['length_ms'] // 60_000} minutes, "
        f"heats of {arena['heat_size']}."
    )
