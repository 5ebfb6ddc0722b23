"""The server benchmark's baselines: the bare echo, and the echo that stores every request
in Redis before answering it."""

from __future__ import annotations

import sys

import msgpack
import redis
from websockets.sync.client import connect

from bench.benchprocess import free_port, own_redis, spawn


def test_the_storing_echo_answers_each_request_once_it_is_in_redis_in_order() -> None:
    with own_redis(persist=False) as store:
        port = free_port()
        echo = spawn([sys.executable, "-m", "bench.echo_server", str(port), store.url], "serving")
        try:
            stored = redis.Redis.from_url(store.url)
            requests = [msgpack.packb({"type": "act", "id": i, "seq": i}) for i in range(1, 4)]
            answers, stored_by_then = [], []
            with connect(f"ws://127.0.0.1:{port}/") as connection:
                for request in requests:
                    connection.send(request)
                    answers.append(msgpack.unpackb(connection.recv()))
                    (key,) = stored.keys(f"bench-echo-{port}:*")
                    stored_by_then.append(stored.xlen(key))
            entries = [fields[b"r"] for _, fields in stored.xrange(key)]
        finally:
            echo.terminate()
            echo.wait(10)
    assert answers == [{"type": "act", "of": "act", "id": i, "seq": i} for i in (1, 2, 3)]
    assert stored_by_then == [1, 2, 3]  # each stored before its answer came
    assert entries == requests


def test_the_bare_echo_answers_without_a_store() -> None:
    port = free_port()
    echo = spawn([sys.executable, "-m", "bench.echo_server", str(port)], "serving")
    try:
        with connect(f"ws://127.0.0.1:{port}/") as connection:
            connection.send(msgpack.packb({"type": "act", "id": 7}))
            assert msgpack.unpackb(connection.recv()) == {"type": "act", "of": "act", "id": 7}
    finally:
        echo.terminate()
        echo.wait(10)


def test_the_storing_echo_signs_in_and_picks_the_database_its_url_names() -> None:
    with own_redis(persist=False) as store:
        redis.Redis.from_url(store.url).config_set("requirepass", "sesame")
        guarded = store.url.replace("redis://", "redis://:sesame@").replace("/0", "/3")
        port = free_port()
        echo = spawn([sys.executable, "-m", "bench.echo_server", str(port), guarded], "serving")
        try:
            with connect(f"ws://127.0.0.1:{port}/") as connection:
                connection.send(msgpack.packb({"type": "act", "id": 1}))
                assert msgpack.unpackb(connection.recv())["id"] == 1
            stored = redis.Redis.from_url(guarded)
            assert len(stored.keys(f"bench-echo-{port}:*")) == 1  # in database 3
        finally:
            echo.terminate()
            echo.wait(10)
