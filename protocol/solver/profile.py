"""What the solver knows about a game (``Profile``; each game's own is in a module of its
own, all listed in ``profiles.py``): a canonical key for the transposition table, the
foundation moves that are always safe, and which moves to try first.

Every rule the complete strategies use keeps them complete: two positions get the same key
only when they are the same up to an exchange of piles the rules treat alike, a move is
made without branching only when the position after it is at least as good as before it
(docs/solver.md gives the argument per game), a move is dropped only when it leads to a
position equal, up to such an exchange, to one another listed move leads to, and a
position is called dead only when it certainly cannot be won. Scores, move order and the
beam's hooks only decide what is tried first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import ClassVar

from protocol.cards import ACE, KING, Card, make
from protocol.engine import Rules
from protocol.notation import (
    ANY_FOUNDATION,
    TABLEAU,
    TABLEAU_PILES,
    WASTE_PILE,
    Action,
    Move,
)
from protocol.position import Position

PILE_END = b"\xff"
BEAM_WIDTHS = (16, 64, 256, 1024, 4096, 16384)  # the beam's passes, unless a game says
PART_END = b"\xfe"
LOWEST_KING = make(KING, 0)  # the lowest king: every card below it has a next rank
ACES = tuple(make(ACE, suit) for suit in range(4))


class Draws:
    """A small seeded generator (SplitMix64): the same draws for the same seed in every
    process, with no global state (protocol modules never touch ``random``)."""

    MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self.state = seed & self.MASK

    def below(self, n: int) -> int:
        """A draw in ``0 .. n - 1``."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return (z ^ (z >> 31)) % n

    def choice(self, options: tuple[int, ...]) -> int:
        return options[self.below(len(options))]


class HomeCount:
    """What the foundations tell about sending a card home without branching."""

    def __init__(self, foundations: tuple[tuple[Card, ...], ...], decks: int) -> None:
        tops: list[list[int]] = [[], [], [], []]
        for pile in foundations:
            if pile:
                tops[pile[-1] & 3].append(pile[-1] >> 2)
        self.tops = tops
        self.decks = decks
        # For each suit, the highest rank every copy of the suit has reached at home.
        self.floors = [min(ranks) if len(ranks) == decks else 0 for ranks in tops]

    def no_lower_other_colour_out(self, card: Card) -> bool:
        """Every card one rank lower and of the other colour is home: none will ever be
        built on ``card`` (alternate-colour games)."""
        other = (0, 1) if card & 2 else (2, 3)
        return (card >> 2) - 1 <= min(self.floors[other[0]], self.floors[other[1]])

    def no_lower_out(self, card: Card) -> bool:
        """Every card one rank lower is home: none will ever be built on ``card``
        (games that build regardless of suit)."""
        return (card >> 2) - 1 <= min(self.floors)

    def takes_no_copys_place(self, card: Card) -> bool:
        """Each copy of ``card`` still out has its own foundation ready for it, so sending
        this one home leaves the other copy as free to follow as it was. (With two decks
        and one foundation ready, the copy sent home would take the place the other copy
        might need first, to uncover what lies under it.)"""
        rank = card >> 2
        if rank == ACE:
            return True  # every ace out always has an empty foundation
        tops = self.tops[card & 3]
        still_out = self.decks - sum(1 for top in tops if top >= rank)
        ready = sum(1 for top in tops if top == rank - 1)
        return ready >= still_out


def sorted_piles(position: Position) -> bytes:
    return PILE_END.join(
        sorted(
            bytes((down, *pile))
            for pile, down in zip(position.tableau, position.face_down, strict=True)
        )
    )


def piles_in_order(position: Position) -> bytes:
    return PILE_END.join(
        bytes((down, *pile))
        for pile, down in zip(position.tableau, position.face_down, strict=True)
    )


def out_of_order(cards: tuple[Card, ...]) -> int:
    """How many of ``cards`` (bottom first) lie above a lower card of their own suit: each
    must move off before that card can go home."""
    lowest = [14, 14, 14, 14]
    count = 0
    for card in cards:
        suit, rank = card & 3, card >> 2
        if rank > lowest[suit]:
            count += 1
        elif rank < lowest[suit]:
            lowest[suit] = rank
    return count


