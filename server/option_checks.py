"""The checks a server option's value must pass before anything starts (server/options.py
declares which option has which): each says in a few words what it holds, for the options
table, and finds the problem with a value as the rest of a sentence naming the option."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.desks.daily import SHORT_SECRET
from server.desks.signing import signer_from_file
from server.edge.addresses import trusted_networks
from server.store.replication import cluster_addresses, sentinel_addresses

CALL_DEADLINE_MS = 5000  # no store call waits longer (server/store/redis_calls.py)

ADMIN_TOKEN_LENGTH = 32  # a moderator's token guessed is every moderator's power


@dataclass(frozen=True, slots=True)
class Check:
    says: str  # what a good value is, for the options table: "at least 1"
    problem: Callable[[Any], str | None]  # None: the value is good


def at_least(least: int) -> Check:
    return Check(
        f"at least {least}",
        lambda value: None if value >= least else f"must be at least {least}, not {value}",
    )


def more_than(least: int) -> Check:
    return Check(
        f"more than {least}",
        lambda value: None if value > least else f"must be more than {least}, not {value}",
    )


def longer_than(least: int) -> Check:
    return Check(
        f"{least}+ characters",
        lambda value: None if len(value) >= least else f"must be at least {least} characters long",
    )


def _port(port: int) -> str | None:
    return None if 0 <= port <= 65535 else f"must be 0 to 65535 (0: any free port), not {port}"


def _host(host: str) -> str | None:
    try:
        socket.getaddrinfo(host, None)
    except OSError as error:
        return f"{host!r} is not an address here ({error})"
    return None


def _redis_url(url: str) -> str | None:
    def bad(why: str) -> str:
        return f"{url!r} {why}; expected e.g. redis://127.0.0.1:6379/0"

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- raises ValueError when out of range or not a number
    except ValueError as error:
        return bad(f"is not a URL ({error})")
    if parts.scheme not in ("redis", "rediss", "unix"):
        return bad("is not a Redis URL (redis://, rediss:// or unix://)")
    database = parts.path.strip("/")
    if parts.scheme != "unix" and database and not database.isdigit():
        return bad(f"names database {database!r}, which is not a number")
    return None


def _addresses(read: Callable[[str], object]) -> Callable[[str], str | None]:
    """The problem of a list of addresses that ``read`` refuses (its ValueError's sentence)."""

    def problem(text: str) -> str | None:
        try:
            read(text)
        except ValueError as error:
            return f"{text!r} {error}"
        return None

    return problem


def _wait_ms(wait_ms: int) -> str | None:
    if 0 < wait_ms < CALL_DEADLINE_MS:
        return None
    return f"must be from 1 to {CALL_DEADLINE_MS - 1} (under the store's deadline), not {wait_ms}"


def _no_braces(prefix: str) -> str | None:
    if "{" in prefix or "}" in prefix:
        return f"{prefix!r} must not hold braces (Redis reads them as hash tags)"
    return None


def _networks(proxies: tuple[str, ...]) -> str | None:
    try:
        trusted_networks(proxies)
    except ValueError as error:
        return str(error)
    return None


def _folder(path: str) -> str | None:
    return None if Path(path).is_dir() else f"{path} is not a folder"


def _signing_key(path: Path) -> str | None:
    try:
        signer_from_file(path)
    except OSError as error:
        return f"{error.strerror}: {error.filename}"
    except ValueError as error:
        return str(error)
    return None


def _folder_of(path: Path) -> str | None:
    return None if path.absolute().parent.is_dir() else f"the folder of {path} does not exist"


PORT = Check("0 to 65535", _port)
HOST = Check("an address here", _host)
REDIS_URL = Check("redis://, rediss:// or unix://", _redis_url)
SENTINELS = Check("host:port, comma-separated", _addresses(sentinel_addresses))
CLUSTER = Check("host:port, comma-separated", _addresses(cluster_addresses))
WAIT_MS = Check(f"1 to {CALL_DEADLINE_MS - 1}", _wait_ms)
NO_BRACES = Check("no braces", _no_braces)
NETWORKS = Check("addresses or networks", _networks)
ADMIN_TOKEN = longer_than(ADMIN_TOKEN_LENGTH)
DAILY_SECRET = longer_than(SHORT_SECRET)
FOLDER = Check("an existing folder", _folder)
SIGNING_KEY = Check("an Ed25519 key", _signing_key)
IN_A_FOLDER = Check("its folder exists", _folder_of)
