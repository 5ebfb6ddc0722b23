"""This device's own id, said in every ``hello`` (the server relates accounts seen on one
device: ``docs/fairness.md``). Kept in ``$XDG_CONFIG_HOME/solrace/device`` (``~/.config``
when unset), made on first use: 32 characters of A-Z a-z 0-9 _ -. The id names the device,
never the player; a file that cannot be read or written gives a fresh id each run."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path

DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def device_path() -> Path:
    """Where the id is kept (the user's configuration folder)."""
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "solrace" / "device"


def device_id(path: Path | None = None) -> str:
    """The id kept at ``path`` (``device_path()``), made and kept there when there is none
    or it is not a device id."""
    path = path or device_path()
    try:
        kept = path.read_text().strip()
    except OSError:
        kept = ""
    if DEVICE_ID.fullmatch(kept):
        return kept
    made = secrets.token_urlsafe(24)  # 32 characters
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(made + "\n")
    except OSError:
        pass  # a read-only home: this run's id only
    return made
