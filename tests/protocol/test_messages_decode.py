"""Typed messages: every request decodes with its declared fields, checks types and ranges,
and errors name the request id they answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.messages import (
    REQUESTS,
    Act,
    CreateRace,
    Error,
    Event,
    Hello,
    ProtocolError,
    Result,
    Watch,
    Welcome,
    decode_request,
    decode_server,
    encode_request,
    encode_server,
)


def test_every_request_type_is_registered_under_its_own_name_and_documented() -> None:
    assert all(cls.type == name for name, cls in REQUESTS.items())
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    requests = protocol.split("\n## Requests")[1].split("\n## Events")[0]
    documented = set(re.findall(r"^### `([a-z_]+)`", requests, flags=re.M))
    documented |= set(re.findall(r"`(unspectate)` `\{race\}`", requests))  # with spectate
    assert documented == set(REQUESTS)


def test_a_request_round_trips_through_encode_and_decode() -> None:
    request = CreateRace(
        id=7,
        game="sanibel",
        options={"down": 0, "up": 10},
        deal="12",
        max_players=3,
        public=False,
        countdown_ms=0,
        spectator_delay_ms=5,
    )
    assert decode_request(encode_request(request)) == request


def test_defaults_fill_in_optional_fields() -> None:
    request = decode_request({"type": "create_race", "id": "a", "game": "shady_lanes"})
    assert isinstance(request, CreateRace)
    assert (request.max_players, request.public, request.deal) == (2, True, None)


def test_optional_fields_may_be_null() -> None:
    hello = decode_request({"type": "hello", "id": 1, "protocol": 1, "name": "Ann", "token": None})
    assert hello == Hello(id=1, protocol=1, name="Ann", token=None, last_event=None)


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "act", "id": 5, "race": "abc", "seq": 1}, "missing_field"),
        ({"type": "act", "id": 5, "race": "ABC!", "seq": 1, "action": "deal"}, "bad_field"),
        ({"type": "act", "id": 5, "race": "abc", "seq": "1", "action": "deal"}, "bad_field"),
        ({"type": "act", "id": 5, "race": "abc", "seq": 2**31, "action": "deal"}, "bad_field"),
        ({"type": "act", "id": 5, "race": "abc", "seq": 1, "action": "x" * 33}, "bad_field"),
        (
            {"type": "act", "id": 5, "race": "abc", "seq": 1, "action": "deal", "x": 1},
            "unknown_field",
        ),
        ({"type": "hello", "id": 5, "protocol": 1, "name": "A\nB"}, "bad_field"),
        ({"type": "hello", "id": 5, "protocol": 1, "name": ""}, "bad_field"),
        (
            {"type": "create_race", "id": 5, "game": "sanibel", "options": {"down": 1.5}},
            "bad_field",
        ),
        ({"type": "daily_board", "id": 5, "game": "sanibel", "day": "29/11/2026"}, "bad_field"),
        ({"type": "daily_board", "id": 5, "game": "sanibel", "top": 101}, "bad_field"),
        ({"type": "nope", "id": 5}, "unknown_type"),
    ],
)
def test_bad_requests_are_refused_with_a_code_and_their_id(
    message: dict[str, object], code: str
) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request(message)
    assert refused.value.code == code
    assert refused.value.request_id == 5


@pytest.mark.parametrize(
    "message",
    [
        {"type": "register", "id": 5, "username": "", "password": "a long password"},
        {"type": "register", "id": 5, "username": "a" * 40, "password": "a long password"},
        {"type": "register", "id": 5, "username": "Ann Lee", "password": "a long password"},
        {"type": "sign_in", "id": 5, "username": "ann!", "password": "a long password"},
        {"type": "profile", "id": 5, "username": "ann lee"},
    ],
)
def test_a_username_of_the_wrong_length_or_characters_is_a_bad_username(
    message: dict[str, object],
) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request(message)
    assert (refused.value.code, refused.value.request_id) == ("bad_username", 5)


@pytest.mark.parametrize(
    "message",
    [
        {"type": "create_race", "id": 5, "game": "klondike"},
        {"type": "daily_start", "id": 5, "game": "x" * 40},
        {"type": "daily_board", "id": 5, "game": "freecell"},
        {"type": "best_board", "id": 5, "game": "Sanibel"},
        {"type": "quick_race", "id": 5, "game": "spider"},
    ],
)
def test_a_game_that_is_not_served_is_an_unknown_game(message: dict[str, object]) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request(message)
    assert (refused.value.code, refused.value.request_id) == ("unknown_game", 5)
    assert "sanibel" in str(refused.value)


def test_a_username_that_is_not_a_string_is_a_bad_field() -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request({"type": "sign_in", "id": 5, "username": 7, "password": "a long one"})
    assert refused.value.code == "bad_field"


def test_an_unreadable_request_id_is_not_echoed() -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_request({"type": "list_races", "id": [1]})
    assert refused.value.request_id is None


def test_a_boolean_is_not_a_number() -> None:
    with pytest.raises(ProtocolError):
        decode_request({"type": "act", "id": True, "race": "a", "seq": 1, "action": "deal"})


@pytest.mark.parametrize(
    "message",
    [
        Welcome(1, "p1", "Ann", "tok", False, 1, 123, 30000, 0),
        Result(2, "act", {"race": "r1", "events": []}),
        Error(3, "act", "does_not_fit", "7♥ cannot go on 9♠: it needs an 8 of the other colour"),
        Event(4, "started", {"race": "r1", "kind_of_thing": 1}),
        Watch("r1", 5, "act", {"player": "p1"}),
    ],
)
def test_server_messages_round_trip(message: object) -> None:
    assert decode_server(encode_server(message)) == message  # type: ignore[arg-type]


def test_fields_of_an_event_never_overwrite_its_head() -> None:
    encoded = encode_server(Event(9, "started", {"kind": "race", "n": 1, "type": "x"}))
    assert (encoded["type"], encoded["n"], encoded["kind"]) == ("event", 9, "started")


def test_act_requests_decode_to_the_act_type() -> None:
    act = decode_request({"type": "act", "id": 1, "race": "r1", "seq": 3, "action": "t3 2 t5"})
    assert act == Act(id=1, race="r1", seq=3, action="t3 2 t5", legal=False)
