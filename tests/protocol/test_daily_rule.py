"""The daily deal's hash chain (protocol/daily.py): every day's seed hashes to the anchor
published ahead, each day's seed hashes to the day before's (so a revealed seed shows only
the past), and days outside the chain use the deployment's secret itself."""

from __future__ import annotations


def test_each_day_s_seed_hashes_to_the_published_anchor_and_to_the_day_before() -> None:
    import hashlib

    from protocol.daily import CHAIN_FIRST_DAY, chain_anchor, day_seed, seed_matches

    secret = "a deployment's secret"
    anchor = chain_anchor(secret)
    for day in (CHAIN_FIRST_DAY, "2026-12-03", "2030-06-30"):
        assert seed_matches(day_seed(secret, day), day, anchor)
        assert not seed_matches(day_seed(secret, day), "2026-12-04", anchor)
    later, earlier = day_seed(secret, "2026-12-04"), day_seed(secret, "2026-12-03")
    assert hashlib.sha256(bytes.fromhex(later)).hexdigest() == earlier  # the past follows
    assert day_seed("another secret", "2026-12-03") != earlier
    assert day_seed(secret, "2025-12-31") == secret  # before the chain: the secret itself
