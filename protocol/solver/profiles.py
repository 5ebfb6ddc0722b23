"""What the solver knows about each game: a canonical key for the transposition table, the
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

import itertools
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import ClassVar

from protocol.cards import ACE, KING, Card, make
from protocol.engine import Rules, fits_alternate_colour
from protocol.errors import BadGame
from protocol.notation import (
    ANY_FOUNDATION,
    DEAL,
    RESERVE,
    RESERVE_PILES,
    TABLEAU,
    TABLEAU_PILES,
    WASTE,
    WASTE_PILE,
    Action,
    Move,
    Pile,
)
from protocol.position import Position

PILE_END = b"\xff"
BEAM_WIDTHS = (16, 64, 256, 1024, 4096, 16384)  # the beam's passes, unless a game says
PART_END = b"\xfe"
_KINGS = make(KING, 0)  # the lowest king: every card below it has a next rank
_ACES = tuple(make(ACE, suit) for suit in range(4))


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


def _sorted_piles(position: Position) -> bytes:
    return PILE_END.join(
        sorted(
            bytes((down, *pile))
            for pile, down in zip(position.tableau, position.face_down, strict=True)
        )
    )


def _piles_in_order(position: Position) -> bytes:
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


def _ranked(moves: list[Action], score: Callable[[Action], int]) -> list[Action]:
    return sorted(moves, key=score, reverse=True)


class SanibelProfile(Profile):
    """Ten interchangeable piles (the stock deals to the waste), Yukon-style group moves.

    Safe: a card from the waste or a tableau top to a foundation once every card that
    could ever be built on it (the four cards of the other colour one rank lower) is home,
    and the other copy of the card is home too or has a foundation of its own ready.
    """

    safe_from_waste = True

    def key(self, position: Position) -> bytes:
        return (
            _sorted_piles(position)
            + PART_END
            + bytes(position.waste)
            + PART_END
            + bytes((len(position.stock),))
        )

    def ordered_moves(self, position: Position) -> list[Action]:
        moves = self._first_empty_only(self.rules.moves(position), position)
        tableau, face_down = position.tableau, position.face_down
        targets = self.rules.foundation_targets(position)

        def score(action: Action) -> int:
            if type(action) is not Move:
                return -30  # deal: irreversible, try it after the rest
            if action.dst.kind != TABLEAU:
                return 100
            onto_empty = not tableau[action.dst.index]  # type: ignore[index]
            src = action.src
            if src.kind != TABLEAU:
                return 5 if onto_empty else 20
            pile = tableau[src.index]  # type: ignore[index]
            down = face_down[src.index]  # type: ignore[index]
            bottom = len(pile) - action.count
            if bottom == 0:
                return 40
            below = pile[bottom - 1]
            value = 0
            if bottom == down:
                value += 60 - down
            elif fits_alternate_colour(pile[bottom], below):
                value -= 20  # leaves a proper build for an equal one
            if below in targets:
                value += 30
            return value - 15 if onto_empty else value

        return _ranked(moves, score)

    def score(self, position: Position) -> int:
        return 10 * position.progress() - 5 * sum(position.face_down)


def _moves_from(src: Pile) -> tuple[Move, ...]:
    """Shady Lanes' moves of one card from ``src``: onto t0..t3, then to a foundation."""
    return tuple(Move(src, 1, dst) for dst in TABLEAU_PILES[:4]) + (Move(src, 1, ANY_FOUNDATION),)


_TABLEAU_MOVES = tuple(_moves_from(pile) for pile in TABLEAU_PILES[:4])
_RESERVE_MOVES = tuple(_moves_from(pile) for pile in RESERVE_PILES[:4])
_WASTE_MOVES = _moves_from(WASTE_PILE)


