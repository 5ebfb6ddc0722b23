"""MessageConnection reads an open connection's frames itself (server/edge/connection.py): what
it hands over is what websockets would, whatever the frames and however the bytes are cut.

The client is websockets' own sans-I/O ``ClientProtocol``: it builds the masked frames and
reads the server's; the test only cuts its bytes into pieces and writes them one by one.
The server, in a thread, echoes every whole message it is handed.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.asyncio.server import serve
from websockets.client import ClientProtocol
from websockets.frames import Close, CloseCode, Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

from server.edge.connection import MessageConnection

MAX_SIZE = 4096  # as the race server's


OPENED: list[MessageConnection] = []  # every connection the echo server served, in order


@contextmanager
def echo_server() -> Iterator[int]:
    """A websockets server built on MessageConnection that sends back each message it is
    handed; yields its port."""
    OPENED.clear()
    loop = asyncio.new_event_loop()
    started = threading.Event()
    port: list[int] = []
    stop = loop.create_future()

    async def echo(connection: MessageConnection) -> None:  # type: ignore[misc]
        sending: set[asyncio.Task[None]] = set()

        def back(message: str | bytes) -> None:
            task = loop.create_task(connection.send(message))
            sending.add(task)
            task.add_done_callback(sending.discard)

        OPENED.append(connection)
        connection.listen(back)
        await connection.wait_closed()

    async def main() -> None:
        async with serve(
            echo,  # type: ignore[arg-type]
            "127.0.0.1",
            0,
            create_connection=MessageConnection,
            compression=None,
            max_size=MAX_SIZE,
            ping_interval=None,
        ) as server:
            port.append(server.sockets[0].getsockname()[1])
            started.set()
            await stop

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert started.wait(10)
    try:
        yield port[0]
    finally:
        loop.call_soon_threadsafe(stop.set_result, None)
        thread.join(10)


class RawClient:
    """A socket and websockets' client protocol: bytes go out as the test cuts them."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/"))
        self.protocol.send_request(self.protocol.connect())
        self.flush()
        while not any(isinstance(e, Response) for e in self.read()):
            pass

    def flush(self) -> bytes:
        data = b"".join(self.protocol.data_to_send())
        self.sock.sendall(data)
        return data

    def read(self) -> list[object]:
        data = self.sock.recv(65536)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
        return list(self.protocol.events_received())

    def frames_until(self, count: int) -> list[Frame]:
        """Data and control frames from the server, until ``count`` of them or its close."""
        frames: list[Frame] = []
        while len(frames) < count and not self.protocol.close_rcvd:
            frames += [e for e in self.read() if isinstance(e, Frame)]
        return frames

    def close(self) -> None:
        self.sock.close()


# One message: text or bytes, sent in 1-3 frames, with a ping after some of them.
messages = st.lists(
    st.tuples(
        st.one_of(st.text(max_size=300), st.binary(max_size=700)),
        st.integers(1, 3),
        st.booleans(),
    ),
    min_size=1,
    max_size=8,
)


