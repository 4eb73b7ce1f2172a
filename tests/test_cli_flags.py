"""One flag per concept: every command spells and explains ``--ruleset``, ``--option``, ``--players``,
``--seed`` and ``--bots`` the same way, and ``play -n`` (the older spelling) still works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer

from biblios_kit.cli.app import build_app

COMMANDS = (("play",), ("simulate",), ("rules", "show"), ("rules", "search"), ("lab", "compare"), ("lab", "sweep"))
SHARED = {"ruleset": "-r", "option": "-o", "players": "-p", "seed": "-s", "bots": "-b", "lang": None}


def command(path: tuple[str, ...]) -> Any:
    """The click command at ``path`` (Typer may bundle its own click, so no isinstance checks)."""
    group: Any = typer.main.get_command(build_app(path[0]))
    for name in path:
        group = group.commands[name]
    return group


def test_every_command_declares_the_shared_flags_the_same_way() -> None:
    seen: dict[str, tuple[frozenset[str], str | None]] = {}
    for path in COMMANDS:
        for param in command(path).params:
            if param.name not in SHARED or param.param_type_name != "option":
                continue
            short = SHARED[param.name]
            assert short is None or short in param.opts, (path, param.opts)
            spelling = frozenset(o for o in param.opts if o.startswith("--"))
            key = param.name
            if key in seen:
                assert seen[key][0] == spelling, (path, param.opts)
            seen[key] = (spelling, param.help)
    assert set(seen) == set(SHARED)


@pytest.mark.parametrize("flag", ["-n", "-p", "--players"])
def test_play_takes_every_spelling_of_players(flag: str) -> None:
    params = command(("play",)).params
    players = next(p for p in params if p.name == "players")
    assert flag in players.opts


def test_an_internal_error_gives_a_sentence_and_a_crash_report_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data_dir: Path
) -> None:
    from biblios_kit.cli import app as cli_app

    def broken(command: str | None = None) -> object:
        raise RuntimeError("a bug")

    monkeypatch.delenv(cli_app.DEBUG_VARIABLE, raising=False)
    monkeypatch.setattr(cli_app, "build_app", broken)
    with pytest.raises(SystemExit) as stop:
        cli_app.main(["rules", "list", "--lang", "fr"])
    assert stop.value.code == cli_app.INTERNAL_ERROR_STATUS
    err = capsys.readouterr().err
    assert "Traceback" not in err and "erreur interne" in err
    (report,) = (data_dir / "crash-reports").iterdir()
    assert str(report) in err
    assert "RuntimeError: a bug" in report.read_text(encoding="utf-8")
    # With the debug variable the traceback is the developer's.
    monkeypatch.setenv(cli_app.DEBUG_VARIABLE, "1")
    with pytest.raises(RuntimeError):
        cli_app.main(["rules", "list"])
