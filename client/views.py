"""A player's view (the wire's VIEW map) kept up to date from the event items of ``act``
results and spectator ``act`` items, as docs/protocol.md says: apply them in order, and
after ``undone`` take the view the reply carries.

Pure: no I/O. Views are plain dicts in wire form (cards in the notation, ``stock`` a count);
``apply_events`` returns a new dict and never changes the one it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from protocol.errors import SolraceError

View = dict[str, Any]

_KINDS = {"t": "tableau", "f": "foundations", "r": "reserves"}


class ViewMismatch(SolraceError):
    """An event does not fit the view (the view is stale): take a fresh snapshot."""

    code = "view_mismatch"


def _pile(view: View, name: str) -> list[str]:
    """The list of face-up cards of pile ``name`` (``t3``, ``f0``, ``r1``, ``w``)."""
    if name == "w":
        waste: list[str] = view["waste"]
        return waste
    try:
        piles: list[list[str]] = view[_KINDS[name[0]]]
        return piles[int(name[1:])]
    except (KeyError, IndexError, ValueError):
        raise ViewMismatch(f"no pile {name!r} in this view") from None


def apply_events(
    view: View, events: Iterable[dict[str, Any]], reply_view: View | None = None
) -> View:
    """The view after ``events`` (the ``events`` of one ``act`` reply). ``reply_view`` is the
    reply's ``view`` (sent after ``undo``), which replaces the view when ``undone`` comes.
    Raises ViewMismatch when an event does not fit."""
    new = copy.deepcopy(view)
    for event in events:
        kind = event.get("type")
        if kind == "moved":
            source, cards = _pile(new, event["src"]), list(event["cards"])
            if source[len(source) - len(cards) :] != cards:
                raise ViewMismatch(f"{' '.join(cards)} are not on top of {event['src']}")
            del source[len(source) - len(cards) :]
            _pile(new, event["dst"]).extend(cards)
        elif kind == "revealed":
            pile = event["pile"]
            index = int(pile[1:])
            if not pile.startswith("t") or new["face_down"][index] < 1:
                raise ViewMismatch(f"nothing face down on {pile}")
            new["face_down"][index] -= 1
            new["tableau"][index].append(event["card"])
        elif kind == "dealt":
            new["stock"] -= len(event["cards"])
            for pile, card in zip(event["piles"], event["cards"], strict=True):
                _pile(new, pile).append(card)
        elif kind == "refilled":
            if event["src"] == "w":
                if not new["waste"] or new["waste"][-1] != event["card"]:
                    raise ViewMismatch(f"{event['card']} is not on top of the waste")
                new["waste"].pop()
            else:
                new["stock"] -= 1
            _pile(new, event["reserve"]).append(event["card"])
        elif kind == "undone":
            if reply_view is None:
                raise ViewMismatch("an undo came without the view after it")
            new = copy.deepcopy(reply_view)
        if new.get("stock", 0) < 0:
            raise ViewMismatch("the stock ran below zero")
    return new


def after_action(view: View, reply: dict[str, Any], undo_allowed: bool) -> View:
    """The view after one accepted action, given its ``act`` reply (or spectator item)."""
    new = apply_events(view, reply.get("events", []), reply.get("view"))
    if "view" not in reply:
        new["can_undo"] = undo_allowed
    return new


def progress(view: View) -> int:
    """Cards on the foundations."""
    return sum(len(pile) for pile in view["foundations"])
