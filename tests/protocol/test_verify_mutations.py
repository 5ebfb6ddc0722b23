"""The verifier against forged logs (protocol/verify.py): every field of a valid race log
is changed, one at a time and in pairs, and each change is refused (a mismatch, or not a
log at all), or changes nothing the log claims; a signed log refuses every change. And
the forgeries found from outside, one by one."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from harness import winning_actions
from hypothesis import given, settings
from hypothesis import strategies as st
from races import make_race, started

from protocol.race import Ending, Now
from protocol.race_views import public_log
from protocol.signing import Signer, signature_problem
from protocol.verify import BadLog, check_log

GAME, DEAL = "mount_sunflower", 18
SIGNER = Signer.new()
KEYS = {SIGNER.key_id: SIGNER.public_hex}


def a_valid_log() -> dict[str, Any]:
    """Ann wins deal 18 (with an undo on the way), Bob plays two actions and resigns."""
    race = make_race(GAME, DEAL, max_players=2, nonce="ab" * 16)
    race.join("bob", "Bob")
    started(race, at=0)
    wins = winning_actions(GAME, DEAL)
    for seq, action in enumerate([*wins[:2], "undo", *wins[1:]], start=1):
        assert race.act("ann", seq, action, Now(seq * 10, seq * 10)).ok
    for seq, action in enumerate(wins[:2], start=1):
        assert race.act("bob", seq, action, Now(seq * 15, seq * 15)).ok
    race.retire("bob", Ending.RESIGNED, Now(5_000, 5_000))
    log = public_log(race)
    assert check_log(log) == []
    return json.loads(json.dumps(log))


VALID = a_valid_log()


def paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` that holds something."""
    found = [at] if at else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*at, index))
    return found


PATHS = paths(VALID)


def mutate(log: dict[str, Any], path: tuple[Any, ...], how: int) -> None:
    parent = log
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    value = parent[last]
    if how == 0 and isinstance(parent, dict):
        del parent[last]  # a field dropped
    elif how == 0 and isinstance(parent, list):
        parent.pop(last)  # an element dropped
    elif how == 1 and isinstance(parent, list):
        parent.insert(last, copy.deepcopy(value))  # an element twice
    elif isinstance(value, bool):
        parent[last] = not value
    elif isinstance(value, int):
        parent[last] = value + (1 if how == 1 else -(abs(value) + 1))
    elif isinstance(value, str):
        parent[last] = value + "x" if how == 1 else value[::-1] if value[::-1] != value else "x"
    elif value is None:
        parent[last] = "x"
    else:
        parent[last] = None


def claims(log: dict[str, Any]) -> str:
    """What a log claims and the verifier can prove without a signature: the deal and its
    commitment, and the result of the racers' actions. (Which actions: another list with
    the same result is as valid a log; receipts and the signature prove the list.)"""
    racers = [(r["player"], r.get("outcome")) for r in log.get("racers", [])]
    fields = ("rank", "player", "finished", "time_ms", "actions", "progress", "at_ms", "outcome")
    ranking = [[e.get(f) for f in fields] for e in log.get("result", {}).get("ranking", [])]
    head = {k: log.get(k) for k in ("race", "game", "options", "scope", "deal", "nonce",
                                    "commitment", "start_at_ms", "mode", "day")}  # fmt: skip
    return json.dumps([head, racers, ranking], sort_keys=True)


def refused(log: dict[str, Any]) -> bool:
    try:
        return bool(check_log(log))
    except BadLog:
        return True


changes = st.lists(
    st.tuples(st.sampled_from(PATHS), st.integers(0, 2)), min_size=1, max_size=2, unique=True
)


@settings(max_examples=400, deadline=None)
@given(changes)
def test_a_changed_log_is_refused_or_claims_nothing_new(edits: list[tuple[Any, int]]) -> None:
    log = copy.deepcopy(VALID)
    for path, how in edits:
        try:
            mutate(log, path, how)
        except (KeyError, IndexError, TypeError):
            return  # the first change removed the second's place
    assert refused(log) or claims(log) == claims(VALID)


@settings(max_examples=400, deadline=None)
@given(changes)
def test_a_changed_signed_log_is_always_refused(edits: list[tuple[Any, int]]) -> None:
    log = SIGNER.sign(copy.deepcopy(VALID))
    signed = copy.deepcopy(log)
    for path, how in edits:
        try:
            mutate(log, path, how)
        except (KeyError, IndexError, TypeError):
            return
    if log == signed:
        return  # the changes undid each other
    assert refused(log) or signature_problem(log, KEYS) is not None


def entry(log: dict[str, Any], index: int) -> dict[str, Any]:
    """The ranking's entry at ``index``."""
    found: dict[str, Any] = log["result"]["ranking"][index]
    return found


FORGERIES = {
    "times going backwards": lambda log: log["racers"][0]["actions"][2].__setitem__(2, 0),
    "a negative time": lambda log: log["racers"][1]["actions"][0].__setitem__(2, -5),
    "a racer dropped": lambda log: log["racers"].pop(1),
    "a racer twice": lambda log: log["racers"].append(copy.deepcopy(log["racers"][0])),
    "the race id changed": lambda log: log.__setitem__("race", "f" * 16),
    "an outcome changed": lambda log: log["result"]["ranking"][1].__setitem__(
        "outcome", "finished"
    ),
    "places renumbered": lambda log: log["result"]["ranking"][0].__setitem__("rank", 2),
    "the result's deal": lambda log: log["result"].__setitem__("deal", "19"),
    "the result's nonce": lambda log: log["result"].__setitem__("nonce", "cd" * 16),
    "a name changed in the result": lambda log: log["result"]["ranking"][0].__setitem__(
        "name", "Eve"
    ),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_each_forgery_found_from_outside_is_refused(forgery: str) -> None:
    log = copy.deepcopy(VALID)
    FORGERIES[forgery](log)
    assert refused(log), forgery


def test_a_name_changed_everywhere_is_caught_by_the_signature_only() -> None:
    log = SIGNER.sign(copy.deepcopy(VALID))
    log["racers"][0]["name"] = "Eve"
    log["result"]["ranking"] = [
        {**entry, "name": "Eve"} if entry["player"] == "ann" else entry
        for entry in log["result"]["ranking"]
    ]
    assert check_log(log) == []  # consistent: the commitment does not cover names
    assert signature_problem(log, KEYS) is not None


@pytest.mark.parametrize(
    "bad", [[], "text", {"race": "r"}, {**VALID, "deal": "twelve"}, {**VALID, "racers": [1]}]
)
def test_what_is_not_a_log_is_one_sentence(bad: Any) -> None:
    with pytest.raises(BadLog) as error:
        check_log(bad)
    assert error.value.message.startswith("this is not a race log: ")
