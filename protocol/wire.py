"""The two encodings of one wire format: MessagePack maps in binary frames (native) and the
same maps as JSON text (browsers, debugging). Decoding enforces explicit limits on size,
lengths and nesting before anything else looks at a message.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import msgpack

from protocol.errors import SolraceError

MSGPACK: Final = "solrace.v1.msgpack"
JSON: Final = "solrace.v1.json"
SUBPROTOCOLS: Final = (MSGPACK, JSON)
PROTOCOL_VERSION: Final = 1

MAX_MESSAGE_BYTES: Final = 4096  # a client message; the server closes with 1009 above it
MAX_STRING: Final = 256  # characters in any string of a client message
MAX_ITEMS: Final = 64  # entries in any map or array of a client message
MAX_DEPTH: Final = 4  # nesting of maps and arrays in a client message
_SURROGATE: Final = re.compile("[\ud800-\udfff]")  # only JSON's \uXXXX escapes make them


class WireError(SolraceError):
    """A frame that is not a well-formed message within the limits."""

    code = "malformed_message"


def encode(message: dict[str, Any], encoding: str) -> bytes | str:
    """One frame's payload: bytes for MessagePack, text for JSON. Never fails for plain
    data: a string that is not valid Unicode (a lone surrogate, from a store written
    before such strings were refused) goes out with that character replaced by '?'
    (``frame_bytes`` does the same for JSON text)."""
    if encoding == MSGPACK:
        try:
            data: bytes = msgpack.packb(message, use_bin_type=True)
        except UnicodeEncodeError:
            data = msgpack.packb(message, use_bin_type=True, unicode_errors="replace")
        return data
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def with_number(body: bytes | str, n: int, encoding: str) -> bytes | str:
    """``body``, a map as ``encode`` gave it, with ``"n": n`` added at its end: what
    ``encode`` gives of the map with ``n`` (its keys in another order). So one event told
    to many players is encoded once, and each player's number added to it."""
    if encoding != MSGPACK:
        assert isinstance(body, str)
        return f'{body[:-1]}{"," if len(body) > 2 else ""}"n":{n}}}'
    assert isinstance(body, bytes)
    first = body[0]
    if first & 0xF0 == 0x80:  # a fixmap: up to 15 entries
        count, head = first & 0x0F, 1
    elif first == 0xDE:  # a map16
        count, head = int.from_bytes(body[1:3], "big"), 3
    elif first == 0xDF:  # a map32
        count, head = int.from_bytes(body[1:5], "big"), 5
    else:
        raise ValueError("not a MessagePack map")
    count += 1
    if count <= 15:
        header = bytes((0x80 | count,))
    elif count <= 0xFFFF:
        header = b"\xde" + count.to_bytes(2, "big")
    else:
        header = b"\xdf" + count.to_bytes(4, "big")
    number: bytes = msgpack.packb(n)
    return b"".join((header, body[head:], b"\xa1n", number))


def decode(frame: bytes | str, encoding: str) -> dict[str, Any]:
    """The message in ``frame``, a map with string keys, within the limits; WireError else."""
    if len(frame) > MAX_MESSAGE_BYTES:
        raise WireError(f"a message is at most {MAX_MESSAGE_BYTES} bytes", "message_too_large")
    if encoding == MSGPACK:
        if not isinstance(frame, bytes):
            raise WireError("this connection speaks MessagePack: send binary frames")
        try:
            message = msgpack.unpackb(
                frame,
                raw=False,
                strict_map_key=True,
                max_str_len=MAX_STRING * 4,
                max_bin_len=0,
                max_ext_len=0,
                max_array_len=MAX_ITEMS,
                max_map_len=MAX_ITEMS,
            )
        except Exception as error:  # msgpack raises several unrelated types
            raise WireError(f"this is not valid MessagePack ({type(error).__name__})") from None
    else:
        if not isinstance(frame, str):
            raise WireError("this connection speaks JSON: send text frames")
        try:
            message = json.loads(frame)
        except (ValueError, RecursionError):
            raise WireError("this is not valid JSON") from None
    if not isinstance(message, dict):
        raise WireError("a message is a map with a 'type' field")
    _check_shape(message, 1)
    return message


def decode_from_server(frame: bytes | str, encoding: str) -> dict[str, Any]:
    """A server's message, decoded for a client: server messages (snapshots, boards) are
    larger than requests, so only the encoding is checked, not the request limits."""
    message = msgpack.unpackb(frame, raw=False) if encoding == MSGPACK else json.loads(frame)
    if not isinstance(message, dict):
        raise WireError("a server message is a map")
    return message


def _check_shape(value: Any, depth: int) -> None:
    """Refuse maps and arrays beyond the limits, long strings, non-string keys and values
    that are not plain data. Plain values at any depth are checked without a call each."""
    if depth > MAX_DEPTH:
        raise WireError(f"a message nests at most {MAX_DEPTH} levels deep")
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise WireError(f"a map holds at most {MAX_ITEMS} entries")
        for key in value:
            if type(key) is not str:
                raise WireError("map keys are strings")
            if len(key) > MAX_STRING or not key.isascii():
                _check_string(key)
        items: Any = value.values()
    else:
        if len(value) > MAX_ITEMS:
            raise WireError(f"an array holds at most {MAX_ITEMS} items")
        items = value
    for item in items:
        kind = type(item)
        if kind is str:
            if len(item) > MAX_STRING or not item.isascii():  # the rare case, in a call
                _check_string(item)
        elif kind is dict or kind is list:
            _check_shape(item, depth + 1)
        elif kind is float:
            if item != item:
                raise WireError("NaN is not a value")
        elif not (item is None or kind is bool or kind is int):
            raise WireError(f"a message holds no {kind.__name__} values")


def _check_string(text: str) -> None:
    if len(text) > MAX_STRING:
        raise WireError(f"a string is at most {MAX_STRING} characters")
    if not text.isascii() and _SURROGATE.search(text):
        raise WireError("a string holds a lone surrogate (\\ud800-\\udfff): not valid Unicode")