class ShadyLanesProfile(Profile):
    """Four interchangeable tableau piles and four interchangeable one-card reserves.

    Safe: only a tableau top to a foundation, on Sanibel's terms. A reserve or waste card
    is never moved without branching: the reserve it leaves (now or later) refills, and
    which card a refill takes can matter.
    """

    strategies = (("depth_first", 1), ("beam", 7))
    # Only the beam has ever won a Shady Lanes deal, and no proof fits a certification
    # budget ("Why proofs are out of reach"): where only a win counts, the beam gets the
    # depth-first share too.
    win_strategies = (("beam", 1),)
    # Restarts: one beam pass of this width after another, each later one ranking by its
    # own drawn weights (``varied_score``). On 200 deals at 32,000 positions this won more
    # than one widening beam (16, 64, 256, ...); see docs/solver.md.
    RESTART_WIDTH: ClassVar[int] = 16
    RESTART_NOISE: ClassVar[int] = 4
    screen_width = 1  # a greedy pass: a few hundred positions (docs/solver.md)

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.foundation_count = rules.foundation_piles
        # ``out_of_order`` of each waste seen (many positions share a waste), per solve.
        self._disorder: dict[tuple[Card, ...], int] = {}

    def key(self, position: Position) -> bytes:
        tableau, face_down, _, reserves, waste, stock = position
        if any(face_down):  # never in a Shady Lanes deal; kept exact for any position
            piles = _sorted_piles(position)
        else:
            piles = PILE_END.join(sorted(map(bytes, tableau)))
        return (
            piles
            + PART_END
            + bytes(sorted([reserve[-1] if reserve else 0 for reserve in reserves]))
            + PART_END
            + bytes(waste)
            + PART_END
            + bytes((len(stock),))
        )

    def play(self, position: Position, move: Move) -> Position:
        """``rules.play_move`` for a legal move, without its checks and events: the card
        moves, a tableau pile left with only face-down cards turns one, and an emptied
        reserve takes the waste top, else the stock's (as ``ShadyLanes.after_move``)."""
        tableau, face_down, foundations, reserves, waste, stock = position
        src, dst = move.src, move.dst
        kind, i = src.kind, src.index
        if kind == TABLEAU:
            pile = tableau[i]  # type: ignore[index]
            card = pile[-1]
        elif kind == WASTE:
            card = waste[-1]
            waste = waste[:-1]
        else:
            card = reserves[i][-1]  # type: ignore[index]
        if dst.kind == TABLEAU:
            j = dst.index
            assert j is not None
            tableau = tableau[:j] + (tableau[j] + (card,),) + tableau[j + 1 :]
        else:
            f = dst.index
            if f is None:
                want = card - 4
                f = 0
                for f, home in enumerate(foundations):  # noqa: B007 - the first that takes it
                    if (home[-1] == want) if home else (card >> 2 == ACE):
                        break
            foundations = foundations[:f] + (foundations[f] + (card,),) + foundations[f + 1 :]
        if kind == TABLEAU:
            assert i is not None
            rest = pile[:-1]
            tableau = tableau[:i] + (rest,) + tableau[i + 1 :]
            if rest and len(rest) == face_down[i]:
                face_down = face_down[:i] + (face_down[i] - 1,) + face_down[i + 1 :]
        elif kind == RESERVE:
            assert i is not None
            left = reserves[i][:-1]
            if not left:
                if waste:
                    left = waste[-1:]
                    waste = waste[:-1]
                elif stock:
                    left = stock[:1]
                    stock = stock[1:]
            reserves = reserves[:i] + (left,) + reserves[i + 1 :]
        return Position(tableau, face_down, foundations, reserves, waste, stock)

    def ordered_moves(self, position: Position) -> list[Action]:
        """The legal moves (one to the leftmost empty pile only), ranked: to a foundation
        100; a tableau top that uncovers a card a foundation takes 40; a reserve card onto
        a card 30; a tableau card that empties its pile 25; the waste top onto a card 20;
        a reserve card to an empty pile 15; the deal 0; other tableau moves -10. Ties in
        the engine's order of ``moves``."""
        return self._ranked_moves(position, True)

    def beam_moves(self, position: Position) -> list[Action]:
        """Without moving a tableau card onto another pile, unless that empties its pile or
        uncovers a card a foundation takes (``ordered_moves`` without its -10 moves)."""
        return self._ranked_moves(position, False)

    def _ranked_moves(self, position: Position, all_moves: bool) -> list[Action]:
        tableau, _, foundations, reserves, waste, stock = position
        targets = {home[-1] + 4 for home in foundations if home and home[-1] < _KINGS}
        if () in foundations:
            targets.update(_ACES)
        tops = [(j, pile[-1]) for j, pile in enumerate(tableau) if pile]
        empty = next((j for j, pile in enumerate(tableau) if not pile), None)
        home: list[Action] = []
        uncover: list[Action] = []
        from_reserve: list[Action] = []
        emptying: list[Action] = []
        from_waste: list[Action] = []
        fill: list[Action] = []
        other: list[Action] = []
        for i, reserve in enumerate(reserves):
            if reserve:
                card = reserve[-1]
                moves = _RESERVE_MOVES[i]
                fits = card >> 1
                for j, top in tops:
                    if ((top >> 1) ^ 1) - 2 == fits:
                        from_reserve.append(moves[j])
                if empty is not None:
                    fill.append(moves[empty])
                if card in targets:
                    home.append(moves[-1])
        for i, card in tops:
            moves = _TABLEAU_MOVES[i]
            fits = card >> 1
            pile = tableau[i]
            bucket = emptying if len(pile) == 1 else uncover if pile[-2] in targets else other
            for j, top in tops:
                if j != i and ((top >> 1) ^ 1) - 2 == fits:
                    bucket.append(moves[j])
            if card in targets:
                home.append(moves[-1])
        if waste:
            card = waste[-1]
            fits = card >> 1
            for j, top in tops:
                if ((top >> 1) ^ 1) - 2 == fits:
                    from_waste.append(_WASTE_MOVES[j])
            if card in targets:
                home.append(_WASTE_MOVES[-1])
        ranked = home + uncover + from_reserve + emptying + from_waste + fill
        if stock:
            ranked.append(DEAL)
        if all_moves:
            ranked += other
        return ranked

    def _out_of_order(self, waste: tuple[Card, ...]) -> int:
        cache = self._disorder
        count = cache.get(waste)
        if count is None:
            if len(cache) > 200_000:
                cache.clear()
            count = cache[waste] = out_of_order(waste)
        return count

    def score(self, position: Position) -> int:
        waste = position.waste
        empty = sum(1 for pile in position.tableau if not pile)
        return (
            10 * sum(map(len, position.foundations))
            - 2 * len(waste)
            - self._out_of_order(waste)
            + 5 * empty
        )

    def beam_passes(self) -> Iterable[int]:
        return itertools.repeat(self.RESTART_WIDTH)

    def varied_score(self, rng: Draws) -> Callable[[Position], int]:
        """``score`` with weights drawn for the pass (waste cards, those above a lower card
        of their suit, empty piles) and a small random amount per position (ties broken
        otherwise), all from ``rng``."""
        waste_weight = rng.choice((1, 2, 2, 3, 4))
        order_weight = rng.choice((0, 1, 1, 2, 3))
        empty_weight = rng.choice((0, 3, 5, 5, 8))
        noise = rng.below
        spread = self.RESTART_NOISE
        disorder = self._out_of_order

        def score(position: Position) -> int:
            waste = position.waste
            empty = sum(1 for pile in position.tableau if not pile)
            return (
                10 * position.progress()
                - waste_weight * len(waste)
                - order_weight * disorder(waste)
                + empty_weight * empty
                + noise(spread)
            )

        return score

    def beam_signature(self, position: Position) -> bytes | None:
        """The waste and the reserves: positions that differ only in their tableau."""
        reserves = sorted(reserve[-1] if reserve else 0 for reserve in position.reserves)
        return bytes(position.waste) + PART_END + bytes(reserves)


