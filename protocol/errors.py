"""The one exception tree of the pure core.

Every refusal carries a stable ``code`` (listed in docs/engine.md and docs/protocol.md, never
renamed) and a ``message``: a sentence a person understands. A malformed action (it cannot
be read) and an illegal one (it can be read but the rules refuse it) are different classes.
"""

from __future__ import annotations

from typing import Any


class SolraceError(Exception):
    """Base of every error the core raises on purpose."""

    code = "error"

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class MalformedAction(SolraceError):
    """The text is not an action, card or pile in the notation of RULES.md."""

    code = "malformed_action"


class IllegalAction(SolraceError):
    """A well-formed action the rules refuse in this position; ``code`` says which rule."""

    code = "illegal_action"


class BadGame(SolraceError):
    """An unknown game name, a bad option, or a deal number out of range."""

    code = "bad_game"
