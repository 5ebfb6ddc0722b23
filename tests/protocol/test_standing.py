"""Good standing (protocol/standing.py): ranked play needs an account some days old with
some finished games; a rule at 0 is off; a guest is never in good standing. One test per
sentence, allowed and refused."""

from __future__ import annotations

from protocol.daily import DAY_MS
from protocol.standing import GOOD, STANDING_CODES, StandingRule, standing

NOW = 1_800_000_000_000
RULE = StandingRule(days=3, games=10)


def test_an_account_old_enough_with_enough_finished_games_is_in_good_standing() -> None:
    assert standing(RULE, NOW - 3 * DAY_MS, 10, NOW) == GOOD == {"code": None, "reason": None}


def test_an_account_younger_than_the_days_asked_is_too_new_and_told_what_it_lacks() -> None:
    told = standing(RULE, NOW - DAY_MS - 5, 4, NOW)
    assert told["code"] == "account_too_new"
    assert told["reason"] == (
        "Ranked play opens when your account is 3 days old and has finished 10 games; "
        "yours: 1 day, 4 games."
    )


def test_an_old_account_with_too_few_finished_games_is_told_so() -> None:
    told = standing(RULE, NOW - 30 * DAY_MS, 9, NOW)
    assert told["code"] == "too_few_games"
    assert "yours: 30 days, 9 games" in told["reason"]


def test_a_guest_is_never_in_good_standing() -> None:
    told = standing(StandingRule(0, 0), None, 100, NOW)
    assert told["code"] == "guest" and "account" in told["reason"]


def test_a_rule_at_zero_is_off() -> None:
    assert standing(StandingRule(days=0, games=10), NOW, 10, NOW) == GOOD
    assert standing(StandingRule(days=3, games=0), NOW - 3 * DAY_MS, 0, NOW) == GOOD
    games_only = standing(StandingRule(days=0, games=2), NOW, 1, NOW)
    assert games_only["reason"].startswith("Ranked play opens when your account has finished 2")


def test_an_account_made_before_its_moment_was_kept_counts_as_old() -> None:
    assert standing(RULE, 0, 10, NOW) == GOOD


def test_every_code_is_listed() -> None:
    codes = {standing(RULE, created, 0, NOW)["code"] for created in (None, NOW, 0)}
    assert codes == set(STANDING_CODES)
