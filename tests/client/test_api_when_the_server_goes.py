"""The client library when its server shuts down under it: every request in flight fails
with ConnectionError for its caller, and nothing else is left behind for asyncio to
complain about ("Future exception was never retrieved"). A real server process is stopped
with SIGTERM while a client keeps twenty requests in flight; the client runs in its own
process, so its standard error is exactly what a user would see."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import asyncio, gc, signal, sys
sys.path.insert(0, "tests/support")
from pathlib import Path
from redis_server import free_port
from serve_process import ServeProcess
from harness import SERVE_QUICKLY
from client.api import Client

async def once(directory):
    server = ServeProcess(
        free_port(), Path(directory), *SERVE_QUICKLY, "--rate", "100000", "--burst", "100000"
    ).start()
    client = await Client.connect(server.url, "Ann")

    async def keep_asking():
        while True:
            await asyncio.gather(*[client.request("list_races") for _ in range(20)])

    asking = asyncio.create_task(keep_asking())
    await asyncio.sleep(0.3)
    server.process.send_signal(signal.SIGTERM)
    try:
        await asking
    except ConnectionError:
        print("ConnectionError reached the caller")
    await client.close()
    server.wait()

for attempt in range(3):
    asyncio.run(once(sys.argv[1] + str(attempt)))
    gc.collect()
"""


def test_a_server_shutting_down_leaves_no_unretrieved_exception_behind(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "serve")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ConnectionError reached the caller") == 3, done.stdout
    assert "never retrieved" not in done.stderr, done.stderr
