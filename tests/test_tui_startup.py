"""Start-up of ``biblios-kit play``: what the setup screen's first frame does not wait for, and what it fills in after."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from biblios_kit.resources import saved_game_path

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter (this test process has imported everything already). The
# modules loaded are recorded when the setup screen starts its work after the first frame,
# then again once the form is complete.
_PROBE = """
import asyncio, json, sys
from biblios_kit.cli.play_cmds import _config
from biblios_kit.tui.app import make_app
from biblios_kit.tui.screens.setup import SetupScreen

seen = {}
prepare = SetupScreen._prepare_in_thread

def recording(self, ruleset_id):
    seen.setdefault("first_frame", sorted(sys.modules))
    return prepare(self, ruleset_id)

SetupScreen._prepare_in_thread = recording

async def main():
    app = make_app(_config(None, [], None, None, [], [], "en"), bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(2000):  # up to 20 s on a busy machine
            if isinstance(app.screen, SetupScreen) and app.screen.complete:
                break
            await pilot.pause(0.01)
        screen = app.screen
        seen["complete"] = screen.complete
        seen["games"] = [label for label, _value in screen.query_one("#ruleset").options]
        seen["description"] = str(screen.query_one("#ruleset-description").render())

asyncio.run(main())
print(json.dumps(seen))
"""

_NOT_BEFORE_THE_FIRST_FRAME = (
    "biblios_kit.engine",
    "biblios_kit.bots",
    "biblios_kit.tui.saves",
    "biblios_kit.rulebook",
    "biblios_kit.rules.loader",
    "biblios_kit.rules.model",
    "yaml",
    "jsonschema",
)


def test_first_frame_waits_for_no_ruleset_engine_or_save_code(tmp_path: Path) -> None:
    env = {**os.environ, "BIBLIOS_KIT_DATA_DIR": str(tmp_path), "BIBLIOS_LANG": "en"}
    result = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    early = [name for name in seen["first_frame"] if name.startswith(_NOT_BEFORE_THE_FIRST_FRAME)]
    assert early == [], f"imported before the first frame: {early}"
    # ...and the form is completed after it: every ruleset listed by title, the shown one described.
    assert seen["complete"]
    assert "Biblios" in seen["games"] and "Scripts & Scribes" in seen["games"] and "…" not in seen["games"]
    assert seen["description"] not in ("", "…")


def test_the_tui_finds_the_save_where_the_saves_module_writes_it(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from biblios_kit.tui.saves import save_path

    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path))
    assert saved_game_path() == save_path() == tmp_path / "saves" / "current-game.json"
