"""``biblios-kit play`` flags: checked before anything starts (exit status 2 and a message), and turned into a GameConfig."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.cli.play_cmds import _config
from biblios_kit.i18n import use_language

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path))
    use_language("en")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(build_app(), list(args))
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ruleset", "chess"], "unknown ruleset"),
        (["--option", "no-such-option"], "no-such-option"),
        (["--players", "7"], "not 7"),
        (["--seat", "genius"], "unknown bot"),
        (["--players", "2", "--seat", "human", "--seat", "random", "--seat", "random"], "3 --seat given for 2 players"),
        (["--players", "2", "--seat", "random", "--seat", "random"], "at least one --seat must be human"),
        (["--players", "2", "--name", "A", "--name", "B", "--name", "C"], "3 --name given"),
        (["--bot-delay", "-1"], "must not be negative"),
        (["--forced-moves", "sometimes"], "--forced-moves must be picks-payments, all, or off, not sometimes"),
        (["--forced-moves", "OFF", "--seat", "human"], "--forced-moves must be"),
        (["--web", "--port", "0"], "--port must be between"),
        ([], "interactive terminal"),
    ],
)
def test_bad_flags_exit_with_status_2(args: list[str], message: str) -> None:
    code, output = run("play", *args)
    assert code == 2, output
    assert message in output
    assert "Traceback" not in output


def test_flags_prefill_or_complete_the_setup() -> None:
    partial = _config("scripts-and-scribes", [], None, 5, [], ["Zoe"], "fr")
    assert partial.ruleset == "scripts-and-scribes" and partial.players == 3 and partial.seed == 5
    assert partial.names == ("Zoe",) and not partial.complete
    full = _config(None, ["medieval-bluff"], None, None, ["human", "easy"], [], "en")
    assert full.complete and full.players == 2 and full.seats == ("human", "easy")
    assert full.options == ("medieval-bluff",)


@pytest.mark.parametrize("seats", [[], ["human", "easy"]])
def test_forced_moves_flag_sets_the_setting_and_counts_as_explicit(seats: list[str]) -> None:
    """Both ways out of the flag checks: the setup screen pre-filled, or a whole table started at once."""
    for mode in ("picks-payments", "all", "off"):
        config = _config(None, [], None, None, seats, [], "en", mode)
        assert config.autoplay == mode and "autoplay" in config.explicit
    default = _config(None, [], None, None, seats, [], "en")
    assert default.autoplay == "picks-payments" and "autoplay" not in default.explicit


def test_a_bad_forced_moves_value_is_explained_in_each_language() -> None:
    expected = {
        "fr": "--forced-moves doit valoir picks-payments, all ou off, et non sometimes",
        "es": "--forced-moves debe ser picks-payments, all o off, no sometimes",
    }
    for lang, message in expected.items():
        code, output = run("play", "--forced-moves", "sometimes", "--lang", lang)
        assert code == 2 and message in output, output


def test_help_lists_the_options() -> None:
    code, output = run("play", "--help")
    assert code == 0
    for flag in ("--ruleset", "--option", "--players", "--seat", "--seed", "--resume", "--web", "--port", "--lang",
                 "--forced-moves"):  # fmt: skip
        assert flag in output


def test_cli_help_does_not_import_textual() -> None:
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "biblios_kit", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "textual" not in imported and "biblios_kit.tui" not in imported


def test_a_command_line_registers_only_its_command() -> None:
    import typer.main

    from biblios_kit.cli.app import command_in

    assert command_in(["play", "--seed", "3"]) == "play" and command_in(["--help"]) is None
    only_play = typer.main.get_command(build_app("play"))
    assert set(only_play.commands) == {"play", "rules", "variant"}  # the two groups stay, empty
    everything = typer.main.get_command(build_app())
    assert {"play", "replay", "simulate", "rules", "variant"} <= set(everything.commands)
    assert set(typer.main.get_command(build_app("no-such-command")).commands) == set(everything.commands)
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "biblios_kit", "play", "--help"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0 and "--ruleset" in result.stdout
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "biblios_kit.cli.play_cmds" in imported
    assert not {"biblios_kit.cli.simulate_cmds", "biblios_kit.cli.rules_cmds", "biblios_kit.cli.replay_cmds"} & imported
