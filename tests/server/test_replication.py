"""The store's replication settings (``server/store/replication.py``): the sentinels'
addresses as ``--redis-sentinel`` takes them, and what a value that is not one is told."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.store.replication import SENTINELS_MAX, sentinel_addresses


def test_sentinels_are_host_port_pairs_separated_by_commas() -> None:
    told = sentinel_addresses("10.0.0.1:26379, sentinel-b:26380,[::1]:26381")
    assert told == (("10.0.0.1", 26379), ("sentinel-b", 26380), ("::1", 26381))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "names no sentinel"),
        (" , ", "names no sentinel"),
        ("s:1,,s:2", "is not host:port"),
        ("sentinel", "is not host:port"),
        (":26379", "is not host:port"),
        ("sentinel:0", "is not host:port"),
        ("sentinel:65536", "is not host:port"),
        ("sentinel:port", "is not host:port"),
        (",".join(["s:1"] * (SENTINELS_MAX + 1)), f"at most {SENTINELS_MAX}"),
    ],
)
def test_a_list_that_is_not_sentinel_addresses_is_refused_with_what_is_wrong(
    text: str, said: str
) -> None:
    with pytest.raises(ValueError, match=said):
        sentinel_addresses(text)


@given(
    st.lists(
        st.tuples(st.from_regex(r"[a-z][a-z0-9.-]{0,20}", fullmatch=True), st.integers(1, 65535)),
        min_size=1,
        max_size=SENTINELS_MAX,
    )
)
def test_any_list_of_addresses_written_out_is_read_back_as_it_was(
    addresses: list[tuple[str, int]],
) -> None:
    text = ",".join(f"{host}:{port}" for host, port in addresses)
    assert sentinel_addresses(text) == tuple(addresses)
