"""``replay --log``: each view names only the cards its reader saw (``--player``, spectator, ``--all``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.bots.registry import make_bot
from biblios_kit.cli.app import build_app
from biblios_kit.cli.replay_cmds import game_log
from biblios_kit.engine import new_game
from biblios_kit.engine.events import visible
from biblios_kit.engine.records import record_of, save_record
from biblios_kit.i18n import in_language
from biblios_kit.rules import load_ruleset


def mid_game(seed: int, actions: int, players: int = 3):  # type: ignore[no-untyped-def]
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, players=players, seed=seed)
    bots = [make_bot("random", seed * 10 + seat, ruleset) for seat in range(players)]
    for _ in range(actions):
        if state.is_terminal():
            break
        state.apply(bots[state.current_player].choose(state.observation(state.current_player)))
    return state


def swap_hidden_cards(state, seat: int | None) -> int:  # type: ignore[no-untyped-def]
    """Give every card hidden from ``seat`` another identity in the log; return how many changed."""
    deck = len(state.ruleset.deck)
    changed = 0
    for index, raw in enumerate(state.log):
        if raw[2] >= 0 and not visible(raw, seat):
            state.log[index] = (raw[0], raw[1], (raw[2] + deck // 2 + 1) % deck, raw[3], raw[4])
            changed += 1
    return changed


@pytest.mark.parametrize(("seed", "actions"), [(3, 25), (11, 60), (5, 140), (8, 400)])
def test_a_seat_log_does_not_depend_on_the_cards_hidden_from_it(seed: int, actions: int) -> None:
    with in_language("en"):
        for seat in range(3):
            state = mid_game(seed, actions)
            before = game_log(state, seat)
            omniscient = game_log(state, everything=True)
            assert swap_hidden_cards(state, seat) > 0
            assert game_log(state, seat) == before, f"seat {seat} reads a card hidden from it"
            assert game_log(state, everything=True) != omniscient  # the swap touches named cards
        state = mid_game(seed, actions)
        spectator = game_log(state)
        for seat in range(3):
            swap_hidden_cards(state, seat)
        assert game_log(state) == spectator


def test_replay_log_views_from_the_command_line(tmp_path: Path) -> None:
    path = save_record(record_of(mid_game(11, 60)), tmp_path / "save.json")
    runner = CliRunner()

    def run(*args: str) -> tuple[int, list[str]]:
        result = runner.invoke(build_app(), ["replay", str(path), *args, "--lang", "en"])
        return result.exit_code, result.output.splitlines()

    code, seat = run("--log", "--player", "1")
    assert code == 0
    assert any(line.startswith("Player 1 keeps the ") for line in seat)
    assert not any(line.startswith(("Player 2 keeps the ", "Player 3 keeps the ")) for line in seat)
    assert not any(line.startswith(("Player 2 draws", "Player 3 draws")) for line in seat)
    code, everything = run("--log", "--all")
    assert code == 0
    assert any(line.startswith("Player 2 keeps the ") for line in everything)
    assert "The game is not finished." in everything
    assert run("--all")[0] == 2
    assert run("--log", "--all", "--player", "2")[0] == 2
