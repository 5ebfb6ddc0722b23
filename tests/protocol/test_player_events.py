"""The events told to a player (protocol/player_events.py) are one closed set: exactly the
kinds docs/protocol.md lists under "Events", each read back from its wire form into the
same typed event (as nodes pass them on), and nothing else taken for one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.player_events import (
    EVENT_TYPES,
    ArenaStandingsChanged,
    Challenged,
    ChallengeDeclined,
    CountdownSet,
    Held,
    HistoryLost,
    Paired,
    PlayerEvent,
    RaceResult,
    RacerJoined,
    RacerLeft,
    Rated,
    RematchOffered,
    Shutdown,
    Snapshot,
    Standings,
    Started,
    Unrated,
    WatchEnded,
    player_event,
)

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
INFO = {"race": "r1", "game": "sanibel", "phase": "open"}
ONE_OF_EACH: list[PlayerEvent] = [
    RacerJoined(INFO),
    RacerLeft(INFO),
    CountdownSet("r1", 1_700_000_003_000, 3_000),
    Started({**INFO, "you": {"player": "p1", "view": {}}}),
    Standings("r1", [{"player": "p1", "progress": 4}]),
    Paired(INFO),
    ArenaStandingsChanged("sanibel-hourly-20261206T0500", 3, False, 2, [], None),
    Rated("r1", "sanibel", {"p1": {"rating": 1517, "change": 17}}),
    Unrated("r1", "sanibel", "few_actions", "Not rated: a racer made fewer than 3 moves."),
    Held("r1", "sanibel", "daily"),
    RaceResult({"race": "r1", "ranking": [], "deal": None}),
    RematchOffered("r1", "r2", "p1"),
    Challenged("r1", "sanibel", "p1", "Ann", True),
    ChallengeDeclined("r1", "p2", "Bob"),
    Snapshot([{**INFO, "you": {"player": "p1"}}]),
    HistoryLost({**INFO, "history_lost": True, "you": {"seq": 10}}, 10),
    WatchEnded("r1", "too_slow"),
    Shutdown("restart", 1000),
]


def documented_kinds() -> set[str]:
    text = PROTOCOL.read_text()
    table = text[text.index("## Events (numbered per player)") :]
    table = table[: table.index("\n## ")]
    return set(re.findall(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)) - {"kind"}  # the header


def test_the_event_kinds_are_exactly_those_the_protocol_document_lists() -> None:
    assert set(EVENT_TYPES) == documented_kinds()
    assert {type(event) for event in ONE_OF_EACH} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda event: event.kind)
def test_each_event_is_read_back_from_its_wire_form(event: PlayerEvent) -> None:
    assert player_event(event.kind, event.data()) == event


def test_a_view_or_a_result_is_the_event_s_whole_data() -> None:
    view = {**INFO, "you": {"player": "p1"}}
    assert Started(view).data() == view
    assert RaceResult({"race": "r1"}).data() == {"race": "r1"}
    assert WatchEnded("r1", "over").data() == {"race": "r1", "reason": "over"}


def test_an_unknown_kind_or_a_missing_field_is_no_event() -> None:
    with pytest.raises(ValueError, match="no player event 'gossip'"):
        player_event("gossip", {})
    with pytest.raises(KeyError):
        player_event("watch_ended", {"race": "r1"})
