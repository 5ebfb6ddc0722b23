"""The one interface every game implements, and what all games share.

A ``Rules`` object is one game with its options fixed. It is pure: every method takes a
state and returns a new one; nothing is mutated, nothing is read from a clock or a global
random. ``GameState`` is a position plus what ``undo`` goes back to, kept compact (see
protocol/history.py); ``apply`` answers an ``Outcome`` or raises ``IllegalAction``.

Subclasses give the layout, the legal moves, and the few rules that differ (which groups
may move, what may go on what, what fills an empty pile, what follows a move); moving
cards, revealing face-down cards, foundations, ``auto`` and ``undo`` are written once, here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple

from protocol import cards as C
from protocol.cards import ACE, Card, shown
from protocol.deals import shuffled
from protocol.errors import BadGame, IllegalAction
from protocol.events import Dealt, Event, Moved, Revealed, Undone
from protocol.history import GameState as GameState  # defined there, used from here
from protocol.notation import (
    ANY_FOUNDATION,
    AUTO,
    FOUNDATION,
    FOUNDATION_PILES,
    RESERVE,
    RESERVE_PILES,
    STOCK,
    TABLEAU,
    TABLEAU_PILES,
    UNDO,
    WASTE,
    WASTE_PILE,
    Action,
    Auto,
    Deal,
    Move,
    Pile,
    Undo,
)
from protocol.position import Position

_ACES = tuple(C.make(ACE, suit) for suit in range(4))
_KINGS = C.make(C.KING, 0)  # the lowest king: every card below it has a next rank


class Outcome(NamedTuple):
    """The state after an action, the events it caused, and how many actions it counts as
    (1, or the number of moves an ``auto`` made)."""

    state: GameState
    events: list[Event]
    counted: int


class View(NamedTuple):
    """What a player may see: the masked position (hidden cards are ``HIDDEN``) and
    whether ``undo`` is available. The legal actions follow from it alone."""

    position: Position
    can_undo: bool


class Rules(ABC):
    """One game with fixed options. Subclasses set the class attributes and the hooks."""

    name: ClassVar[str]
    title: ClassVar[str]
    decks: ClassVar[int]
    tableau_piles: ClassVar[int]
    reserve_piles: ClassVar[int] = 0
    has_waste: ClassVar[bool] = True
    variant_of: ClassVar[str | None] = None  # the game whose rules this one changes a little
    option_defaults: ClassVar[Mapping[str, Any]] = {"undo": True}

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options = self._parse_options(dict(options or {}))
        self.undo_allowed: bool = self.options["undo"]
        self.foundation_piles = 4 * self.decks
        self.card_total = 52 * self.decks

    def without_undo(self) -> Rules:
        """These rules with undo switched off (a racer in risk mode plays by them)."""
        return type(self)({**self.options, "undo": False})

    # ------------------------------------------------------------------ options

    def _parse_options(self, given: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(given) - set(self.option_defaults))
        if unknown:
            known = ", ".join(sorted(self.option_defaults))
            raise BadGame(
                f"{self.name} has no option {unknown[0][:24]!r}; its options are {known}",
                "bad_options",
            )
        options = {**self.option_defaults, **given}
        for key, default in self.option_defaults.items():
            value = options[key]
            if type(value) is not type(default):
                kind = "true or false" if isinstance(default, bool) else "a whole number"
                raise BadGame(f"option {key!r} must be {kind}", "bad_options")
        self._check_options(options)
        return options

    def _check_options(self, options: dict[str, Any]) -> None:
        """Refuse option values out of range (BadGame); the types are already checked."""

    def describe_options(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))

    # ------------------------------------------------------------------ game hooks

    @abstractmethod
    def layout(self, cards: list[Card]) -> Position:
        """The starting position from shuffled cards (the last card is dealt first)."""

    @abstractmethod
    def moves(self, position: Position) -> list[Action]:
        """Every legal Move (foundation moves as ``SRC 1 f``) and Deal, reading only what
        the masked position shows."""

    def play_deal(self, position: Position) -> tuple[Position, list[Event]]:
        """Turn the stock as this game does, or raise IllegalAction. Unless a game says
        otherwise: the next stock card goes face up onto the waste."""
        if not position.stock:
            raise IllegalAction("the stock is empty", "stock_empty")
        card = position.stock[0]
        new = position._replace(waste=position.waste + (card,), stock=position.stock[1:])
        return new, [Dealt((WASTE_PILE,), (card,))]

    @abstractmethod
    def check_group(self, position: Position, src: Pile, count: int) -> None:
        """Raise IllegalAction unless the top ``count`` cards of ``src`` may move together.
        The pile exists and holds at least ``count`` face-up cards."""

    def check_build(self, card: Card, top: Card) -> None:
        """Raise IllegalAction unless ``card`` (a group's bottom card) may go on ``top``.
        Unless a game says otherwise: down by one rank, in the other colour."""
        if fits_alternate_colour(card, top):
            return
        raise build_refusal(card, top, " of the other colour")

    def check_fill(self, src: Pile, card: Card) -> None:
        """Raise IllegalAction unless ``card`` from ``src`` may fill an empty tableau pile."""

    def after_move(self, position: Position, src: Pile, events: list[Event]) -> Position:
        """What follows a move by itself (Shady Lanes refills a reserve)."""
        return position

    def useful_tops(self, position: Position, index: int) -> Callable[[Card], bool]:
        """Whether a card would be *useful* face up on top of tableau pile ``index`` (in
        place of its top card; ``useful_by_moves``). Fair play asks it of every card a
        player could have turned up there (protocol/fairplay_reveals.py)."""
        return useful_by_moves(self, position, index)

    # ------------------------------------------------------------------ the interface

    def deal(self, number: int) -> Position:
        """The layout of deal ``number``, every card known (the dealer's view)."""
        return self.layout(shuffled(number, self.decks))

    def start(self, number: int) -> GameState:
        return GameState(self.deal(number))

    def legal_actions(self, state: GameState) -> list[Action]:
        """Every action ``apply`` accepts in this state (foundations written ``f``)."""
        return self._legal(state.position, state.has_previous)

    def view(self, state: GameState) -> View:
        return View(state.position.masked(), self.undo_allowed and state.has_previous)

    def legal_actions_in_view(self, view: View) -> list[Action]:
        """The same list as ``legal_actions``, computed from what the player sees."""
        return self._legal(view.position, view.can_undo)

    def _legal(self, position: Position, has_history: bool) -> list[Action]:
        actions = self.moves(position)
        for action in actions:
            if type(action) is Move and action.dst is ANY_FOUNDATION:
                actions.append(AUTO)
                break
        if has_history and self.undo_allowed:
            actions.append(UNDO)
        return actions

    def is_won(self, position: Position) -> bool:
        return position.progress() == self.card_total

    def is_stuck(self, state: GameState) -> bool:
        """Not won, and no action but ``undo`` is legal."""
        return not self.is_won(state.position) and not self.moves(state.position)

    def apply(self, state: GameState, action: Action) -> Outcome:
        """The outcome of ``action`` in ``state``, or IllegalAction saying which rule refuses."""
        if type(action) is Undo:
            return self._undo(state)
        new, events, counted = self.play(state.position, action)
        return Outcome(state.then(new, action, self), events, counted)

    def play(self, position: Position, action: Action) -> tuple[Position, list[Event], int]:
        """The position after a move, ``deal`` or ``auto`` (not ``undo``), its events and how
        many actions it counts as; IllegalAction if refused. The same position and action
        always give the same answer: undo history is replayed with it."""
        kind = type(action)
        if kind is Move:
            assert isinstance(action, Move)
            new, events = self.play_move(position, action)
            return new, events, 1
        if kind is Deal:
            new, events = self.play_deal(position)
            return new, events, 1
        if kind is Auto:
            return self.play_auto(position)
        raise IllegalAction(f"{action!r} is not an action", "malformed_action")

    def _undo(self, state: GameState) -> Outcome:
        if not self.undo_allowed:
            raise IllegalAction("undo is switched off in this game", "undo_disabled")
        previous = state.previous  # rebuilt (see protocol/history.py)
        if previous is None:
            raise IllegalAction("there is nothing to undo", "nothing_to_undo")
        return Outcome(previous, [Undone(state.last_action)], 1)

    # ------------------------------------------------------------------ moves

    def play_move(self, position: Position, move: Move) -> tuple[Position, list[Event]]:
        """Validate and make one move; the shared mechanics of all games."""
        src, count, dst = move.src, move.count, move.dst
        if count < 1:  # the notation cannot write it; a Move built in code can
            raise IllegalAction("a move takes at least one card", "malformed_action")
        pile = self._source_cards(position, src)
        down = position.face_down[src.index] if src.kind == TABLEAU else 0  # type: ignore[index]
        if count > len(pile) - down:
            if len(pile) == 0:
                raise IllegalAction(f"{src} is empty", "empty_source")
            raise IllegalAction(
                f"{src} has only {len(pile) - down} face-up card"
                f"{'' if len(pile) - down == 1 else 's'} to move",
                "not_enough_cards",
            )
        self.check_group(position, src, count)
        group = pile[-count:]
        events: list[Event] = []
        tableau = list(position.tableau)
        face_down = position.face_down
        foundations = position.foundations
        if dst.kind == FOUNDATION:
            if count != 1:
                raise IllegalAction(
                    "cards go to a foundation one at a time", "one_card_to_foundation"
                )
            index = self._foundation_for(position, group[0], dst)
            dst = FOUNDATION_PILES[index]
            foundations = _replace(foundations, index, foundations[index] + group)
        elif dst.kind == TABLEAU:
            target = dst.index
            assert target is not None
            if target >= self.tableau_piles:
                raise IllegalAction(f"this game has no pile {dst}", "unknown_pile")
            if src.index == target and src.kind == TABLEAU:  # dst == src, without __eq__
                raise IllegalAction("a pile cannot move onto itself", "same_pile")
            onto = tableau[target]
            if onto:
                self.check_build(group[0], onto[-1])
            else:
                self.check_fill(src, group[0])
            tableau[target] = onto + group
        else:
            raise IllegalAction(_NO_DESTINATION[dst.kind], "wrong_destination")

        events.append(Moved(src, dst, group))
        waste, reserves = position.waste, position.reserves
        kind, i = src.kind, src.index
        if kind == TABLEAU:
            assert i is not None
            rest = pile[:-count]
            tableau[i] = rest
            if rest and len(rest) == face_down[i]:
                face_down = _replace(face_down, i, face_down[i] - 1)
                events.append(Revealed(src, rest[-1]))
        elif kind == WASTE:
            waste = waste[:-1]
        else:  # a reserve
            assert i is not None
            reserves = _replace(reserves, i, reserves[i][:-1])
        new = Position(tuple(tableau), face_down, foundations, reserves, waste, position.stock)
        return self.after_move(new, src, events), events

    def _source_cards(self, position: Position, src: Pile) -> tuple[Card, ...]:
        kind, index = src.kind, src.index
        if kind == TABLEAU:
            assert index is not None
            if index < self.tableau_piles:
                return position.tableau[index]
        elif kind == WASTE and self.has_waste:
            return position.waste
        elif kind == RESERVE:
            assert index is not None
            if index < self.reserve_piles:
                return position.reserves[index]
        elif kind == FOUNDATION:
            raise IllegalAction("cards on a foundation never leave it", "foundation_is_final")
        elif kind == STOCK:
            raise IllegalAction("stock cards are turned with 'deal', never moved", "wrong_source")
        raise IllegalAction(f"this game has no pile {src}", "unknown_pile")

    def _foundation_for(self, position: Position, card: Card, dst: Pile) -> int:
        """The foundation ``card`` goes to: ``dst``'s, or the first that accepts it."""
        foundations = position.foundations
        if dst.index is not None:
            if dst.index >= self.foundation_piles:
                raise IllegalAction(f"this game has no pile {dst}", "unknown_pile")
            candidates: range | tuple[int, ...] = (dst.index,)
        else:
            candidates = range(self.foundation_piles)
        want = card - 4  # same suit, one rank lower
        for index in candidates:
            pile = foundations[index]
            if (pile[-1] == want) if pile else (card >> 2 == ACE):
                return index
        raise IllegalAction(_foundation_refusal(card, dst, foundations), "foundation_refuses")

    def foundation_targets(self, position: Position) -> set[Card]:
        """The cards some foundation would take now."""
        foundations = position.foundations
        wanted = {pile[-1] + 4 for pile in foundations if pile and pile[-1] < _KINGS}
        if () in foundations:
            wanted.update(_ACES)
        return wanted

    # ------------------------------------------------------------------ auto

    def auto_sources(self, position: Position) -> list[Pile]:
        """Piles whose top card ``auto`` tries, in order: waste, reserves, tableau."""
        piles: list[Pile] = [WASTE_PILE] if self.has_waste else []
        return (
            piles
            + list(RESERVE_PILES[: self.reserve_piles])
            + list(TABLEAU_PILES[: self.tableau_piles])
        )

    def play_auto(self, position: Position) -> tuple[Position, list[Event], int]:
        """Move cards to the foundations one at a time, scanning waste, reserves, then
        tableau piles left to right, until no card can go; IllegalAction if none could."""
        events: list[Event] = []
        moves = 0
        sources = self.auto_sources(position)
        while True:
            targets = self.foundation_targets(position)
            for src in sources:
                top = _top_face_up(position, src)
                if top in targets:
                    position, caused = self.play_move(position, Move(src, 1, ANY_FOUNDATION))
                    events.extend(caused)
                    moves += 1
                    break
            else:
                break
        if moves == 0:
            raise IllegalAction("no card can go to a foundation now", "nothing_to_auto")
        return position, events, moves


def fits_alternate_colour(card: Card, top: Card) -> bool:
    """``card`` is one rank below ``top`` and of the other colour. Cards are rank*4+suit
    with the colour in bit 1, so ``c >> 1`` is rank*2+colour."""
    return ((top >> 1) ^ 1) - 2 == card >> 1


def _top_face_up(position: Position, src: Pile) -> Card | None:
    kind, i = src.kind, src.index
    if kind == TABLEAU:
        assert i is not None
        pile = position.tableau[i]
        return pile[-1] if len(pile) > position.face_down[i] else None
    if kind == WASTE:
        return position.waste[-1] if position.waste else None
    assert i is not None
    reserve = position.reserves[i]
    return reserve[-1] if reserve else None


def _replace(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1 :]


def _foundation_refusal(card: Card, dst: Pile, foundations: tuple[tuple[Card, ...], ...]) -> str:
    where = "a foundation" if dst.index is None else str(dst)
    if card >> 2 == ACE:
        return f"{shown(card)} cannot go to {where}: an ace needs an empty foundation"
    return f"{shown(card)} cannot go to {where}: it needs {shown(card - 4)} on top"


_NO_DESTINATION = {
    WASTE: "no card may be moved onto the waste",
    STOCK: "no card may be moved onto the stock",
    RESERVE: "no card may be moved into a reserve",
}


def build_refusal(card: Card, top: Card, colour: str) -> IllegalAction:
    """The refusal of ``card`` on ``top``, naming cards as players see them: "7♥ cannot go on
    9♠: it needs an 8 of the other colour" (``colour`` says what the build asks of the
    suits)."""
    if C.rank(card) == C.KING:
        why = "a king goes only on an empty pile"
    else:
        why = f"it needs {C.rank_phrase(C.rank(card) + 1)}{colour}"
    return IllegalAction(f"{shown(card)} cannot go on {shown(top)}: {why}", "does_not_fit")


def useful_by_moves(rules: Rules, position: Position, index: int) -> Callable[[Card], bool]:
    """``Rules.useful_tops`` from the legal moves of the position with the card on top of
    tableau pile ``index``, once a card: the card may move at once to a foundation or
    onto another card, or another pile's card may move onto it (a move to an empty pile
    does not count: a lone card gains nothing there). A game may answer faster."""
    pile, known = TABLEAU_PILES[index], {}

    def useful(card: Card) -> bool:
        if card not in known:
            tableau = list(position.tableau)
            tableau[index] = tableau[index][:-1] + (card,)
            known[card] = _has_move_at(rules, position._replace(tableau=tuple(tableau)), pile)
        return known[card]

    return useful


def _has_move_at(rules: Rules, position: Position, pile: Pile) -> bool:
    """Some legal move takes ``pile``'s top to a foundation or onto another card, or
    another card onto it (``Rules.useful_tops``)."""
    tableau = position.tableau
    for move in rules.moves(position):
        if type(move) is not Move:
            continue
        src, dst = move.src, move.dst
        if src == pile:
            if dst.kind == FOUNDATION or (dst.kind == TABLEAU and tableau[dst.index or 0]):
                return True
        elif dst == pile:
            return True
    return False
