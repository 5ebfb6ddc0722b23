"""RULES.md, "Deal numbers are PySolFC's": golden layouts made by PySolFC itself, and an
independent reference (written here from the spec, not by calling ``protocol.deals``) for
deals 1, 31999, 32000, 32001 and 10**20 - 1 of every game."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from pysol_cards.random import LCRandom31

from protocol import cards
from protocol.cards import Card
from protocol.deals import MAX_DEAL, parse_deal_number, shuffled
from protocol.errors import BadGame
from protocol.games import GAMES, rules_for
from protocol.position import Position

GOLDEN = Path(__file__).with_name("golden-deals.jsonl")
NUMBERS = [1, 31999, 32000, 32001, 10**20 - 1]
CLUBS, SPADES, HEARTS, DIAMONDS = range(4)


# ---------------------------------------------------------------- the reference


def creation_order(decks: int) -> list[Card]:
    """Deck by deck, suits C S H D, ace to king."""
    suits = (CLUBS, SPADES, HEARTS, DIAMONDS)
    return [cards.make(r, s) for _ in range(decks) for s in suits for r in range(1, 14)]


def microsoft_order() -> list[Card]:
    """The Microsoft deck: ace to king, each rank in the suits C D H S."""
    return [cards.make(r, s) for r in range(1, 14) for s in (CLUBS, DIAMONDS, HEARTS, SPADES)]


def microsoft_shuffle(number: int, deck: list[Card]) -> list[Card]:
    """PySolFC's LCRandom31 for seeds below 2**31: the Microsoft C library's rand()."""
    deck, seed = list(deck), number
    for n in range(len(deck) - 1, 0, -1):
        seed = (seed * 214013 + 2531011) & 0x1FFFFFFFF
        j = ((seed >> 16) & 0x7FFF) % (n + 1)
        deck[n], deck[j] = deck[j], deck[n]
    return deck


def mersenne_shuffle(number: int, deck: list[Card]) -> list[Card]:
    """PySolFC's MTRandom: Python's Random(n), randint(a, b) = a + int(random() * (b+1-a))."""
    deck, generator = list(deck), random.Random(number)
    for n in range(len(deck) - 1, 0, -1):
        j = int(generator.random() * (n + 1))
        deck[n], deck[j] = deck[j], deck[n]
    return deck


def reference_shuffle(number: int, decks: int) -> list[Card]:
    if number < 32000:
        deck = microsoft_order() if decks == 1 else creation_order(decks)
        return microsoft_shuffle(number, deck)
    return mersenne_shuffle(number, creation_order(decks))


def reference_layout(game: str, number: int) -> Position:
    """The layout as RULES.md describes it, from the cards in the order they are dealt
    (the last card of the shuffled list first)."""
    decks = GAMES[game].rules.decks
    order = tuple(reversed(reference_shuffle(number, decks)))
    empty_foundations: tuple[tuple[Card, ...], ...] = ((),) * (4 * decks)
    if game == "sanibel":
        return Position(
            tableau=tuple(order[i:100:10] for i in range(10)),
            face_down=(3,) * 10,
            foundations=empty_foundations,
            reserves=(),
            waste=order[100:101],
            stock=order[101:],
        )
    if game == "shady_lanes":
        return Position(
            tableau=tuple(order[i : i + 1] for i in range(4, 8)),
            face_down=(0,) * 4,
            foundations=empty_foundations,
            reserves=tuple(order[i : i + 1] for i in range(4)),
            waste=order[8:9],
            stock=order[9:],
        )
    return Position(
        tableau=tuple(order[i:28:7] for i in range(7)),
        face_down=(3, 2, 1, 0, 1, 2, 3),
        foundations=empty_foundations,
        reserves=(),
        waste=(),
        stock=order[28:],
    )


# ---------------------------------------------------------------- golden data


def golden_deals() -> list[dict[str, object]]:
    with GOLDEN.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.mark.parametrize("golden", golden_deals(), ids=lambda g: f"{g['game']}-{g['number']}")
def test_the_deal_is_the_layout_pysolfc_gives(golden: dict[str, object]) -> None:
    game, number = str(golden["game"]), int(str(golden["number"]))
    layout = rules_for(game).deal(number).dealer_json(game, number)
    assert layout.pop("foundations") == [[]] * 8
    assert layout == golden


# ---------------------------------------------------------------- the reference


@pytest.mark.parametrize("number", NUMBERS)
@pytest.mark.parametrize("game", list(GAMES))
def test_the_deal_matches_the_reference_written_from_the_rules(game: str, number: int) -> None:
    assert rules_for(game).deal(number) == reference_layout(game, number)


def test_the_reference_agrees_with_the_golden_deals() -> None:
    for golden in golden_deals():
        game, number = str(golden["game"]), int(str(golden["number"]))
        layout = reference_layout(game, number).dealer_json(game, number)
        del layout["foundations"]
        assert layout == golden


def test_a_one_deck_deal_below_32000_is_microsoft_freecell_deal_of_that_number() -> None:
    """Known first rows of Microsoft FreeCell deals 1 and 617, dealt eight to a row."""
    for number, first_row in ((1, "JD 2D 9H JC 5D 7H 7C 5H"), (617, "7D AD 5C 3S 5S 8C 2D AH")):
        dealt_first = list(reversed(shuffled(number, 1)))
        assert " ".join(cards.names(dealt_first[:8])) == first_row


def test_deal_31999_is_the_last_to_use_the_microsoft_generator() -> None:
    for decks in (1, 2):
        dealt = shuffled(31999, decks)
        assert dealt == reference_shuffle(31999, decks)
        assert dealt != mersenne_shuffle(31999, creation_order(decks))


def test_deal_32000_uses_the_mersenne_twister_not_the_microsoft_generator() -> None:
    for decks in (1, 2):
        dealt = shuffled(32000, decks)
        assert dealt == mersenne_shuffle(32000, creation_order(decks))
        lcg_deck = microsoft_order() if decks == 1 else creation_order(decks)
        assert dealt != microsoft_shuffle(32000, lcg_deck)
        pysol_lcg = LCRandom31()
        pysol_lcg.setSeed(32000)
        assert dealt != pysol_lcg.shuffle(lcg_deck)


def test_the_reference_microsoft_generator_is_pysol_cards_lcrandom31() -> None:
    for number in (1, 617, 31999):
        pysol_lcg = LCRandom31()
        pysol_lcg.setSeed(number)
        assert microsoft_shuffle(number, creation_order(2)) == pysol_lcg.shuffle(creation_order(2))


# ---------------------------------------------------------------- regression pins

# The first three cards dealt and the next stock card, per game and deal: if any of these
# change, every stored race and leaderboard of that game changes meaning.
PINS = {
    ("sanibel", 1): "3D 5H JC / 5S",
    ("sanibel", 31999): "3D 5S 2H / 7S",
    ("sanibel", 32000): "KH 9H 10D / 4H",
    ("sanibel", 32001): "8C AC JD / KS",
    ("sanibel", MAX_DEAL): "QD 9S 8D / 5H",
    ("shady_lanes", 1): "3D 5H JC / JD",
    ("shady_lanes", 31999): "3D 5S 2H / AC",
    ("shady_lanes", 32000): "KH 9H 10D / 6C",
    ("shady_lanes", 32001): "8C AC JD / 9D",
    ("shady_lanes", MAX_DEAL): "QD 9S 8D / 4D",
    ("mount_sunflower", 1): "JD 2D 9H / 4H",
    ("mount_sunflower", 31999): "JD JH AD / 2S",
    ("mount_sunflower", 32000): "7S 4D JS / AD",
    ("mount_sunflower", 32001): "4C AC JD / 10H",
    ("mount_sunflower", MAX_DEAL): "KS JC 10D / 4S",
}


@pytest.mark.parametrize(("game", "number"), list(PINS))
def test_pinned_cards_of_each_deal_do_not_change(game: str, number: int) -> None:
    dealt = rules_for(game).deal(number)
    first_piles = dealt.reserves if game == "shady_lanes" else dealt.tableau
    first = " ".join(cards.name(pile[0]) for pile in first_piles[:3])
    assert f"{first} / {cards.name(dealt.stock[0])}" == PINS[game, number]


def test_mount_sunflower_easy_deals_the_same_layouts_as_mount_sunflower() -> None:
    easy, standard = rules_for("mount_sunflower_easy"), rules_for("mount_sunflower")
    for number in NUMBERS:
        assert easy.deal(number) == standard.deal(number)


def test_a_deal_is_the_same_in_every_process() -> None:
    script = (
        "from protocol.games import GAMES, rules_for\n"
        "for game in GAMES:\n"
        "    for number in (1, 32000, 10**20 - 1):\n"
        "        print(rules_for(game).deal(number).fingerprint())\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    printed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    here = [
        rules_for(game).deal(number).fingerprint()
        for game in GAMES
        for number in (1, 32000, 10**20 - 1)
    ]
    assert printed == here


# ---------------------------------------------------------------- deal numbers


@pytest.mark.parametrize("number", [1, 31999, 32000, MAX_DEAL])
def test_deal_numbers_run_from_1_to_10_to_the_20_minus_1(number: int) -> None:
    assert len(shuffled(number, 2)) == 104


@pytest.mark.parametrize("number", [0, -1, 10**20, True, 5.0, "5"])
def test_a_number_outside_the_deal_range_is_refused(number: object) -> None:
    with pytest.raises(BadGame) as caught:
        rules_for("sanibel").start(number)  # type: ignore[arg-type]
    assert caught.value.code == "bad_deal_number"


@pytest.mark.parametrize("text", ["1", "32000", "99999999999999999999"])
def test_a_deal_number_is_read_from_its_decimal_digits(text: str) -> None:
    assert parse_deal_number(text) == int(text)


@pytest.mark.parametrize(
    "text", ["", "0", "-1", "+5", " 1", "1e3", "0x10", "100000000000000000000", "\uff11", "٣"]
)
def test_text_that_is_not_a_deal_number_is_refused(text: str) -> None:
    with pytest.raises(BadGame) as caught:
        parse_deal_number(text)
    assert caught.value.code == "bad_deal_number"


def test_dealing_leaves_no_garbage_behind_for_the_cycle_collector() -> None:
    """A server freezes long-lived objects for the garbage collector now and then; a
    reference cycle made by dealing and frozen before it is collected is never freed, so
    dealing (every race's start and rebuild) must leave none."""
    import gc

    from protocol.deals import FIRST_MT_DEAL, shuffled

    gc.collect()
    gc.disable()
    try:
        for number in (FIRST_MT_DEAL, FIRST_MT_DEAL + 12_345_678, 5):
            shuffled(number, 2)
        assert gc.collect() == 0
    finally:
        gc.enable()
