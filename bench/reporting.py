"""How a benchmark command hands back its figures: JSON for a script, else its own table."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

Figures = TypeVar("Figures")


def reported(figures: Figures, as_json: bool, table: Callable[[Figures], Any]) -> int:
    """Print ``figures`` as one line of JSON when ``as_json``, else as ``table`` prints
    them; the command's exit status (0)."""
    if as_json:
        print(json.dumps(figures))
    else:
        table(figures)
    return 0
