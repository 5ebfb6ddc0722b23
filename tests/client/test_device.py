"""The terminal client's device id (client/device.py): made once and kept in the user's
configuration folder, said in every hello; the server relates accounts seen on one."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from terminals import running_server, solrace

from client.device import DEVICE_ID, device_id, device_path

GAME = "mount_sunflower"


def test_the_device_id_is_made_once_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "solrace" / "device"
    made = device_id(path)
    assert DEVICE_ID.fullmatch(made) and path.read_text().strip() == made
    assert device_id(path) == made


def test_a_kept_file_that_is_not_a_device_id_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "device"
    path.write_text("not one\n")
    made = device_id(path)
    assert made != "not one" and path.read_text().strip() == made


def test_a_folder_that_cannot_be_written_gives_an_id_for_this_run(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    assert DEVICE_ID.fullmatch(device_id(blocked / "solrace" / "device"))


def test_the_id_is_kept_under_xdg_config_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/somewhere")
    assert device_path() == Path("/somewhere/solrace/device")


async def test_play_daily_keeps_a_device_id_and_says_why_a_new_account_plays_practice(
    tmp_path: Path,
) -> None:
    async with running_server(ranked_account_days=3, ranked_account_games=10) as url:
        account = ("--account", "Neve", "--register")
        env = {**os.environ, "SOLRACE_PASSWORD": "Neve's secret pass"}
        env["XDG_CONFIG_HOME"] = str(tmp_path)
        async with solrace("play", "--server", url, *account, "--daily", GAME, env=env) as neve:
            await neve.expect(
                re.escape(
                    "(practice: Ranked play opens when your account is 3 days old and has "
                    "finished 10 games; yours: 0 days, 0 games."
                )
            )
            await neve.type("resign")
            await neve.finish()
    assert DEVICE_ID.fullmatch((tmp_path / "solrace" / "device").read_text().strip())
