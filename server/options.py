"""The options of ``solrace serve``, declared once: each names its flag, the ``Settings``
field it sets (whose default it has), its type, its environment variable, its help and the
checks its value must pass. server/command.py makes the argparse options, the ``Settings``
and the checks from this list; the options table in docs/server.md is made from it too:

    python -m server.options --markdown      # print the table
    python -m server.options --write-docs    # put it in docs/server.md
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from server.config import Settings
from server.option_checks import (
    ADMIN_TOKEN,
    CLUSTER,
    DAILY_SECRET,
    FOLDER,
    HOST,
    IN_A_FOLDER,
    NETWORKS,
    NO_BRACES,
    PORT,
    REDIS_URL,
    SENTINELS,
    SIGNING_KEY,
    WAIT_MS,
    Check,
    at_least,
    more_than,
)

DEFAULTS = Settings()
KINDS: dict[type, str] = {
    str: "text",
    int: "whole number",
    float: "number",
    Path: "path",
    bool: "switch",
    tuple: "list",
}


@dataclass(frozen=True, slots=True)
class Option:
    flag: str  # "--port"
    setting: str  # the Settings field it sets; its default is the option's
    env: str  # SOLRACE_<env>; a command-line option wins over its variable
    help: str
    # str, int, float, Path; bool: a switch whose flag turns the default over (its variable
    # says 1/0, on/off, ...); tuple: the flag repeated, the variable comma-separated
    kind: type = str
    checks: tuple[Check, ...] = ()  # run on a value that is not None, in this order
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    floor: float | None = None  # a value under it is taken as it (not refused)
    empty_is_none: bool = False  # an empty value means none (paths: always)

    @property
    def default(self) -> object:
        return getattr(DEFAULTS, self.setting)

    @property
    def variable(self) -> str:
        return f"SOLRACE_{self.env}"

    @property
    def variable_says(self) -> str:
        """The variable as ``--help`` names it: ``SOLRACE_DAILY_CERTIFY=0`` for a switch."""
        if self.kind is bool:
            return f"{self.variable}={0 if self.default else 1}"
        return f"{self.variable}, comma-separated" if self.kind is tuple else self.variable


def _option(
    flag: str,
    kind: type,
    help: str,
    *checks: Check,
    setting: str | None = None,
    env: str | None = None,
    metavar: str | None = None,
    choices: tuple[str, ...] = (),
    floor: float | None = None,
    empty_is_none: bool = False,
) -> Option:
    """An option whose setting and variable are its flag's words (``--grace-ms``:
    ``grace_ms``, ``SOLRACE_GRACE_MS``) unless ``setting`` or ``env`` says otherwise."""
    words = flag.removeprefix("--").replace("-", "_")
    return Option(
        flag,
        setting or words,
        env or words.upper(),
        help,
        kind,
        checks,
        metavar,
        choices,
        floor,
        empty_is_none,
    )


OPTIONS: tuple[Option, ...] = (
    _option("--host", str, "address to listen on", HOST),
    _option(
        "--port",
        int,
        "port for websockets (/ws), /healthz and the browser client (0: any free)",
        PORT,
    ),
    _option(
        "--redis",
        str,
        "Redis URL, e.g. redis://127.0.0.1:6379/0; none: keep everything in this process",
        REDIS_URL,
        setting="redis_url",
        env="REDIS_URL",
        metavar="URL",
    ),
    _option("--redis-prefix", str, "prefix of every Redis key", NO_BRACES),
    _option(
        "--redis-sentinel",
        str,
        "Redis Sentinel addresses, host:port[,host:port...]: the primary is the one they name "
        "for --redis-service, found again after a failover (--redis, if given, then only says "
        "user, password, database and TLS); none: the --redis URL's Redis",
        SENTINELS,
        setting="redis_sentinels",
        env="REDIS_SENTINELS",
        metavar="HOST:PORT,...",
    ),
    _option(
        "--redis-service",
        str,
        "the name the sentinels know the primary by (with --redis-sentinel)",
        metavar="NAME",
    ),
    _option(
        "--redis-sentinel-password",
        str,
        "the password the sentinels ask for (their requirepass), if any; better given in the "
        "environment (a flag shows in the process list); the primary's own is --redis's",
        metavar="PASSWORD",
        empty_is_none=True,
    ),
    _option(
        "--redis-cluster",
        str,
        "Redis Cluster nodes, host:port[,host:port...] (any few of them: the others are found "
        "from these): every key goes to the primary owning its slot (--redis, if given, then "
        "only says user, password and TLS); not with --redis-sentinel nor --redis-wait-replicas",
        CLUSTER,
        setting="redis_cluster",
        env="REDIS_CLUSTER",
        metavar="HOST:PORT,...",
    ),
    _option(
        "--redis-wait-replicas",
        int,
        "with Redis, a write is answered only once this many replicas have it too (WAIT); "
        "fewer within --redis-wait-ms: not answered, written again; 0: once the primary has it",
        at_least(0),
    ),
    _option(
        "--redis-wait-ms",
        int,
        "how long a write waits for those replicas before it counts as failed",
        WAIT_MS,
    ),
    _option("--grace-ms", int, "how long a dropped player may resume", at_least(0)),
    _option("--countdown-ms", int, "default countdown before a race starts", at_least(0)),
    _option(
        "--max-race-ms",
        int,
        "a running race ends after this long; whoever has not finished did not (4 hours)",
        at_least(1),
    ),
    _option(
        "--any-rating-after-ms",
        int,
        "a quick-race player waiting this long is paired with any rating (20 s)",
        at_least(0),
    ),
    _option(
        "--arena-every-ms",
        int,
        "instead of the calendar, one arena of each game every this many ms, lasting as "
        "long, heats of 2 (a trial or a bench; 0: the calendar)",
        at_least(0),
    ),
    _option(
        "--arena-repeat-after-ms",
        int,
        "in an arena, two last opponents who have both waited this long may meet again when "
        "nobody else is idle for them (20 s)",
        at_least(0),
    ),
    _option(
        "--rate",
        float,
        "requests per second allowed per connection",
        more_than(0),
        setting="rate_per_s",
    ),
    _option("--burst", int, "requests allowed at once per connection", at_least(1)),
    _option(
        "--origin",
        tuple,
        "allowed Origin header (repeat); none: any",
        setting="origins",
        env="ORIGINS",
        metavar="ORIGIN",
    ),
    _option(
        "--trusted-proxy",
        tuple,
        "a proxy whose X-Forwarded-For names the client (repeat; an address or a network): "
        "sign-in limits count by that address",
        NETWORKS,
        setting="trusted_proxies",
        env="TRUSTED_PROXIES",
        metavar="CIDR",
    ),
    _option(
        "--auth-per-address",
        int,
        "registrations, and separately sign-ins, allowed per client address per 10 minutes",
        at_least(1),
    ),
    _option(
        "--auth-per-username",
        int,
        "sign-in attempts allowed per username per 10 minutes, from any address",
        at_least(1),
    ),
    _option(
        "--registrations-per-address",
        int,
        "accounts that may be registered from one client address in a day",
        at_least(1),
        setting="registrations_per_address_day",
    ),
    _option(
        "--rank-new-accounts",
        bool,
        "an account registered today may make today's ranked daily attempt (off: from the "
        "next day on; for small events and tests)",
        setting="new_accounts_ranked_today",
    ),
    _option(
        "--ranked-account-days",
        int,
        "whole days an account must be old for ranked daily attempts and rated races; 0: no "
        "such rule",
        at_least(0),
    ),
    _option(
        "--ranked-account-games",
        int,
        "games it must have finished for ranked daily attempts and rated races; 0: no such rule",
        at_least(0),
    ),
    _option(
        "--connections-per-address",
        int,
        "open websockets allowed per client address on this node (the forwarded address "
        "behind a trusted proxy); more are refused with 429; 0: no limit",
        at_least(0),
    ),
    _option(
        "--ping-interval",
        float,
        "seconds between keepalive pings",
        more_than(0),
        setting="ping_interval_s",
    ),
    _option(
        "--ping-timeout",
        float,
        "seconds a pinged client has to answer before it is disconnected",
        more_than(0),
        setting="ping_timeout_s",
    ),
    _option(
        "--spectator-chunk",
        int,
        "spectators a feed item is written to per loop turn, players' requests read between chunks",
        floor=1,
    ),
    _option(
        "--spectator-pause-ms",
        float,
        "milliseconds between those chunks; 0: the next loop turn",
        floor=0.0,
    ),
    _option(
        "--daily-secret",
        str,
        "secret mixed into the daily deal rule; none: a random one, kept in Redis (or per "
        "process without Redis)",
        DAILY_SECRET,
    ),
    _option(
        "--no-certify",
        bool,
        "do not require daily deals to be proven winnable",
        setting="daily_certify",
        env="DAILY_CERTIFY",
    ),
    _option(
        "--certify-budget-s",
        float,
        "seconds of one worker core spent proving a day's deal winnable, at most; past it the "
        "deal is served with certified: false",
        more_than(0),
        setting="daily_certify_budget_s",
    ),
    _option(
        "--drain-s",
        float,
        "on SIGTERM, seconds to wait for queued writes before spilling the rest to the spill file",
        at_least(0),
        setting="shutdown_grace_s",
    ),
    _option(
        "--max-clock-offset-ms",
        int,
        "a node whose clock is further off the store's (Redis TIME) takes no lease and no new "
        "connection until they agree",
        at_least(1),
    ),
    _option(
        "--spill-file",
        Path,
        "where writes the store could not take are kept at shutdown, for the next start to "
        "write first",
        IN_A_FOLDER,
        setting="spill_path",
        metavar="PATH",
    ),
    _option(
        "--keep-race-logs-days",
        int,
        "days an ended race's record, result and action log stay in the store",
        at_least(1),
    ),
    _option(
        "--keep-identities-days",
        int,
        "days an account's resume token keeps naming it after its last use",
        at_least(1),
    ),
    _option(
        "--signing-key",
        Path,
        "Ed25519 private key (PEM, e.g. from 'openssl genpkey -algorithm ed25519') that race "
        "logs and boards are signed with; none: one made once and kept in the store",
        SIGNING_KEY,
        setting="signing_key_path",
        metavar="PATH",
    ),
    _option(
        "--keep-guests-days",
        int,
        "days a guest's resume token keeps naming them after its last use once they have "
        "played (a guest who never played: one day)",
        at_least(1),
    ),
    _option(
        "--admin-token",
        str,
        "the moderators' token that 'solrace admin' must give (e.g. from 'openssl rand -hex "
        "32'); none: no admin requests are served",
        ADMIN_TOKEN,
        metavar="TOKEN",
        empty_is_none=True,
    ),
    _option(
        "--fair-play-solver-nodes",
        int,
        "the solver's budget for the line ranked runs are compared with (fair-play signals); "
        "0: none",
        at_least(0),
    ),
    _option(
        "--no-hold-flagged",
        bool,
        "flagged runs still go on the boards and rated races are rated at once (the flags "
        "wait for a moderator all the same)",
        setting="hold_flagged",
        env="HOLD_FLAGGED",
    ),
    _option("--static-dir", str, "serve the browser client from this folder", FOLDER),
    _option(
        "--log-level",
        str,
        "how much the server logs",
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
    ),
)


def shown(value: object) -> str:
    """A default as the options table shows it."""
    if value is None or value == ():
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"`{value}`"


def markdown() -> str:
    """The options table of docs/server.md."""
    rows = [
        "| option | variable | value | default | checked | what it sets |",
        "|---|---|---|---|---|---|",
    ]
    for option in OPTIONS:
        value = " / ".join(option.choices) or KINDS[option.kind]
        variable = f"`{option.variable_says}`".replace(", comma-separated`", "` (comma-separated)")
        checked = [check.says for check in option.checks]
        if option.floor is not None:
            checked.append(f"under {option.floor:g}: {option.floor:g}")
        rows.append(
            f"| `{option.flag}` | {variable} | {value} | {shown(option.default)} "
            f"| {', '.join(checked) or '-'} | {option.help} |"
        )
    return "\n".join(rows) + "\n"


BEGIN = "<!-- options: python -m server.options --write-docs -->\n"
END = "<!-- end of options -->\n"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "server.md"


def documented(text: str) -> str:
    """The options table in ``text`` (docs/server.md), between its markers."""
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def main(argv: list[str]) -> int:
    if argv == ["--markdown"]:
        print(markdown(), end="")
        return 0
    if argv == ["--write-docs"]:
        text = DOCS.read_text()
        table = BEGIN + documented(text) + END
        DOCS.write_text(text.replace(table, BEGIN + markdown() + END))
        return 0
    print("usage: python -m server.options --markdown | --write-docs", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
