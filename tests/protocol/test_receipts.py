"""Receipts: each accepted action's answer carries the running hash of its racer's log, so
the log replays to the last receipt a racer was given exactly when it holds the actions
they were told were accepted (none dropped, added, changed or reordered)."""

from __future__ import annotations

from harness import winning_actions
from races import make_race, started

from protocol.race import Now
from protocol.race_views import public_log
from protocol.receipts import receipts

GAME, DEAL = "mount_sunflower", 18


def test_every_answer_s_receipt_is_the_hash_of_the_log_up_to_it() -> None:
    race = started(make_race(GAME, DEAL, max_players=1), at=0)
    told = []
    actions = winning_actions(GAME, DEAL)[:5]
    for seq, action in enumerate([*actions[:2], "t9 9 t9", "undo", *actions[2:]], start=1):
        result = race.act("ann", seq, action, Now(seq * 10, 1_000 + seq * 10))
        if result.ok:
            told.append(result.reply["receipt"])
        else:
            assert "receipt" not in result.reply  # a refused action is not in the log
    log = public_log(race)["racers"][0]["actions"]
    assert receipts("r1", "ann", log) == told
    assert receipts("r1", "ann", log[:-1]) == told[:-1]
    assert receipts("r1", "ann", [*log[:2], log[3], log[2], *log[4:]])[-1] != told[-1]
    assert receipts("r1", "bob", log)[-1] != told[-1]  # bound to the racer and the race
    assert receipts("r1", "ann", [[s, a, t + 1] for s, a, t in log])[-1] != told[-1]
