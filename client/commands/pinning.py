"""The keys ``solrace verify`` checks signatures with: a server's keys pinned the first
time they are seen (trust on first use, as ssh's known hosts), or a key given by its
fingerprint (``--pin``). A key a server has not been pinned with is said loudly
(``NEW KEY: ...``) and trusted only once pinned, so a log re-signed with another key fails
even with that key's file beside it.

Pins are kept in ``$XDG_CONFIG_HOME/solrace/known-keys.json`` (``~/.config`` when unset):
``{"servers": {SERVER: [{"key": KEY_ID, "public_key": HEX}, ...]}}``, SERVER as given to
``--server``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.commands.common import UsageError
from protocol.signing import fingerprint, key_id

HEX_KEY = re.compile(r"[0-9a-f]{64}")
PIN = re.compile(r"[0-9a-f]{16}|[0-9a-f]{64}")
KeySet = dict[str, str]  # key id -> public key hex


def known_keys_path() -> Path:
    """Where the pins are kept (the user's configuration folder)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "solrace" / "known-keys.json"


def read_json(path: str | Path, what: str) -> Any:
    """A JSON file's value; UsageError (one line) when it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text())
    except RecursionError:
        raise UsageError(f"solrace verify: {path} is too deeply nested to be {what}") from None
    except (OSError, ValueError) as error:
        raise UsageError(f"solrace verify: cannot read {path} as {what}: {error}") from None


def key_set(answer: Any) -> KeySet:
    """The keys of a ``GET /signing-keys`` answer; ValueError when it is not one."""
    if not isinstance(answer, dict) or not isinstance(answer.get("keys"), list):
        raise ValueError("it has no list of 'keys'")
    keys: KeySet = {}
    for row in answer["keys"]:
        public = row.get("public_key") if isinstance(row, dict) else None
        if not isinstance(public, str) or not HEX_KEY.fullmatch(public):
            raise ValueError("a key has no 'public_key' of 64 hex digits")
        if row.get("key") != key_id(public):
            raise ValueError(f"key {row.get('key')!r} is not the id of its public key")
        keys[key_id(public)] = public
    return keys


def keys_file(path: str) -> KeySet:
    """The keys of a saved ``GET /signing-keys`` answer (``--keys``); UsageError when the
    file is not one."""
    what = "a keys file (the server's GET /signing-keys answer)"
    try:
        return key_set(read_json(path, what))
    except UsageError as error:
        raise UsageError(str(error).replace(f"cannot read {path} as", f"{path} is not")) from None
    except ValueError as error:
        raise UsageError(f"solrace verify: {path} is not {what}: {error}") from None


def published_keys(server: str) -> KeySet:
    """The keys ``server`` publishes (``GET /signing-keys``); none when it cannot say."""
    base = server.replace("ws://", "http://").replace("wss://", "https://")
    address = base.rsplit("/ws", 1)[0] + "/signing-keys"
    try:
        with urllib.request.urlopen(address, timeout=5) as response:
            return key_set(json.loads(response.read()))
    except (OSError, ValueError, RecursionError):
        return {}


@dataclass
class Trust:
    """The keys to check signatures with, what they are (``name``: "pinned for SERVER";
    ``by``: who signed when all holds), and the lines to print about keys first seen."""

    keys: KeySet
    name: str
    by: str = "the keys pinned for this server"
    said: list[str] = field(default_factory=list)


def decide(server: str, pins: dict[str, KeySet], offered: KeySet, pin: str | None) -> Trust:
    """Which keys to trust, pure: with ``pin``, the keys (offered or pinned for any server)
    whose fingerprint starts with it; else those pinned for ``server``, or on first use
    the ``offered`` ones. Adds what it trusts to ``pins``."""
    pinned = pins.setdefault(server, {})
    if pin is not None:
        known = {k: v for keys in pins.values() for k, v in keys.items()}
        chosen = {k: v for k, v in (known | offered).items() if fingerprint(v).startswith(pin)}
        said = [
            f"pinned: key {k} for {server} (its fingerprint is the one given)"
            for k, v in chosen.items()
            if pinned.get(k) != v
        ]
        pinned.update(chosen)
        given = "the key with the fingerprint given (--pin)"
        return Trust(chosen, given, given, said)
    name = f"pinned for {server}"
    if not pinned:
        pinned.update(offered)
        said = [
            f"NEW KEY: first use of {server}: pinned its key {k} (fingerprint {fingerprint(v)}); "
            "compare the fingerprint with the one its operators publish: from now on only "
            "the keys pinned for this server check its signatures"
            for k, v in offered.items()
        ]
        return Trust(dict(offered), name, said=said)
    said = [
        f"NEW KEY: key {k} (fingerprint {fingerprint(v)}) is not pinned for {server}: what "
        "is signed with it fails here. If its operators changed their key, compare this "
        f"fingerprint with theirs and run again with --pin {fingerprint(v)}"
        for k, v in offered.items()
        if pinned.get(k) != v
    ]
    return Trust(dict(pinned), name, said=said)


def trusted_keys(server: str, keys: str | None, pin: str | None) -> Trust:
    """Decide the keys to trust for ``server`` from ``--keys`` (else the server's
    published ones), the pins kept and ``--pin``; keep the pins."""
    if pin is not None and not PIN.fullmatch(pin.lower()):
        raise UsageError("solrace verify: --pin is a key id (16 hex digits) or a fingerprint (64)")
    path = known_keys_path()
    pins: dict[str, KeySet] = {}
    if path.exists():
        kept = read_json(path, "the pinned keys")
        try:
            pins = {server: key_set({"keys": rows}) for server, rows in kept["servers"].items()}
        except (KeyError, TypeError, AttributeError, ValueError):
            raise UsageError(f"solrace verify: {path} is not a pinned keys file") from None
    offered = keys_file(keys) if keys else published_keys(server)
    trust = decide(server, pins, offered, pin.lower() if pin else None)
    kept_rows = {
        server: [{"key": k, "public_key": v} for k, v in sorted(keys.items())]
        for server, keys in pins.items()
        if keys
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"servers": kept_rows}, indent=1))
    return trust