class MountSunflowerProfile(Profile):
    """Seven piles that a deal tells apart (it gives t0 first), interchangeable once the
    stock is empty; same-suit runs move.

    Safe: a tableau top to a foundation once the stock is empty and every card one rank
    lower, of any suit, is home. While cards are left to deal, any card may be needed to
    fill an empty pile (standard game: a deal needs every pile filled), so none is safe
    there; in the easy game the fill is never needed and the stock does not matter.
    """

    def __init__(self, rules: Rules) -> None:
        super().__init__(rules)
        self.fill_matters = bool(getattr(rules, "deal_needs_full_tableau", True))

    def is_dead(self, position: Position) -> bool:
        """Standard game: cards left to deal but fewer cards in the tableau than piles. No
        move adds a card to the tableau but a deal, and a deal needs every pile filled."""
        return (
            self.fill_matters
            and bool(position.stock)
            and sum(map(len, position.tableau)) < len(position.tableau)
        )

    def key(self, position: Position) -> bytes:
        piles = _piles_in_order(position) if position.stock else _sorted_piles(position)
        return piles + PART_END + bytes((len(position.stock),))

    def safe_now(self, position: Position) -> bool:
        return not (position.stock and self.fill_matters)

    def is_safe(self, card: Card, home: HomeCount) -> bool:
        return home.no_lower_out(card)  # one deck: no other copy

    def ordered_moves(self, position: Position) -> list[Action]:
        moves = self.rules.moves(position)
        if not position.stock:
            moves = self._first_empty_only(moves, position)
        tableau, face_down = position.tableau, position.face_down
        targets = self.rules.foundation_targets(position)
        # Standard game with few cards left out: deal while every pile still has a card.
        deal_value = 150 if self.fill_matters and sum(map(len, tableau)) < 14 else -50

        def score(action: Action) -> int:
            if type(action) is not Move:
                return deal_value
            src, dst = action.src, action.dst
            if dst.kind != TABLEAU:
                return 100
            pile = tableau[src.index]  # type: ignore[index]
            down = face_down[src.index]  # type: ignore[index]
            bottom = len(pile) - action.count
            onto = tableau[dst.index]  # type: ignore[index]
            value = 0
            if onto and onto[-1] == pile[bottom] + 4:
                value += 20  # joins a run in suit
            if bottom == 0:
                value += 30 if onto else -40
            else:
                below = pile[bottom - 1]
                if bottom == down:
                    value += 50
                elif below == pile[bottom] + 4:
                    value -= 30  # splits a run in suit
                if below in targets:
                    value += 40
                if not onto:
                    value -= 20
            return value

        return _ranked(moves, score)

    def score(self, position: Position) -> int:
        value = 10 * position.progress()
        for pile, down in zip(position.tableau, position.face_down, strict=True):
            if not pile:
                value += 6
                continue
            value -= 2 * down + 2 * out_of_order(pile)
            for k in range(max(down, 1), len(pile)):
                if pile[k - 1] == pile[k] + 4:
                    value += 3
        return value


class MountSunflowerEasyProfile(MountSunflowerProfile):
    """The easy game allows every move of the standard game, and a deal at any time: a
    standard win is an easy win, so the standard game's search runs alongside."""

    stricter_game = "mount_sunflower"
    strategies = (("depth_first", 1), ("best_first", 1), ("stricter_best_first", 1))


PROFILES: dict[str, type[Profile]] = {
    "sanibel": SanibelProfile,
    "shady_lanes": ShadyLanesProfile,
    "mount_sunflower": MountSunflowerProfile,
    "mount_sunflower_easy": MountSunflowerEasyProfile,
}


def profile_for(rules: Rules) -> Profile:
    """The solver's profile of ``rules``' game; BadGame if the solver does not know it."""
    cls = PROFILES.get(rules.name)
    if cls is None:
        raise BadGame(f"the solver does not know the game {rules.name!r}", "unknown_game")
    return cls(rules)
