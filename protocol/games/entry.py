"""What the registry knows of one game (``Game``): its rules, its solver profile, how its
deal is laid out and what Deal does (``Layout``), an example of its moves and its rules as a
person reads them (``RulesText``). ``Game.describe`` is the game as the catalog serves it:
the server's welcome, ``GET /games`` and, through them, every screen of the browser."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the rules modules hold their layout and text without loading the solver
    from protocol.engine import Rules
    from protocol.solver.profile import Profile

# A whole number, or the names of options whose values add up to it.
Count = int | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OptionField:
    """A whole-number option a person sets when creating a race: its name, its label and
    the range the form offers (the rules class checks the values either way)."""

    name: str
    label: str
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Layout:
    """The deal, in the order cards leave the shuffled pack: one card onto each reserve,
    ``rounds`` rounds onto every tableau pile, ``to_waste`` cards onto the waste; the rest
    is the stock. ``face_down`` is each pile's face-down count (one count per pile, or an
    option's name that every pile gets). ``deal`` is what Deal does: turn one card onto the
    waste, or one card onto each tableau pile; ``reserves_refill`` when an emptied reserve
    takes the waste's top card at once (else the stock's next). ``table`` is how the browser
    sets the table out: stock, waste and foundations in one ``row`` above the tableau, or
    ``two_rows`` (foundations, then stock, waste and reserves). ``options_text`` says the
    options that differ from undo ("{down} down / {up} up"); ``option_fields`` are the
    layout options a new race's form asks for. The page's replayer reads this to deal as
    ``Rules.layout`` does (tests/server/test_a_fifth_game_reaches_every_part.py)."""

    rounds: Count
    face_down: tuple[int, ...] | str = ()
    to_waste: int = 0
    deal: Literal["waste", "tableau"] = "waste"
    reserves_refill: bool = False
    table: Literal["row", "two_rows"] = "row"
    options_text: str = ""
    option_fields: tuple[OptionField, ...] = ()


@dataclass(frozen=True, slots=True)
class Example:
    """A key move shown on a small board: the move in words, the view before and after."""

    text: str
    before: dict[str, Any]
    after: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RulesText:
    """How to play, in a few lines: the lead, the layout, the moves, the options and an
    example. A variant gives only its lead (and the rest is its game's)."""

    lead: str
    layout: str = ""
    moves: tuple[str, ...] = ()
    options: str = ""
    example: Example | None = None


@dataclass(frozen=True, slots=True)
class Game:
    """One game as every part needs it. ``example_move`` is the action box's hint: moves
    that exist in the game ("t3 2 t5, w 1 f, deal")."""

    rules: type[Rules]
    profile: type[Profile]
    layout: Layout
    example_move: str
    text: RulesText

    @property
    def name(self) -> str:
        return self.rules.name

    def describe(self, base: Game | None = None) -> dict[str, Any]:
        """The catalog's entry: name, title, decks, default options, the game it is a
        variant of, the layout with the piles' counts, the example move and the rules text
        (a variant's layout, moves, options and example are its ``base``'s)."""
        rules, layout = self.rules, self.layout
        text = self.text
        if base is not None:
            own, theirs = self.text, base.text
            example = own.example or theirs.example
            text = RulesText(own.lead, theirs.layout, theirs.moves, theirs.options, example)
        return {
            "game": rules.name,
            "title": rules.title,
            "decks": rules.decks,
            "options": dict(rules.option_defaults),
            "variant_of": rules.variant_of,
            "layout": {
                "tableau": rules.tableau_piles,
                "foundations": 4 * rules.decks,
                "reserves": rules.reserve_piles,
                "waste": rules.has_waste,
                "deal_needs_full_tableau": getattr(rules, "deal_needs_full_tableau", False),
                "rounds": _count_json(layout.rounds),
                "face_down": _face_down_json(layout.face_down),
                "to_waste": layout.to_waste,
                "deal": layout.deal,
                "reserves_refill": layout.reserves_refill,
                "table": layout.table,
                "options_text": layout.options_text,
                "option_fields": [
                    {"name": f.name, "label": f.label, "min": f.low, "max": f.high}
                    for f in layout.option_fields
                ],
            },
            "example_move": self.example_move,
            "rules": {
                "lead": text.lead,
                "layout": text.layout,
                "moves": list(text.moves),
                "options": text.options,
                "example": _example_json(text.example),
            },
        }


def _count_json(count: Count) -> int | list[str]:
    return count if isinstance(count, int) else list(count)


def _face_down_json(face_down: tuple[int, ...] | str) -> list[int] | str:
    return face_down if isinstance(face_down, str) else list(face_down)


def _example_json(example: Example | None) -> dict[str, Any] | None:
    if example is None:
        return None
    return {"text": example.text, "before": example.before, "after": example.after}
