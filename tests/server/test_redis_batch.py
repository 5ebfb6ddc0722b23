"""The Redis store's batch builder (``server/store/redis_batch.py``) and key names
(``server/store/redis_keys.py``), without Redis: each writer job becomes the commands the
store sends in one round trip, word for word; an action batch is one ``APPEND_LOG`` call
that carries its log message (only the hint beyond ``CARRIED_MAX`` entries); every key
carries the prefix, and each script call's keys share one hash tag."""

from __future__ import annotations

import json
import re
from datetime import date

import pytest

from protocol.race import LogEntry
from protocol.ranking import Run
from server.handover.jobs import (
    HISTORY_KEPT,
    AppendActions,
    EndRace,
    Job,
    RecordDaily,
    RecordHistory,
    SaveIdentity,
)
from server.handover.node_news import CARRIED_MAX, Logged, decode, encode, logged, sent_ms
from server.store import redis_batch
from server.store.base import DAYS_KEPT, encode_json, run_json
from server.store.redis_batch import BatchBuilder, Shas
from server.store.redis_keys import RedisKeys
from server.store.redis_wire import Command

SHAS = Shas("sha-append-log", "sha-end-race", "sha-record-daily", "sha-record-history")
KEEP_DAILY_S = 30 * 86_400
RUN = Run("ann", "Ann", "d-1", "klondike", 77, True, 65_000, 120, 52, 1_700_000_000_000)


def builder(prefix: str = "p:") -> BatchBuilder:
    return BatchBuilder(RedisKeys(prefix), SHAS, KEEP_DAILY_S)


def only(jobs: list[Job], node: str = "n1", batch: BatchBuilder | None = None) -> list[Command]:
    """The commands of ``jobs`` (checking the spans cover them in order)."""
    commands, spans = (batch or builder()).build(jobs, node)
    assert sum(count for _, count in spans) == len(commands)
    return commands


def log_call(command: Command) -> tuple[list[str | int], list[str | int], list[str | int]]:
    """An ``APPEND_LOG`` call's keys, its per-racer words (after the channel and the count),
    and its per-entry words."""
    assert command[:2] == ("EVALSHA", SHAS.append_log)
    count = int(command[2])
    keys, rest = list(command[3 : 3 + count]), list(command[3 + count :])
    racers = int(rest[1])
    return keys, rest[2 : 2 + 5 * racers], rest[2 + 5 * racers :]


def test_an_append_actions_job_becomes_one_evalsha_with_fence_seq_ids_entries_and_message() -> None:
    entries = (
        LogEntry("ann", 4, 'm "7" \u00e9\n', 1_500),
        LogEntry("ann", 5, "u", 1_900),
    )
    commands = only([AppendActions("r1", entries, fence=3, after=2)])
    assert len(commands) == 1
    keys, racer, per_entry = log_call(commands[0])
    assert keys == ["p:race:{r1}:racers", "p:race:{r1}:log:ann"]
    assert commands[0][5:7] == ("p:race:r1", 1)  # the race's channel, one racer
    player, new, carried, hint, after = racer
    assert (player, new, after) == ("ann", "1", 2)
    assert json.loads(str(carried)) == encode(logged("n1", "ann", entries))
    assert json.loads(str(hint)) == encode(Logged("ann", "n1"))
    assert per_entry == [1, "3-4", 'm "7" \u00e9\n', 1_500, 1, "3-5", "u", 1_900]


def test_a_job_of_more_than_carried_max_entries_carries_only_the_hint() -> None:
    entries = tuple(LogEntry("ann", seq, "d", seq) for seq in range(1, CARRIED_MAX + 2))
    _, racer, per_entry = log_call(only([AppendActions("r1", entries)])[0])
    assert racer[2] == racer[3]
    assert json.loads(str(racer[2])) == {"k": "log", "p": "ann", "n": "n1"}
    assert len(per_entry) == 4 * (CARRIED_MAX + 1)  # every entry is still appended


def test_a_batch_built_at_a_time_stamps_the_messages_that_carry_entries_with_it() -> None:
    entries = (LogEntry("ann", 4, "u", 1_500),)
    commands, _ = builder().build([AppendActions("r1", entries)], "n1", 1_700_000_000_123)
    _, racer, _ = log_call(commands[0])
    carried, hint = str(racer[2]), str(racer[3])
    assert sent_ms(json.loads(carried)) == 1_700_000_000_123
    assert decode(json.loads(carried)) == logged("n1", "ann", entries)
    assert carried.startswith(hint[:-1])  # how a node knows its own log messages unread
    assert sent_ms(json.loads(hint)) == 1_700_000_000_123  # sent when entries are not


def test_a_stamped_message_names_each_of_its_keys_once() -> None:
    """The time a message was sent is in it once (it was twice in the message that
    carries entries: bytes published on every action, and JSON with a key repeated)."""

    def pairs(text: str) -> list[str]:
        named: list[str] = []
        json.loads(text, object_pairs_hook=lambda items: named.extend(k for k, _ in items))
        return named

    entries = (LogEntry("ann", 4, "u", 1_500),)
    commands, _ = builder().build([AppendActions("r1", entries)], "n1", 1_700_000_000_123)
    _, racer, _ = log_call(commands[0])
    for message in (str(racer[2]), str(racer[3])):
        named = pairs(message)
        assert len(named) == len(set(named)), message


