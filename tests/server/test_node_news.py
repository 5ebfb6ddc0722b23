"""What nodes tell each other (server/handover/node_news.py): each kind round-trips through its
wire form, and a malformed message is no news (never trusted, never an exception)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.player_events import Rated, Started
from protocol.race import LogEntry
from server.handover.node_news import (
    CARRIED_MAX,
    Logged,
    Pushed,
    RecordChanged,
    Resync,
    TakenOver,
    decode,
    encode,
    logged,
    sent_ms,
    stamped,
)

EVERY_KIND = [
    RecordChanged(7, "n1"),
    Logged("p1", "n1", ((1, 20, "deal"), (2, 35, "t0 1 t3"))),
    Logged("p1", "n1"),
    Pushed("p1", Rated("r1", "sanibel", {"p1": {"rating": 1510, "change": 10}}), "n2"),
    Pushed("p1", Started({"race": "r1", "you": {"player": "p1"}}), "n2"),
    TakenOver("p1", "n2"),
    Resync(),
]


@pytest.mark.parametrize("news", EVERY_KIND)
def test_each_kind_of_news_round_trips_through_its_json(news: object) -> None:
    assert decode(json.loads(json.dumps(encode(news)))) == news  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "message",
    [
        None,
        [],
        {"k": "record", "n": "n1"},  # no version
        {"k": "record", "v": "7", "n": "n1"},
        {"k": "log", "n": "n1"},  # no player
        {"k": "push", "p": "p1", "n": "n1"},  # no kind
        {"k": "push", "p": "p1", "n": "n1", "kind": "gossip", "data": {}},  # not an event
        {"k": "push", "p": "p1", "n": "n1", "kind": "held", "data": {"race": "r1"}},  # fields?
        {"k": "taken", "p": 3, "n": "n1"},
        {"k": "gossip", "p": "p1", "n": "n1"},
        {"k": "log", "p": "p1"},  # no node
    ],
)
def test_a_malformed_message_is_no_news(message: object) -> None:
    assert decode(message) is None


def test_malformed_carried_entries_are_dropped_so_the_log_is_read() -> None:
    for carried in ([[1, 2]], [[1, "2", "deal"]], [["1", 2, "deal"]], "x", [[1, 2, 3]]):
        news = decode({"k": "log", "p": "p1", "n": "n1", "e": carried})
        assert news == Logged("p1", "n1", None)


def test_a_batch_is_carried_up_to_its_limit_and_only_hinted_beyond() -> None:
    batch = [LogEntry("p1", seq, "deal", seq * 10) for seq in range(1, CARRIED_MAX + 2)]
    assert logged("n1", "p1", batch[:CARRIED_MAX]).entries is not None
    assert logged("n1", "p1", batch).entries is None


def test_a_stamped_message_says_when_it_was_sent_and_decodes_as_the_same_news() -> None:
    message = stamped(encode(TakenOver("p1", "n2")), 1_700_000_000_123)
    heard = json.loads(json.dumps(message))
    assert sent_ms(heard) == 1_700_000_000_123
    assert decode(heard) == TakenOver("p1", "n2")


@pytest.mark.parametrize(
    "message",
    [
        {"k": "taken", "p": "p1", "n": "n2"},  # from a node that does not stamp
        {"k": "taken", "p": "p1", "n": "n2", "t": "1700000000123"},
        {"k": "taken", "p": "p1", "n": "n2", "t": True},
        {"k": "taken", "p": "p1", "n": "n2", "t": 1.5},
        "not news",
    ],
)
def test_a_message_without_a_whole_sending_time_says_none(message: object) -> None:
    assert sent_ms(message) is None


@given(news=st.sampled_from(EVERY_KIND[:-1]), wall_ms=st.integers(0, 2**53))
def test_any_news_stamped_at_any_time_is_the_same_news_sent_at_that_time(
    news: object, wall_ms: int
) -> None:
    heard = json.loads(json.dumps(stamped(encode(news), wall_ms)))  # type: ignore[arg-type]
    assert decode(heard) == news
    assert sent_ms(heard) == wall_ms
