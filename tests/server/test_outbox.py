"""The server's prebuilt frames are exactly the frames websockets itself would build."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.edge.outbox import frame_bytes


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_binary_frame_is_byte_for_byte_what_websockets_serializes(length: int) -> None:
    payload = bytes(i % 251 for i in range(length))
    assert frame_bytes(payload) == Frame(Opcode.BINARY, payload).serialize(mask=False)


@pytest.mark.parametrize("text", ["", "é" * 63, "é" * 64, "x" * 65535, "ü" * 40000])
def test_a_text_frame_is_byte_for_byte_what_websockets_serializes(text: str) -> None:
    expected = Frame(Opcode.TEXT, text.encode()).serialize(mask=False)
    assert frame_bytes(text) == expected
