"""RULES.md, "Notation": cards, piles and actions are read and written one way; text that
is not in the notation is refused as malformed (not as illegal)."""

from __future__ import annotations

import pytest

from protocol import cards
from protocol.errors import IllegalAction, MalformedAction
from protocol.notation import (
    AUTO,
    DEAL,
    FOUNDATION_PILES,
    RESERVE_PILES,
    TABLEAU_PILES,
    UNDO,
    Move,
    Pile,
    format_action,
    parse_action,
    parse_pile,
)

EVERY_PILE = ["s", "w", "f"] + [f"f{i}" for i in range(8)]
EVERY_PILE += [f"r{i}" for i in range(4)] + [f"t{i}" for i in range(10)]


# ---------------------------------------------------------------- cards


def test_every_card_is_written_rank_then_suit_and_read_back() -> None:
    written = [cards.name(card) for card in cards.deck(1)]
    assert written[:3] == ["AC", "2C", "3C"]
    assert written[9:13] == ["10C", "JC", "QC", "KC"]
    assert written[13] == "AS"
    assert written[26] == "AH"
    assert written[39] == "AD"
    assert [cards.parse(text) for text in written] == cards.deck(1)


def test_colours_are_black_for_clubs_and_spades_and_red_for_hearts_and_diamonds() -> None:
    colours = {text[-1]: cards.colour_name(cards.parse(text)) for text in ("AC", "AS", "AH", "AD")}
    assert colours == {"C": "black", "S": "black", "H": "red", "D": "red"}


def test_a_hidden_card_is_written_as_question_marks() -> None:
    assert cards.name(cards.HIDDEN) == "??"


@pytest.mark.parametrize("text", ["", "1S", "11H", "TS", "10", "S", "as", "Ah", "AX", "0C", "??"])
def test_text_that_is_not_a_card_is_refused(text: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        cards.parse(text)
    assert caught.value.code == "malformed_action"
    assert "is not a card: write rank then suit, like AS or 10H" in caught.value.message


# ---------------------------------------------------------------- piles


@pytest.mark.parametrize("text", EVERY_PILE)
def test_every_pile_name_is_read_and_written_back(text: str) -> None:
    assert str(parse_pile(text)) == text


def test_piles_are_numbered_left_to_right_from_zero() -> None:
    assert parse_pile("t0") == TABLEAU_PILES[0] == Pile("t", 0)
    assert parse_pile("r3") == RESERVE_PILES[3]
    assert parse_pile("f7") == FOUNDATION_PILES[7]
    assert parse_pile("f") == Pile("f")


@pytest.mark.parametrize("text", ["t10", "f8", "r4", "x", "T1", "t-1", "t01", "w0", "s1", "", "t"])
def test_text_that_is_not_a_pile_is_refused(text: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        parse_pile(text)
    assert caught.value.code == "malformed_pile"
    assert caught.value.message.endswith("is not a pile: use s, w, f, f0-f7, r0-r3 or t0-t9")


# ---------------------------------------------------------------- actions


def test_every_move_is_read_back_as_it_was_written() -> None:
    for src in EVERY_PILE:
        for dst in EVERY_PILE:
            for count in (1, 2, 13, 99):
                text = f"{src} {count} {dst}"
                action = parse_action(text)
                assert format_action(action) == str(action) == text
                assert parse_action(str(action)) == action


def test_a_move_names_its_source_count_and_destination() -> None:
    assert parse_action("t3 2 t5") == Move(TABLEAU_PILES[3], 2, TABLEAU_PILES[5])
    assert parse_action("w 1 f") == Move(Pile("w"), 1, Pile("f"))


@pytest.mark.parametrize(("text", "action"), [("deal", DEAL), ("auto", AUTO), ("undo", UNDO)])
def test_the_three_words_are_actions(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert str(action) == text


def test_spaces_around_and_between_the_words_do_not_matter() -> None:
    assert str(parse_action("  t3   2\tt5 ")) == "t3 2 t5"
    assert parse_action(" deal\n") == DEAL


def test_equal_actions_are_equal_values() -> None:
    assert len({parse_action("t3 2 t5"), parse_action("t3  2 t5"), parse_action("t3 2 t6")}) == 2


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "t3",
        "t3 2",
        "t3 0 t5",
        "t3 02 t5",
        "t3 -1 t5",
        "t3 +1 t5",
        "t3 x t5",
        "t3 1.0 t5",
        "t3 2 t5 t6",
        "deal now",
        "DEAL",
        "Undo",
        "t3 \uff12 t5",
        "t3 \u00b2 t5",
        "t3 2 t5" + " " * 30,
    ],
)
def test_text_that_is_not_an_action_is_malformed(text: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        parse_action(text)
    assert caught.value.code == "malformed_action"


@pytest.mark.parametrize("value", [None, 5, b"deal", ["deal"]])
def test_a_value_that_is_not_text_is_malformed(value: object) -> None:
    with pytest.raises(MalformedAction) as caught:
        parse_action(value)  # type: ignore[arg-type]
    assert caught.value.code == "malformed_action"


@pytest.mark.parametrize("text", ["t10 1 t0", "x 1 t0", "t0 1 f8", "r4 1 t0", "t0 1 T1"])
def test_an_action_naming_no_pile_is_malformed_with_the_pile_code(text: str) -> None:
    with pytest.raises(MalformedAction) as caught:
        parse_action(text)
    assert caught.value.code == "malformed_pile"


def test_messages_say_how_to_write_an_action() -> None:
    with pytest.raises(MalformedAction) as caught:
        parse_action("move it")
    assert caught.value.message == (
        "'move it' is not an action: write 'SRC N DST' (like 't3 2 t5'), 'deal', 'auto' or 'undo'"
    )
    with pytest.raises(MalformedAction) as caught:
        parse_action("t3 0 t5")
    assert caught.value.message == "'0' is not a card count: write a whole number from 1"


def test_a_malformed_action_is_a_different_error_from_an_illegal_one() -> None:
    assert not issubclass(MalformedAction, IllegalAction)
    assert not issubclass(IllegalAction, MalformedAction)
    assert MalformedAction("x").as_dict() == {"code": "malformed_action", "message": "x"}
