"""``biblios-kit host tables | invite | settings | close`` and ``host new --hints --no-spectators`` against a real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from net_helpers import NO_CLOCKS, HostProcess

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "biblios_kit", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "BIBLIOS_LANG": lang}, timeout=60)  # fmt: skip


def test_the_admin_lists_invites_changes_and_closes_tables(host: HostProcess) -> None:
    common = ["--port", str(host.port), "--data-dir", str(host.data_dir)]
    created = _cli(
        "host", "new", *common, "--players", "3", "--seat", "3=medium", "--name", "1=Ana", "--bot-delay", "5"
    )
    assert created.returncode == 0, created.stderr
    assert "Anyone may watch at: http://127.0.0.1:" in created.stdout and "/watch/" in created.stdout
    table = created.stdout.split()[1]
    listed = _cli("host", "tables", *common)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"{table} · biblios · move 1, Ana to play"
    assert lines[1:4] == ["  1. Ana: away", "  2. Player 2: away", "  3. Player 3 (medium bot)"]
    assert lines[4].startswith("  hints only for one person against bots · spectators: http://127.0.0.1:")
    french = _cli("host", "tables", *common, lang="fr")
    assert "à Ana de jouer" in french.stdout and "absent" in french.stdout
    as_json = json.loads(_cli("host", "tables", *common, "--json").stdout)
    assert as_json["tables"][0]["to_move"] == 0 and as_json["tables"][0]["seats"][0]["connected"] is False

    old = json.loads(_cli("host", "tables", *common, "--json").stdout)  # tokens are never listed
    assert "token" not in json.dumps(old)
    invited = _cli("host", "invite", table, "2", *common)
    assert invited.returncode == 0, invited.stderr
    assert f"/play/{table}?token=" in invited.stdout.splitlines()[1]
    for args, message in [(["invite", table, "3"], "not a person's seat"), (["invite", table, "0"], "number from 1"),
                          (["invite", "../etc", "1"], "not a table id"), (["invite", "nope", "1"], "no table"),
                          (["settings", table, "--hints", "always"], "hints"), (["close", "nope"], "no table")]:  # fmt: skip
        failed = _cli("host", *args, *common)
        assert failed.returncode == 2 and message in failed.stderr and "Traceback" not in failed.stderr, (args, failed)

    changed = _cli("host", "settings", table, "--hints", "off", "--no-spectators", *common)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout.splitlines()[-1] == "  hints off · no spectators"
    closed = _cli("host", "close", table, *common)
    assert closed.returncode == 0 and closed.stdout.strip() == f"Table {table} closed."
    assert _cli("host", "tables", *common).stdout.strip() == "No tables on this server."
    quiet = _cli("host", "new", *common, "--players", "2", "--no-spectators", "--hints", "on", "--json")
    reply = json.loads(quiet.stdout)
    assert reply["spectator_link"] is None and reply["settings"] == {
        "hints": "on",
        "spectators": False,
        "open": False,
        **NO_CLOCKS,
    }
    opened = _cli("host", "new", *common, "--players", "2", "--free-seat", "2", "--open")
    assert opened.returncode == 0 and "  2. Player 2: free seat" in opened.stdout, opened
    listed = _cli("host", "tables", *common).stdout
    assert "  2. Player 2: free seat" in listed and "· open in the lobby" in listed
    for args in (["--seat", "2=easy", "--free-seat", "2"], ["--free-seat", "3"], ["--free-seat", "x"]):
        failed = _cli("host", "new", *common, "--players", "2", *args)
        assert failed.returncode == 2 and "person's seat" in failed.stderr, (args, failed.stderr)
    clocked = _cli("host", "new", *common, "--players", "2", "--move-seconds", "30", "--absent-seconds", "90",
                   "--stand-in", "easy", "--json")  # fmt: skip
    assert clocked.returncode == 0, clocked.stderr
    clocked_table = json.loads(clocked.stdout)["table"]
    slower = _cli("host", "settings", clocked_table, "--game-seconds", "600", *common)
    assert slower.stdout.splitlines()[-1] == (
        "  clocks: 30 s per turn · 600 s per game · stand-in after 90 s away (stand-in: easy)"
    ), slower
    for args, message in [(["new", "--move-seconds", "-1"], "move_seconds"), (["new", "--stand-in", "nobody"], "stand_in"),
                          (["settings", clocked_table, "--absent-seconds", "1e9"], "absent_seconds")]:  # fmt: skip
        failed = _cli("host", *args, *common)
        assert failed.returncode == 2 and message in failed.stderr and "Traceback" not in failed.stderr, (args, failed)
    nobody = _cli("host", "tables", "--port", str(host.port), "--data-dir", str(host.data_dir / "elsewhere"))
    assert nobody.returncode == 2 and "admin token" in nobody.stderr


def test_a_table_id_never_reads_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids are random URL-safe text: one starting with ``-`` made ``host invite <table> <seat>`` fail."""
    import secrets

    from biblios_kit.net.tables import new_table_id

    drawn = iter(["-BcgaY98", "--x_Y-9a", "BcgaY98-"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda size: next(drawn))
    assert new_table_id() == "BcgaY98-"
