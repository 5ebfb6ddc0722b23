"""``solrace serve``: run the race server until SIGTERM or SIGINT, then shut down gracefully.

Every option has an environment variable (``SOLRACE_HOST``, ``SOLRACE_PORT``,
``SOLRACE_REDIS_URL``, ...); a command-line option wins over its variable.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import socket
from pathlib import Path
from urllib.parse import urlsplit

from protocol.errors import SolraceError
from server.addresses import trusted_networks
from server.config import Settings
from server.daily import SHORT_SECRET
from server.signing import signer_from_file

DEFAULTS = Settings()
ADMIN_TOKEN_LENGTH = 32  # a moderator's token guessed is every moderator's power


ON = ("1", "true", "yes", "on")
OFF = ("0", "false", "no", "off")


def _env(name: str, default: object) -> str | None:
    value = os.environ.get(f"SOLRACE_{name}")
    return value if value is not None else (None if default is None else str(default))


def _flag(given: bool | None, name: str, default: bool) -> bool:
    """A yes-or-no setting: its option when given (``given`` is not None), else
    ``SOLRACE_<name>`` (1/0, true/false, yes/no or on/off, any case; empty: ``default``),
    else ``default``. Any other value is ``SolraceError``, never silently on."""
    if given is not None:
        return given
    value = (os.environ.get(f"SOLRACE_{name}") or "").strip().lower()
    if not value:
        return default
    if value not in ON + OFF:
        raise SolraceError(
            f"SOLRACE_{name}: {os.environ[f'SOLRACE_{name}']!r} is neither on nor off; "
            "say 1/0, true/false, yes/no or on/off"
        )
    return value in ON


def configure(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("--host", default=_env("HOST", DEFAULTS.host), help="address to listen on [SOLRACE_HOST]")
    add(
        "--port",
        type=int,
        default=_env("PORT", DEFAULTS.port),
        help="port for websockets (/ws), /healthz and the browser client [SOLRACE_PORT]",
    )
    add(
        "--redis",
        dest="redis_url",
        default=_env("REDIS_URL", None),
        metavar="URL",
        help="Redis URL, e.g. redis://127.0.0.1:6379/0; none: keep everything in this process "
        "[SOLRACE_REDIS_URL]",
    )
    add(
        "--redis-prefix",
        default=_env("REDIS_PREFIX", DEFAULTS.redis_prefix),
        help="prefix of every Redis key [SOLRACE_REDIS_PREFIX]",
    )
    add(
        "--grace-ms",
        type=int,
        default=_env("GRACE_MS", DEFAULTS.grace_ms),
        help="how long a dropped player may resume [SOLRACE_GRACE_MS]",
    )
    add(
        "--countdown-ms",
        type=int,
        default=_env("COUNTDOWN_MS", DEFAULTS.countdown_ms),
        help="default countdown before a race starts [SOLRACE_COUNTDOWN_MS]",
    )
    add(
        "--max-race-ms",
        type=int,
        default=_env("MAX_RACE_MS", DEFAULTS.max_race_ms),
        help="a running race ends after this long; whoever has not finished did not "
        "(4 hours) [SOLRACE_MAX_RACE_MS]",
    )
    add(
        "--any-rating-after-ms",
        type=int,
        default=_env("ANY_RATING_AFTER_MS", DEFAULTS.any_rating_after_ms),
        help="a quick-race player waiting this long is paired with any rating (20 s) "
        "[SOLRACE_ANY_RATING_AFTER_MS]",
    )
    add(
        "--rate",
        dest="rate_per_s",
        type=float,
        default=_env("RATE", DEFAULTS.rate_per_s),
        help="requests per second allowed per connection [SOLRACE_RATE]",
    )
    add(
        "--burst",
        type=int,
        default=_env("BURST", DEFAULTS.burst),
        help="requests allowed at once per connection [SOLRACE_BURST]",
    )
    add(
        "--origin",
        dest="origins",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="allowed Origin header (repeat); none: any [SOLRACE_ORIGINS, comma-separated]",
    )
    add(
        "--trusted-proxy",
        dest="trusted_proxies",
        action="append",
        default=None,
        metavar="CIDR",
        help="a proxy whose X-Forwarded-For names the client (repeat; an address or a "
        "network): sign-in limits count by that address [SOLRACE_TRUSTED_PROXIES, "
        "comma-separated]",
    )
    add(
        "--auth-per-address",
        type=int,
        default=_env("AUTH_PER_ADDRESS", DEFAULTS.auth_per_address),
        help="registrations, and separately sign-ins, allowed per client address per 10 "
        "minutes [SOLRACE_AUTH_PER_ADDRESS]",
    )
    add(
        "--auth-per-username",
        type=int,
        default=_env("AUTH_PER_USERNAME", DEFAULTS.auth_per_username),
        help="sign-in attempts allowed per username per 10 minutes, from any address "
        "[SOLRACE_AUTH_PER_USERNAME]",
    )
    add(
        "--registrations-per-address",
        dest="registrations_per_address_day",
        type=int,
        default=_env("REGISTRATIONS_PER_ADDRESS", DEFAULTS.registrations_per_address_day),
        help="accounts that may be registered from one client address in a day "
        "[SOLRACE_REGISTRATIONS_PER_ADDRESS]",
    )
    add(
        "--rank-new-accounts",
        dest="new_accounts_ranked_today",
        action="store_true",
        default=None,  # SOLRACE_RANK_NEW_ACCOUNTS, read by settings_from
        help="an account registered today may make today's ranked daily attempt (off: from "
        "the next day on; for small events and tests) [SOLRACE_RANK_NEW_ACCOUNTS=1]",
    )
    for rule, unit in (
        ("days", "whole days an account must be old"),
        ("games", "games it must have finished"),
    ):
        add(
            f"--ranked-account-{rule}",
            type=int,
            default=_env(
                f"RANKED_ACCOUNT_{rule.upper()}", getattr(DEFAULTS, f"ranked_account_{rule}")
            ),
            help=f"{unit} for ranked daily attempts and rated races; 0: no such rule "
            f"[SOLRACE_RANKED_ACCOUNT_{rule.upper()}]",
        )
    add(
        "--connections-per-address",
        type=int,
        default=_env("CONNECTIONS_PER_ADDRESS", DEFAULTS.connections_per_address),
        help="open websockets allowed per client address on this node (the forwarded "
        "address behind a trusted proxy); more are refused with 429; 0: no limit "
        "[SOLRACE_CONNECTIONS_PER_ADDRESS]",
    )
    add(
        "--ping-interval",
        dest="ping_interval_s",
        type=float,
        default=_env("PING_INTERVAL", DEFAULTS.ping_interval_s),
        help="seconds between keepalive pings [SOLRACE_PING_INTERVAL]",
    )
    add(
        "--ping-timeout",
        dest="ping_timeout_s",
        type=float,
        default=_env("PING_TIMEOUT", DEFAULTS.ping_timeout_s),
        help="seconds a pinged client has to answer before it is disconnected "
        "[SOLRACE_PING_TIMEOUT]",
    )
    add(
        "--spectator-chunk",
        type=int,
        default=_env("SPECTATOR_CHUNK", DEFAULTS.spectator_chunk),
        help="spectators a feed item is written to per loop turn, players' requests read "
        "between chunks [SOLRACE_SPECTATOR_CHUNK]",
    )
    add(
        "--spectator-pause-ms",
        type=float,
        default=_env("SPECTATOR_PAUSE_MS", DEFAULTS.spectator_pause_ms),
        help="milliseconds between those chunks; 0: the next loop turn "
        "[SOLRACE_SPECTATOR_PAUSE_MS]",
    )
    add(
        "--daily-secret",
        default=_env("DAILY_SECRET", DEFAULTS.daily_secret),
        help="secret mixed into the daily deal rule (16+ characters); none: a random one, "
        "kept in Redis (or per process without Redis) [SOLRACE_DAILY_SECRET]",
    )
    add(
        "--no-certify",
        dest="daily_certify",
        action="store_false",
        default=None,  # SOLRACE_DAILY_CERTIFY, read by settings_from
        help="do not require daily deals to be proven winnable [SOLRACE_DAILY_CERTIFY=0]",
    )
    add(
        "--certify-budget-s",
        dest="daily_certify_budget_s",
        type=float,
        default=_env("CERTIFY_BUDGET_S", DEFAULTS.daily_certify_budget_s),
        help="seconds of one worker core spent proving a day's deal winnable, at most; "
        "past it the deal is served with certified: false [SOLRACE_CERTIFY_BUDGET_S]",
    )
    add(
        "--drain-s",
        dest="shutdown_grace_s",
        type=float,
        default=_env("DRAIN_S", DEFAULTS.shutdown_grace_s),
        help="on SIGTERM, seconds to wait for queued writes before spilling the rest to "
        "the spill file [SOLRACE_DRAIN_S]",
    )
    add(
        "--max-clock-offset-ms",
        type=int,
        default=_env("MAX_CLOCK_OFFSET_MS", DEFAULTS.max_clock_offset_ms),
        help="a node whose clock is further off the store's (Redis TIME) takes no lease and "
        "no new connection until they agree [SOLRACE_MAX_CLOCK_OFFSET_MS]",
    )
    add(
        "--spill-file",
        dest="spill_path",
        default=_env("SPILL_FILE", DEFAULTS.spill_path),
        metavar="PATH",
        help="where writes the store could not take are kept at shutdown, for the next "
        "start to write first [SOLRACE_SPILL_FILE]",
    )
    add(
        "--keep-race-logs-days",
        type=int,
        default=_env("KEEP_RACE_LOGS_DAYS", DEFAULTS.keep_race_logs_days),
        help="days an ended race's record, result and action log stay in the store "
        "[SOLRACE_KEEP_RACE_LOGS_DAYS]",
    )
    add(
        "--keep-identities-days",
        type=int,
        default=_env("KEEP_IDENTITIES_DAYS", DEFAULTS.keep_identities_days),
        help="days an account's resume token keeps naming it after its last use "
        "[SOLRACE_KEEP_IDENTITIES_DAYS]",
    )
    add(
        "--signing-key",
        dest="signing_key_path",
        default=_env("SIGNING_KEY", None),
        metavar="PATH",
        help="Ed25519 private key (PEM, e.g. from 'openssl genpkey -algorithm ed25519') that "
        "race logs and boards are signed with; none: one made once and kept in the store "
        "[SOLRACE_SIGNING_KEY]",
    )
    add(
        "--keep-guests-days",
        type=int,
        default=_env("KEEP_GUESTS_DAYS", DEFAULTS.keep_guests_days),
        help="days a guest's resume token keeps naming them after its last use once they "
        "have played (a guest who never played: one day) [SOLRACE_KEEP_GUESTS_DAYS]",
    )
    add(
        "--admin-token",
        default=_env("ADMIN_TOKEN", None),
        metavar="TOKEN",
        help="the moderators' token that 'solrace admin' must give (32+ characters, e.g. from "
        "'openssl rand -hex 32'); none: no admin requests are served [SOLRACE_ADMIN_TOKEN]",
    )
    add(
        "--fair-play-solver-nodes",
        type=int,
        default=_env("FAIR_PLAY_SOLVER_NODES", DEFAULTS.fair_play_solver_nodes),
        help="the solver's budget for the line ranked runs are compared with (fair-play "
        "signals); 0: none [SOLRACE_FAIR_PLAY_SOLVER_NODES]",
    )
    add(
        "--no-hold-flagged",
        dest="hold_flagged",
        action="store_false",
        default=None,  # SOLRACE_HOLD_FLAGGED, read by settings_from
        help="flagged runs still go on the boards and rated races are rated at once (the "
        "flags wait for a moderator all the same) [SOLRACE_HOLD_FLAGGED=0]",
    )
    add(
        "--static-dir",
        default=_env("STATIC_DIR", None),
        help="serve the browser client from this folder [SOLRACE_STATIC_DIR]",
    )
    add(
        "--log-level",
        default=_env("LOG_LEVEL", DEFAULTS.log_level),
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="[SOLRACE_LOG_LEVEL]",
    )


def settings_from(args: argparse.Namespace) -> Settings:
    origins = args.origins or [o for o in (_env("ORIGINS", "") or "").split(",") if o]
    proxies = args.trusted_proxies or [
        p for p in (_env("TRUSTED_PROXIES", "") or "").split(",") if p.strip()
    ]
    try:
        trusted_networks(proxies)
    except ValueError as error:
        raise SolraceError(f"--trusted-proxy: {error}") from None
    return checked(
        Settings(
            host=args.host,
            port=int(args.port),
            redis_url=args.redis_url,
            redis_prefix=args.redis_prefix,
            grace_ms=int(args.grace_ms),
            countdown_ms=int(args.countdown_ms),
            max_race_ms=int(args.max_race_ms),
            any_rating_after_ms=int(args.any_rating_after_ms),
            rate_per_s=float(args.rate_per_s),
            burst=int(args.burst),
            origins=tuple(origins),
            trusted_proxies=tuple(proxies),
            auth_per_address=int(args.auth_per_address),
            connections_per_address=int(args.connections_per_address),
            auth_per_username=int(args.auth_per_username),
            registrations_per_address_day=int(args.registrations_per_address_day),
            new_accounts_ranked_today=_flag(
                args.new_accounts_ranked_today,
                "RANK_NEW_ACCOUNTS",
                DEFAULTS.new_accounts_ranked_today,
            ),
            ranked_account_days=int(args.ranked_account_days),
            ranked_account_games=int(args.ranked_account_games),
            ping_interval_s=float(args.ping_interval_s),
            ping_timeout_s=float(args.ping_timeout_s),
            spectator_chunk=max(1, int(args.spectator_chunk)),
            spectator_pause_ms=max(0.0, float(args.spectator_pause_ms)),
            daily_secret=args.daily_secret,
            daily_certify=_flag(args.daily_certify, "DAILY_CERTIFY", DEFAULTS.daily_certify),
            daily_certify_budget_s=float(args.daily_certify_budget_s),
            static_dir=args.static_dir,
            signing_key_path=Path(args.signing_key_path) if args.signing_key_path else None,
            spill_path=Path(args.spill_path) if args.spill_path else None,
            shutdown_grace_s=float(args.shutdown_grace_s),
            max_clock_offset_ms=int(args.max_clock_offset_ms),
            keep_race_logs_days=int(args.keep_race_logs_days),
            keep_identities_days=int(args.keep_identities_days),
            keep_guests_days=int(args.keep_guests_days),
            admin_token=args.admin_token or None,  # empty: none
            fair_play_solver_nodes=int(args.fair_play_solver_nodes),
            hold_flagged=_flag(args.hold_flagged, "HOLD_FLAGGED", DEFAULTS.hold_flagged),
            log_level=args.log_level,
        )
    )


def checked(settings: Settings) -> Settings:
    """``settings`` if every value can work; otherwise ``SolraceError``: one sentence that
    names the option, before anything starts (no traceback, exit status 2)."""
    for option, value, least in (
        ("--grace-ms", settings.grace_ms, 0),
        ("--countdown-ms", settings.countdown_ms, 0),
        ("--max-race-ms", settings.max_race_ms, 1),
        ("--any-rating-after-ms", settings.any_rating_after_ms, 0),
        ("--burst", settings.burst, 1),
        ("--auth-per-address", settings.auth_per_address, 1),
        ("--connections-per-address", settings.connections_per_address, 0),
        ("--auth-per-username", settings.auth_per_username, 1),
        ("--registrations-per-address", settings.registrations_per_address_day, 1),
        ("--drain-s", settings.shutdown_grace_s, 0),
        ("--max-clock-offset-ms", settings.max_clock_offset_ms, 1),
        ("--keep-race-logs-days", settings.keep_race_logs_days, 1),
        ("--keep-identities-days", settings.keep_identities_days, 1),
        ("--keep-guests-days", settings.keep_guests_days, 1),
        ("--fair-play-solver-nodes", settings.fair_play_solver_nodes, 0),
        ("--ranked-account-days", settings.ranked_account_days, 0),
        ("--ranked-account-games", settings.ranked_account_games, 0),
    ):
        if value < least:
            raise SolraceError(f"{option}: must be at least {least}, not {value}")
    for option, value in (
        ("--rate", settings.rate_per_s),
        ("--ping-interval", settings.ping_interval_s),
        ("--ping-timeout", settings.ping_timeout_s),
        ("--certify-budget-s", settings.daily_certify_budget_s),
    ):
        if not value > 0:
            raise SolraceError(f"{option}: must be more than 0, not {value}")
    if not 0 <= settings.port <= 65535:
        raise SolraceError(f"--port: must be 0 to 65535 (0: any free port), not {settings.port}")
    try:
        socket.getaddrinfo(settings.host, None)
    except OSError as error:
        raise SolraceError(f"--host: {settings.host!r} is not an address here ({error})") from None
    if settings.redis_url is not None:
        _check_redis_url(settings.redis_url)
    if "{" in settings.redis_prefix or "}" in settings.redis_prefix:
        raise SolraceError(
            f"--redis-prefix: {settings.redis_prefix!r} must not hold braces (Redis reads "
            "them as hash tags)"
        )
    if settings.admin_token is not None and len(settings.admin_token) < ADMIN_TOKEN_LENGTH:
        raise SolraceError(f"--admin-token: must be at least {ADMIN_TOKEN_LENGTH} characters long")
    if settings.daily_secret is not None and len(settings.daily_secret) < SHORT_SECRET:
        raise SolraceError(f"--daily-secret: must be at least {SHORT_SECRET} characters long")
    if settings.static_dir is not None and not Path(settings.static_dir).is_dir():
        raise SolraceError(f"--static-dir: {settings.static_dir} is not a folder")
    if settings.signing_key_path is not None:
        try:
            signer_from_file(settings.signing_key_path)
        except OSError as error:
            raise SolraceError(f"--signing-key: {error.strerror}: {error.filename}") from None
        except ValueError as error:
            raise SolraceError(f"--signing-key: {error}") from None
    if settings.spill_path is not None and not settings.spill_path.absolute().parent.is_dir():
        raise SolraceError(f"--spill-file: the folder of {settings.spill_path} does not exist")
    return settings


def _check_redis_url(url: str) -> None:
    def bad(why: str) -> SolraceError:
        return SolraceError(f"--redis: {url!r} {why}; expected e.g. redis://127.0.0.1:6379/0")

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError when out of range or not a number
    except ValueError as error:
        raise bad(f"is not a URL ({error})") from None
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise bad("is not a Redis URL (redis://, rediss:// or unix://)")
    database = parts.path.strip("/")
    if parts.scheme != "unix" and database and not database.isdigit():
        raise bad(f"names database {database!r}, which is not a number")


async def serve_until_signalled(settings: Settings) -> None:
    from server import memorydump
    from server.app import RaceServer, tasks_left
    from server.store import StoreUnavailable, open_store

    server = RaceServer(settings, open_store(settings.redis_url, prefix=settings.redis_prefix))
    try:
        await server.start()
    except StoreUnavailable as error:
        raise SolraceError(f"--redis: {error}") from None
    except OSError as error:
        where = f"{settings.host}:{settings.port}"
        raise SolraceError(f"--host/--port: cannot listen on {where}: {error.strerror}") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    memorydump.install(loop)
    print(  # after the handlers: a SIGTERM sent once this is read shuts down gracefully
        f"solrace: serving on http://{settings.host}:{server.port}/ "
        f"(websocket: ws://{settings.host}:{server.port}/ws)",
        flush=True,
    )
    await stop.wait()
    log = logging.getLogger("solrace.server")
    log.info("shutting down")
    await server.stop()
    left = await tasks_left()
    if left:  # asyncio.run would wait for them for good: a deploy must end
        log.warning("tasks still running at exit; leaving without them", extra={"tasks": left})
        logging.shutdown()
        os._exit(0)


def run(args: argparse.Namespace) -> int:
    from server.logs import configure as configure_logs

    settings = settings_from(args)
    configure_logs(settings.log_level)
    asyncio.run(serve_until_signalled(settings))
    return 0
