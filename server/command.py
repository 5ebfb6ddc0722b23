"""``solrace serve``: run the race server until SIGTERM or SIGINT, then shut down gracefully.

Its options are declared in server/options.py (flag, setting, type, environment variable,
help, checks); here they become argparse options, the ``Settings`` and its checks. A
command-line option wins over its variable.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from protocol.errors import SolraceError
from server.config import Settings
from server.options import OPTIONS, Option
from server.store.replication import Replication, cluster_addresses, sentinel_addresses

ON = ("1", "true", "yes", "on")
OFF = ("0", "false", "no", "off")


def _env(option: Option) -> str | None:
    """The option's variable when set, else its default: a string argparse converts with
    the option's type (a bad one is argparse's one-line error, exit status 2)."""
    value = os.environ.get(option.variable)
    if value is not None:
        return value
    return None if option.default is None else str(option.default)


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
    """One argparse option per declared option (server/options.py)."""
    for option in OPTIONS:
        help = f"{option.help} [{option.variable_says}]"
        if option.kind is bool:  # the flag turns the default over; the variable: _flag
            action = "store_false" if option.default else "store_true"
            parser.add_argument(
                option.flag, dest=option.setting, action=action, default=None, help=help
            )
        elif option.kind is tuple:  # repeated; the variable: settings_from
            parser.add_argument(
                option.flag,
                dest=option.setting,
                action="append",
                default=None,
                metavar=option.metavar,
                help=help,
            )
        else:
            parser.add_argument(
                option.flag,
                dest=option.setting,
                type=str if option.kind is Path else option.kind,
                default=_env(option),
                metavar=option.metavar,
                choices=option.choices or None,
                help=help,
            )


def value_of(option: Option, given: Any) -> Any:
    """The setting's value from what argparse gave for ``option`` (its variable read here
    for a switch or a list)."""
    if option.kind is bool:
        return _flag(given, option.env, bool(option.default))
    if option.kind is tuple:
        told = os.environ.get(option.variable) or ""
        return tuple(given or [item for item in told.split(",") if item.strip()])
    if option.kind is Path:
        return Path(given) if given else None
    if option.empty_is_none and not given:
        return None
    if option.floor is not None:
        return max(option.kind(option.floor), given)
    return given


def settings_from(args: argparse.Namespace) -> Settings:
    values = {option.setting: value_of(option, getattr(args, option.setting)) for option in OPTIONS}
    return checked(Settings(**values))


def checked(settings: Settings) -> Settings:
    """``settings`` if every value can work; otherwise ``SolraceError``: one sentence that
    names the option, before anything starts (no traceback, exit status 2)."""
    for option in OPTIONS:
        value = getattr(settings, option.setting)
        for check in option.checks if value is not None else ():
            problem = check.problem(value)
            if problem is not None:
                raise SolraceError(f"{option.flag}: {problem}")
    if settings.redis_sentinels and (settings.redis_url or "").startswith("unix:"):
        raise SolraceError(
            "--redis-sentinel: the sentinels name the primary's host and port, so --redis "
            "cannot be a unix:// socket; give a redis:// or rediss:// URL, or none"
        )
    if settings.redis_cluster:
        _check_cluster(settings)
    return settings


def _check_cluster(settings: Settings) -> None:
    """A cluster's settings that cannot work together: ``SolraceError`` saying why."""
    if settings.redis_sentinels:
        raise SolraceError(
            "--redis-cluster: a Redis Cluster fails over by itself (its replicas take over "
            "their primary's slots), so it is not found through sentinels; give "
            "--redis-cluster or --redis-sentinel, not both"
        )
    if settings.redis_wait_replicas:
        raise SolraceError(
            "--redis-cluster: WAIT is not kept on a cluster (a batch spans several primaries), "
            "so --redis-wait-replicas must be 0; use --redis-sentinel to wait for replicas"
        )
    url = settings.redis_url or ""
    if url.startswith("unix:"):
        raise SolraceError(
            "--redis-cluster: the cluster names its nodes' hosts and ports, so --redis "
            "cannot be a unix:// socket; give a redis:// or rediss:// URL, or none"
        )
    if urlsplit(url).path.strip("/") not in ("", "0"):
        raise SolraceError(
            "--redis-cluster: a Redis Cluster has only database 0, so --redis must name "
            "database 0 or none"
        )


def replication_of(settings: Settings) -> Replication:
    """Where the store finds its primary and how many replicas a write must reach."""
    sentinels = sentinel_addresses(settings.redis_sentinels) if settings.redis_sentinels else ()
    cluster = cluster_addresses(settings.redis_cluster) if settings.redis_cluster else ()
    return Replication(
        sentinels,
        settings.redis_service,
        settings.redis_wait_replicas,
        settings.redis_wait_ms,
        settings.redis_sentinel_password,
        cluster,
    )


async def serve_until_signalled(settings: Settings) -> None:
    from server import memorydump
    from server.app import RaceServer, tasks_left
    from server.store import StoreUnavailable, open_store

    replication = replication_of(settings)
    store = open_store(settings.redis_url, prefix=settings.redis_prefix, replication=replication)
    server = RaceServer(settings, store)
    try:
        await server.start()
    except StoreUnavailable as error:
        flag = (
            "--redis-sentinel"
            if replication.sentinels
            else "--redis-cluster"
            if replication.cluster
            else "--redis"
        )
        raise SolraceError(f"{flag}: {error}") from None
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
