"""The two encodings and the limits every client message is held to."""

from __future__ import annotations

import json

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.wire import (
    JSON,
    MAX_MESSAGE_BYTES,
    MSGPACK,
    WireError,
    decode,
    encode,
    with_number,
)

SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=40)
MESSAGES = st.dictionaries(
    st.text(min_size=1, max_size=12),
    SCALARS
    | st.lists(SCALARS, max_size=5)
    | st.dictionaries(st.text(max_size=8), SCALARS, max_size=5),
    max_size=10,
)


@given(MESSAGES)
def test_a_message_round_trips_through_both_encodings(message: dict[str, object]) -> None:
    for encoding in (MSGPACK, JSON):
        frame = encode(message, encoding)
        assert isinstance(frame, bytes if encoding == MSGPACK else str)
        if len(frame) <= MAX_MESSAGE_BYTES:
            assert decode(frame, encoding) == message


@given(st.binary(max_size=200))
def test_arbitrary_bytes_either_decode_to_a_map_or_raise_wire_error(frame: bytes) -> None:
    try:
        message = decode(frame, MSGPACK)
    except WireError as error:
        assert error.code in ("malformed_message", "message_too_large")
    else:
        assert isinstance(message, dict)


@given(st.text(max_size=200))
def test_arbitrary_text_either_decodes_to_a_map_or_raises_wire_error(frame: str) -> None:
    try:
        message = decode(frame, JSON)
    except WireError as error:
        assert error.code == "malformed_message"
    else:
        assert isinstance(message, dict)


@pytest.mark.parametrize(
    ("frame", "words"),
    [
        (msgpack.packb({"a": [[[[1]]]]}), "nests at most"),  # five levels of containers
        (msgpack.packb({"a": list(range(65))}), "MessagePack"),  # the unpacker's own limit
        (msgpack.packb({"a": "x" * 257}), "at most 256"),
        (msgpack.packb({1: "x"}), "not valid MessagePack"),
        (msgpack.packb({"a": b"\x00"}), "not valid MessagePack"),
        (msgpack.packb([1, 2]), "is a map"),
        (msgpack.packb({"a": float("nan")}), "NaN"),
        (b"\x00" * (MAX_MESSAGE_BYTES + 1), "at most 4096 bytes"),
        ("text on a binary connection", "binary frames"),
    ],
)
def test_messages_beyond_the_limits_are_refused(frame: bytes | str, words: str) -> None:
    with pytest.raises(WireError) as refused:
        decode(frame, MSGPACK)
    assert words in refused.value.message


def test_json_deep_nesting_is_refused_without_recursing_forever() -> None:
    with pytest.raises(WireError):
        decode("[" * 3000 + "]" * 3000, JSON)
    with pytest.raises(WireError) as refused:
        decode(json.dumps({"a": {"b": {"c": {"d": {"e": 1}}}}}), JSON)
    assert "nests" in refused.value.message
    assert decode(json.dumps({"a": {"b": {"c": {"d": 1}}}}), JSON)  # four maps deep is fine


@pytest.mark.parametrize(
    "frame",
    ['{"type": "hello", "name": "\\ud800"}', '{"type": "x", "id": "a\\udfffb"}', '{"\\udc00": 1}'],
)
def test_a_lone_surrogate_in_json_is_refused_at_decode(frame: str) -> None:
    with pytest.raises(WireError, match="surrogate"):
        decode(frame, JSON)


def test_a_lone_surrogate_in_msgpack_is_refused_at_decode() -> None:
    frame = msgpack.packb({"type": "hello", "name": "\ud800"}, unicode_errors="surrogatepass")
    with pytest.raises(WireError, match="MessagePack"):
        decode(frame, MSGPACK)


def test_a_surrogate_pair_written_as_escapes_is_a_real_character_and_is_kept() -> None:
    assert decode('{"type": "\\ud83d\\ude00"}', JSON) == {"type": "\U0001f600"}


def test_encoding_a_stored_lone_surrogate_cannot_fail() -> None:
    message = {"name": "Ann\ud800"}
    assert msgpack.unpackb(encode(message, MSGPACK)) == {"name": "Ann?"}
    assert json.loads(encode(message, JSON).encode(errors="replace")) == {"name": "Ann?"}


@given(
    st.dictionaries(st.text(min_size=1, max_size=6).filter(lambda key: key != "n"), SCALARS),
    st.integers(0, 2**53),
)
def test_a_number_added_to_an_encoded_map_reads_as_the_map_encoded_with_it(
    message: dict[str, object], n: int
) -> None:
    for encoding in (MSGPACK, JSON):
        numbered = with_number(encode(message, encoding), n, encoding)
        read = msgpack.unpackb(numbered) if encoding == MSGPACK else json.loads(numbered)
        assert read == {**message, "n": n}


def test_a_number_is_added_to_maps_of_every_size_of_header() -> None:
    for size in (0, 14, 15, 65_534, 65_535):  # fixmap, to map16, to map32
        message = {f"k{i}": i for i in range(size)}
        numbered = with_number(encode(message, MSGPACK), 7, MSGPACK)
        assert msgpack.unpackb(numbered) == {**message, "n": 7}