def build_frames(client: RawClient, plan: list[tuple[str | bytes, int, bool]]) -> bytes:
    """The masked bytes of ``plan``'s messages, as websockets' client writes them."""
    out = b""
    for payload, pieces, ping in plan:
        data = payload.encode() if isinstance(payload, str) else payload
        step = max(1, -(-len(data) // pieces))
        chunks = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
        opcode = Opcode.TEXT if isinstance(payload, str) else Opcode.BINARY
        for index, chunk in enumerate(chunks):
            fin = index == len(chunks) - 1
            client.protocol.send_frame(Frame(opcode if index == 0 else Opcode.CONT, chunk, fin))
            if ping and index == 0:  # a control frame between a message's fragments
                client.protocol.send_ping(b"p")
        out += b"".join(client.protocol.data_to_send())
    return out


def send_in_pieces(client: RawClient, data: bytes, cuts: list[int]) -> None:
    points = sorted({c % (len(data) + 1) for c in cuts})
    previous = 0
    for point in [*points, len(data)]:
        if point > previous:
            client.sock.sendall(data[previous:point])
            time.sleep(0.001)  # one read per piece, as far as the kernel lets it
            previous = point


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=messages, cuts=st.lists(st.integers(0, 10_000), max_size=12))
@example(plan=[(b"x" * 300, 1, False), ("y", 1, False)], cuts=list(range(1, 12)))  # byte by byte
def test_every_message_comes_whole_and_in_order_however_its_frames_are_cut(
    plan: list[tuple[str | bytes, int, bool]], cuts: list[int]
) -> None:
    with echo_server() as port:
        client = RawClient(port)
        try:
            send_in_pieces(client, build_frames(client, plan), cuts)
            pings = sum(1 for *_, ping in plan if ping)
            frames = client.frames_until(len(plan) + pings)
        finally:
            client.close()
    echoed = [
        f.data.decode() if f.opcode is Opcode.TEXT else f.data
        for f in frames
        if f.opcode in (Opcode.TEXT, Opcode.BINARY)
    ]
    assert echoed == [payload for payload, *_ in plan]
    assert sum(1 for f in frames if f.opcode is Opcode.PONG) == pings
    assert OPENED[0].reads_frames  # the server's own reading, not websockets', was tested


def closing_code(frames: list[Frame]) -> int | None:
    for frame in frames:
        if frame.opcode is Opcode.CLOSE:
            return Close.parse(frame.data).code
    return None


def answer_to(send: Callable[[RawClient], None]) -> list[Frame]:
    """The server's first frames after ``send`` wrote to a fresh connection."""
    with echo_server() as port:
        client = RawClient(port)
        try:
            send(client)
            return client.frames_until(1)
        finally:
            client.close()


def test_a_frame_over_the_size_limit_closes_with_1009_and_nothing_of_it_is_handed_over() -> None:
    def too_big(client: RawClient) -> None:
        client.protocol.max_size = None
        client.protocol.send_binary(b"x" * (MAX_SIZE + 1))
        client.flush()

    frames = answer_to(too_big)
    assert closing_code(frames) == CloseCode.MESSAGE_TOO_BIG
    assert not [f for f in frames if f.opcode is Opcode.BINARY]


def test_an_unmasked_frame_from_a_client_closes_with_1002() -> None:
    frames = answer_to(lambda client: client.sock.sendall(b"\x82\x02hi"))  # FIN, binary, no mask
    assert closing_code(frames) == CloseCode.PROTOCOL_ERROR


def test_a_new_message_inside_a_fragmented_one_closes_with_1002() -> None:
    def interleaved(client: RawClient) -> None:
        client.protocol.send_frame(Frame(Opcode.TEXT, b"half", fin=False))
        client.flush()
        # websockets' client would refuse to interleave; build the whole frame by hand
        mask = b"\x01\x02\x03\x04"
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(b"next"))
        client.sock.sendall(b"\x81\x84" + mask + body)

    frames = answer_to(interleaved)
    assert closing_code(frames) == CloseCode.PROTOCOL_ERROR
    assert not [f for f in frames if f.opcode is Opcode.TEXT]


def test_frames_sent_before_the_handshake_was_answered_are_read_all_the_same() -> None:
    with echo_server() as port:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}/"))
        protocol.send_request(protocol.connect())
        handshake = b"".join(protocol.data_to_send())
        protocol.state = protocol.state.OPEN  # type: ignore[assignment]  # to build frames early
        protocol.send_text(b"early")
        protocol.send_binary(b"bird")
        frames_bytes = b"".join(protocol.data_to_send())
        protocol.state = protocol.state.CONNECTING  # type: ignore[assignment]
        # the request and the start of the first frame in one write, the rest after
        sock.sendall(handshake + frames_bytes[:3])
        time.sleep(0.05)
        sock.sendall(frames_bytes[3:])
        client = RawClient.__new__(RawClient)
        client.sock, client.protocol = sock, protocol
        frames: list[Frame] = []
        while len(frames) < 2:
            frames += [e for e in client.read() if isinstance(e, Frame)]
        client.close()
    assert [f.data for f in frames] == [b"early", b"bird"]
    assert not OPENED[0].reads_frames  # websockets read them all
