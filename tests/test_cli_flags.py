"""One flag per concept: every command spells and explains ``--ruleset``, ``--option``, ``--players``,
``--seed`` and ``--bots`` the same way, and ``play -n`` (the older spelling) still works."""

from __future__ import annotations

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