class Profile(ABC):
    """The solver's view of one game. Subclasses fill in the hooks and ``strategies``:
    which search strategies ``solve`` runs side by side, with their shares of the budget."""

    strategies: ClassVar[tuple[tuple[str, int], ...]] = (("depth_first", 1), ("best_first", 1))
    # What ``solve(..., wins_only=True)`` runs (certification, where only a win counts):
    # None for ``strategies``.
    win_strategies: ClassVar[tuple[tuple[str, int], ...] | None] = None
    # A game with the same layout whose every legal move is legal here too: its wins are
    # wins here, and its smaller space may be searched faster.
    stricter_game: ClassVar[str | None] = None
    # The daily's certification (protocol/daily_choice.py): the node budget per candidate
    # of the first widening round, and how many candidates are tried before an uncertified
    # deal. A game the solver rarely wins soon starts higher and tries longer.
    certify_first_nodes: ClassVar[int] = 8_000
    certify_candidates: ClassVar[int] = 64

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.decks = rules.decks

    @abstractmethod
    def key(self, position: Position) -> bytes:
        """Equal for positions that are the same up to exchanging interchangeable piles,
        and (for positions reached from one start) different otherwise. The foundations
        are left out: they hold exactly the cards the other piles lack."""

    safe_from_waste: ClassVar[bool] = False

    def safe_move(self, position: Position) -> Move | None:
        """A foundation move that never loses a win, or None: a tableau top (or the waste
        top, where ``safe_from_waste``) that a foundation takes and ``is_safe`` allows."""
        if not self.safe_now(position):
            return None
        targets = self.rules.foundation_targets(position)
        home: HomeCount | None = None
        for i, pile in enumerate(position.tableau):
            if pile and pile[-1] in targets:
                home = home or HomeCount(position.foundations, self.decks)
                if self.is_safe(pile[-1], home):
                    return Move(TABLEAU_PILES[i], 1, ANY_FOUNDATION)
        waste = position.waste
        if self.safe_from_waste and waste and waste[-1] in targets:
            home = home or HomeCount(position.foundations, self.decks)
            if self.is_safe(waste[-1], home):
                return Move(WASTE_PILE, 1, ANY_FOUNDATION)
        return None

    def safe_now(self, position: Position) -> bool:
        """Whether any card may go home without branching in ``position``."""
        return True

    def is_safe(self, card: Card, home: HomeCount) -> bool:
        """Whether sending ``card`` (which a foundation takes) home never loses a win.
        Unless a game says otherwise: alternate-colour building, as Sanibel and Shady Lanes
        build."""
        return home.no_lower_other_colour_out(card) and home.takes_no_copys_place(card)

    @abstractmethod
    def ordered_moves(self, position: Position) -> list[Action]:
        """The legal moves worth trying, most promising first."""

    @abstractmethod
    def score(self, position: Position) -> int:
        """How promising ``position`` looks (higher is better), for best-first and beam."""

    def beam_moves(self, position: Position) -> list[Action]:
        """The moves the (incomplete) beam search tries: by default the same as
        ``ordered_moves``; a game may leave out moves that rarely help."""
        return self.ordered_moves(position)

    def beam_signature(self, position: Position) -> bytes | None:
        """Positions with the same signature count as one when the beam picks the best
        (the others come after every distinct one); None: no such grouping."""
        return None

    def beam_passes(self) -> Iterable[int]:
        """The beam's width for each pass, in order (widening by default)."""
        return BEAM_WIDTHS

    # The width of the lone beam pass ``search.screen`` looks at a deal with; None: the
    # game has no screen (certification tries its candidates in their own order).
    screen_width: ClassVar[int | None] = None

    def varied_score(self, rng: Draws) -> Callable[[Position], int]:
        """The score a later beam pass ranks by, drawn with ``rng`` (seeded by the pass:
        deterministic). By default the score itself."""
        return self.score

    def is_dead(self, position: Position) -> bool:
        """True only when ``position`` can certainly never be won (so its moves need no
        search). Unless a game says otherwise, nothing is known to be dead."""
        return False

    def play(self, position: Position, move: Move) -> Position:
        """The position after ``move``, a legal move (the solver makes no other). Unless a
        game says otherwise: the engine's ``play_move``, which checks it again."""
        return self.rules.play_move(position, move)[0]

    def _first_empty_only(self, moves: list[Action], position: Position) -> list[Action]:
        """Drop moves onto an empty tableau pile other than the leftmost empty one, and
        moves of a whole pile (nothing face down) onto an empty pile: with interchangeable
        piles both lead to a position another listed move (or none at all) reaches."""
        tableau = position.tableau
        first = next((i for i, pile in enumerate(tableau) if not pile), None)
        if first is None:
            return moves
        kept: list[Action] = []
        for move in moves:
            if type(move) is Move and move.dst.kind == TABLEAU and not tableau[move.dst.index]:  # type: ignore[index]
                if move.dst.index != first:
                    continue
                src = move.src
                if (
                    src.kind == TABLEAU
                    and move.count == len(tableau[src.index])  # type: ignore[index]
                    and position.face_down[src.index] == 0  # type: ignore[index]
                ):
                    continue
            kept.append(move)
        return kept


def ranked(moves: list[Action], score: Callable[[Action], int]) -> list[Action]:
    return sorted(moves, key=score, reverse=True)