def test_a_job_of_exactly_carried_max_entries_carries_them_all() -> None:
    entries = tuple(LogEntry("ann", seq, "d", seq) for seq in range(1, CARRIED_MAX + 1))
    _, racer, _ = log_call(only([AppendActions("r1", entries)])[0])
    assert len(json.loads(str(racer[2]))["e"]) == CARRIED_MAX


def test_racers_of_one_job_come_in_name_order_and_each_entry_points_at_its_racer() -> None:
    entries = (LogEntry("bob", 1, "a", 1), LogEntry("ann", 1, "b", 2), LogEntry("bob", 2, "c", 3))
    keys, racers, per_entry = log_call(only([AppendActions("r1", entries, fence=2)])[0])
    assert keys[1:] == ["p:race:{r1}:log:ann", "p:race:{r1}:log:bob"]
    assert racers[0::5] == ["ann", "bob"]
    assert racers[4::5] == [-1, -1]  # not checked
    assert json.loads(str(racers[7]))["e"] == [[1, 1, "a"], [2, 3, "c"]]  # bob's, in order
    assert per_entry == [2, "2-1", "a", 1, 1, "2-1", "b", 2, 2, "2-2", "c", 3]


def test_a_racer_is_added_to_the_racers_set_once_until_their_race_ends_or_a_batch_fails() -> None:
    batch = builder()
    job = AppendActions("r1", (LogEntry("ann", 1, "d", 1),))

    def new() -> str | int:
        return log_call(only([job], batch=batch)[0])[1][1]

    assert [new(), new()] == ["1", "0"]
    record = {"racers": [{"player": "ann"}]}
    only([EndRace("r1", record, {}, 0)], batch=batch)
    assert new() == "1"
    batch.known_racers.clear()  # what the store does when a batch may not have gone in
    assert new() == "1"


def test_the_oldest_racer_is_forgotten_beyond_known_racers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(redis_batch, "KNOWN_RACERS", 2)
    batch = builder()
    for race in ("r1", "r2", "r3"):
        only([AppendActions(race, (LogEntry("ann", 1, "d", 1),))], batch=batch)
    assert list(batch.known_racers) == [("r2", "ann"), ("r3", "ann")]


def test_the_log_hint_names_the_node_it_is_built_for() -> None:
    batch = builder()
    job = AppendActions("r1", (LogEntry("ann", 1, "d", 1),))
    hints = [log_call(only([job], node, batch)[0])[1][3] for node in ("n1", "n1", "n2")]
    assert [json.loads(str(hint))["n"] for hint in hints] == ["n1", "n1", "n2"]


def test_an_append_actions_job_without_entries_sends_nothing() -> None:
    commands, spans = builder().build(
        [AppendActions("r1", ()), SaveIdentity("h", "ann", "Ann", 60)], "n1"
    )
    assert spans == [(0, 0), (0, 2)]
    assert [command[0] for command in commands] == ["HSET", "EXPIRE"]


def test_spans_give_each_job_its_first_command_and_how_many() -> None:
    jobs: list[Job] = [
        SaveIdentity("h1", "ann", "Ann", 60, account="ann"),
        AppendActions("r1", (LogEntry("ann", 1, "d", 1),)),
        RecordDaily("klondike", "2024-05-01", RUN),
    ]
    commands, spans = builder().build(jobs, "n1")
    assert spans == [(0, 4), (4, 1), (5, 1)]
    assert [command[:2] for command in commands[4:]] == [
        ("EVALSHA", SHAS.append_log),
        ("EVALSHA", SHAS.record_daily),
    ]


def test_an_end_race_job_stores_record_and_result_unlists_the_race_and_keeps_it_keep_s() -> None:
    record = {"racers": [{"player": "ann"}, {"player": "bob"}]}
    commands = only([EndRace("r1", record, {"winner": "ann"}, keep_s=600, version=4)])
    logs = ["p:race:{r1}:log:ann", "p:race:{r1}:log:bob"]
    assert commands == [
        ("EVALSHA", SHAS.end_race, 1, "p:race:{r1}:race", 4, encode_json(record)),
        ("SET", "p:race:{r1}:result", '{"winner":"ann"}'),
        ("SREM", "p:races:live", "r1"),
        ("SREM", "p:races:open", "r1"),
        ("SREM", "p:races:watchable", "r1"),
        ("SREM", "p:player:{ann}:races", "r1"),
        ("SREM", "p:player:{bob}:races", "r1"),
        *[
            ("EXPIRE", key, 600)
            for key in ["p:race:{r1}:race", "p:race:{r1}:result", "p:race:{r1}:racers", *logs]
        ],
    ]


def test_an_end_race_job_kept_for_good_sets_no_time_to_live() -> None:
    commands = only([EndRace("r1", {"racers": [{"player": "ann"}]}, {}, keep_s=0)])
    assert "EXPIRE" not in [command[0] for command in commands]


