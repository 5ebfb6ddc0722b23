"""The ``solrace`` command: one argparse parser, one module per subcommand.

Each command module defines ``configure(parser)`` and ``run(args) -> int``. Bad input on
the command line (an unknown game, a deal number out of range, an unreadable file) is one
line on standard error and exit status 2, never a traceback. When standard output is a
pipe that closes early (``solrace solve ... --json | head``), the command stops quietly with
exit status 141, as a shell reports for a tool ended by SIGPIPE.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from client.api import ServerError
from client.commands.common import UsageError
from protocol.errors import SolraceError

USAGE_ERROR = 2
BROKEN_PIPE = 128 + signal.SIGPIPE  # 141: the reader of standard output has gone

# name -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.command", "run the race server"),
    "deal": ("client.commands.deal", "print the layout of deals by number"),
    "replay": ("client.commands.replay", "replay actions on a deal and print the position"),
    "bench": ("bench.command", "measure the engine or the server"),
    "play": ("client.commands.play", "race, or play the daily challenge, in the terminal"),
    "watch": ("client.commands.watch", "watch a race live: every racer's board"),
    "board": ("client.commands.board", "the daily (or all-time) leaderboard of a game"),
    "arena": ("client.commands.arena", "arenas: the list with countdowns, standings, watching"),
    "solve": ("client.commands.solve", "find a win for a deal, or prove there is none"),
    "study": ("client.commands.study", "solve a range of deals and tally the verdicts"),
    "bot": ("client.commands.bot", "bots that race through a server, seeing only their view"),
    "verify": ("client.commands.verify", "check a race's or a day's results by replaying them"),
    "admin": ("client.commands.admin", "moderators' tools: flagged runs, voids, accounts"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="solrace", description="A real-time race server for patience games.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command, (module_name, help_text) in COMMANDS.items():
        sub = commands.add_parser(command, help=help_text, description=help_text)
        module = importlib.import_module(module_name)
        module.configure(sub)
        sub.set_defaults(module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except BrokenPipeError:
        # Python ignores SIGPIPE, so a write to a pipe nobody reads raises instead. Point
        # standard output at /dev/null so that nothing fails again on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result: int = args.module.run(args)
    except BrokenPipeError:
        raise  # standard output is closed: not a bad file (below), see main
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except ServerError as error:
        print(f"solrace: the server refused: {error.message} [{error.code}]", file=sys.stderr)
        return 1
    except SolraceError as error:
        print(f"solrace: error: {error.message}", file=sys.stderr)
        return USAGE_ERROR
    except OSError as error:
        print(f"solrace: error: {os_error_text(error)}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    return result


def os_error_text(error: OSError) -> str:
    """What failed, in words: the system's text (and the file), or for an error that has
    none (a timeout) what kind it is."""
    text = error.strerror or str(error)
    if not text:
        kind = "timed out" if isinstance(error, TimeoutError) else "failed"
        return f"{kind} ({type(error).__name__})"
    return f"{text}: {error.filename}" if error.filename else text


if __name__ == "__main__":
    sys.exit(main())