def test_a_record_daily_job_is_one_call_of_the_day_s_and_the_game_s_boards() -> None:
    (command,) = only([RecordDaily("klondike", "2024-05-01", RUN)])
    day = "p:daily:{klondike}:2024-05-01"
    assert command == (
        "EVALSHA",
        SHAS.record_daily,
        7,
        f"{day}:claims",
        f"{day}:board",
        f"{day}:members",
        f"{day}:runs",
        "p:best:{klondike}:board",
        "p:best:{klondike}:members",
        "p:best:{klondike}:runs",
        "ann",
        "d-1",
        int(RUN.score()),
        RUN.member(),
        run_json(RUN),
        "1",
        65_000,
        120,
        KEEP_DAILY_S,
    )
    keys, args = builder().record_daily_call("klondike", "2024-05-01", RUN)
    assert command[3:] == (*keys, *args)  # what the store's own record_daily calls


def test_a_record_history_job_of_a_daily_run_gives_its_day_as_an_ordinal() -> None:
    entry = {"at_ms": 5, "game": "klondike"}
    job = RecordHistory("ann", "d-1", "klondike", entry, False, False, "2024-05-02", keep_s=99)
    (command,) = only([job])
    keys = [f"p:player:{{ann}}:{part}" for part in ("raced", "history", "stats", "days")]
    assert command == (
        "EVALSHA",
        SHAS.record_history,
        4,
        *keys,
        "d-1",
        '{"at_ms":5,"game":"klondike"}',
        5,
        0,
        0,
        "klondike",
        "2024-05-02",
        date(2024, 5, 2).toordinal(),
        HISTORY_KEPT,
        DAYS_KEPT,
        99,
        "",  # not a finish: no time to count
    )
    lost = RecordHistory("ann", "r1", "klondike", entry, counted=True, won=False)
    assert only([lost])[0][10:16] == (1, 0, "klondike", "", 0, HISTORY_KEPT)
    won = RecordHistory(
        "ann", "r2", "klondike", {**entry, "outcome": "finished", "time_ms": 61_000}, True, True
    )
    assert only([won])[0][-1] == 61_000  # a finish's time, for the game's average


def test_a_save_identity_job_lists_an_account_s_token_and_not_a_guest_s() -> None:
    assert only([SaveIdentity("h1", "gus", "Gus", 60)]) == [
        ("HSET", "p:token:h1", "player", "gus", "name", "Gus", "account", "", "played", ""),
        ("EXPIRE", "p:token:h1", 60),
    ]
    assert only([SaveIdentity("h2", "ann", "Ann", 70, account="ann")])[2:] == [
        ("SADD", "p:player:{ann}:tokens", "h2"),
        ("EXPIRE", "p:player:{ann}:tokens", 70),
    ]


def test_keys_carry_the_prefix_and_the_hash_tag_of_their_day_game_race_or_player() -> None:
    keys = RedisKeys("solrace:")
    assert keys.key("races", "live") == "solrace:races:live"
    assert keys.key("daily-secret") == "solrace:daily-secret"
    assert (
        keys.daily("sanibel", "2024-05-01", "board") == "solrace:daily:{sanibel}:2024-05-01:board"
    )
    assert keys.best("sanibel")[0] == "solrace:best:{sanibel}:board"
    assert keys.race("r1", "race") == "solrace:race:{r1}:race"
    assert keys.log("r1", "ann") == "solrace:race:{r1}:log:ann"
    assert keys.player("ann", "races") == "solrace:player:{ann}:races"
    assert keys.history("ann")[-1] == "solrace:player:{ann}:days"
    assert keys.rating("sanibel", "ann") == "solrace:rating:{sanibel}:ann"
    assert keys.rated("sanibel", "r1") == "solrace:rated:{sanibel}:r1"
    assert keys.pool("sanibel", "ann") == [
        "solrace:pool:{quick}:sanibel",
        "solrace:pool:{quick}:of:ann",
    ]


def test_every_script_call_of_a_batch_has_keys_of_one_hash_tag_under_the_prefix() -> None:
    record = {"racers": [{"player": "ann"}, {"player": "bob"}]}
    entries = (LogEntry("ann", 1, "d", 1), LogEntry("bob", 1, "d", 1))
    jobs: list[Job] = [
        AppendActions("r1", entries),
        EndRace("r1", record, {}, 60),
        RecordDaily("klondike", "2024-05-01", RUN),
        RecordHistory("ann", "r1", "klondike", {"at_ms": 1}, True, False),
    ]
    calls = [command for command in only(jobs) if command[0] == "EVALSHA"]
    assert len(calls) == 4
    for command in calls:
        keys = [str(key) for key in command[3 : 3 + int(command[2])]]
        assert all(key.startswith("p:") for key in keys)
        assert len({re.findall(r"\{([^}]*)\}", key)[0] for key in keys}) == 1, keys


def test_a_prefix_with_braces_is_refused() -> None:
    with pytest.raises(ValueError, match="braces"):
        RedisKeys("solrace:{x}:")
