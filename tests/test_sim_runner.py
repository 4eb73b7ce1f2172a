"""Simulation: reproducible whatever the worker count, rotation, statistics, and the CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biblios_kit.bots.registry import BotSpecError, make_bot, parse_spec
from biblios_kit.cli.app import build_app
from biblios_kit.engine.records import load_record, replay
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.sim import SimConfig, game_seed, run_simulation, seat_assignments, wilson_interval


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    use_language("en")


def _figures(stats) -> dict:
    data = stats.to_json()
    for key in ("seconds", "games_per_sec", "decisions_per_sec", "workers"):
        data.pop(key)
    return data


def test_results_do_not_depend_on_worker_count() -> None:
    one = run_simulation(SimConfig("biblios", 3, 60, seed=7, workers=1))
    two = run_simulation(SimConfig("biblios", 3, 60, seed=7, workers=2))
    assert _figures(one) == _figures(two)
    other = run_simulation(SimConfig("biblios", 3, 60, seed=8, workers=1))
    assert _figures(other) != _figures(one)


def test_figures_are_sensible() -> None:
    stats = run_simulation(SimConfig("scripts-and-scribes", 4, 200, seed=1))
    assert abs(sum(stats.seat_win_rates) - 1) < 1e-9
    assert all(0.12 < r < 0.38 for r in stats.seat_win_rates)
    assert all(lo <= r <= hi for r, (lo, hi) in zip(stats.seat_win_rates, stats.seat_win_ci95))
    assert set(stats.category_win_shares) == {"illuminators", "scribes", "manuscripts", "scrolls", "supplies"}
    for cat, shares in stats.category_win_shares.items():
        assert abs(sum(shares) + stats.category_unclaimed[cat] - 1) < 1e-9
    assert 300 < stats.mean_decisions < 700 and stats.games_per_sec > 0
    assert stats.bot_win_rates["random"][0] == pytest.approx(0.25)


def test_rotation_plays_every_assignment_equally() -> None:
    assert seat_assignments(("a", "b", "b"), rotate=True) == [("a", "b", "b"), ("b", "a", "b"), ("b", "b", "a")]
    assert seat_assignments(("a", "b"), rotate=False) == [("a", "b")]
    stats = run_simulation(SimConfig("biblios", 2, 40, seed=3, bots=("random", "random"), rotate=True))
    assert stats.bots == ("random", "random")
    data = stats.to_json()
    assert data["bot_win_rates"]["random"]["rate"] == pytest.approx(0.5)
    assert len(data["bot_win_rates"]["random"]["ci95"]) == 2


def test_game_seeds_are_stable_and_distinct() -> None:
    assert game_seed(1, 0) == game_seed(1, 0)
    assert len({game_seed(1, i) for i in range(1000)}) == 1000
    assert 0 <= game_seed(2**70, 5) < 2**63


def test_one_bot_seed_function_keeps_every_callers_seeds() -> None:
    """play, the server, simulate and the lab seed their bots with bots.seeds.bot_seed; the seeds are those of before."""
    from biblios_kit.bots.seeds import BATCH, TABLE, bot_seed
    from biblios_kit.sim.runner import make_bots
    from biblios_kit.tui import session

    # simulate and the lab (and every game seed of a run): the 63-bit BLAKE2b hash of "seed:index", pinned
    assert bot_seed(5, 2, BATCH) == game_seed(5, 2) == 210380050966385637
    assert bot_seed(2**70, 3, BATCH) == 2045744059748249978
    # play (the TUI): the linear derivation its saved games and golden screens were made with, pinned
    assert bot_seed(123456789, 3) == bot_seed(123456789, 3, TABLE) == 123457159402043
    assert session.bot_seed is bot_seed  # the TUI calls the one function
    # the server: fresh entropy, 62 bits
    fresh = {bot_seed(None, 0) for _ in range(20)}
    assert len(fresh) == 20 and all(0 <= s < 2**62 for s in fresh)
    with pytest.raises(ValueError, match="derivation"):
        bot_seed(1, 0, "other")  # type: ignore[arg-type]
    ruleset = load_ruleset("biblios")
    bots = make_bots(ruleset, 9, ("random", "random"))
    assert [bot.rng.random() for bot in bots] == [random.Random(bot_seed(9, k, BATCH)).random() for k in range(2)]  # type: ignore[attr-defined]


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0.0, 10)[0] == pytest.approx(0.0) and wilson_interval(1.0, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_bad_configs() -> None:
    with pytest.raises(ValueError, match="supports 2, 3, 4 players"):
        run_simulation(SimConfig("biblios", 7, 3))
    with pytest.raises(ValueError, match="one per seat"):
        run_simulation(SimConfig("biblios", 3, 3, bots=("random", "random")))
    with pytest.raises(BotSpecError, match="unknown bot"):
        run_simulation(SimConfig("biblios", 3, 3, bots=("wizard",)))


def test_bot_specs() -> None:
    assert parse_spec("hard:iterations=2000:seconds=0.5") == ("hard", {"iterations": 2000, "seconds": 0.5})
    assert parse_spec(" Random ") == ("random", {})
    for bad in ("", "hard:iterations", "nobody", "hard:=3"):
        with pytest.raises(BotSpecError):
            parse_spec(bad)
    bot = make_bot("random", 4, load_ruleset("biblios"))
    assert bot.name == "random"


def test_records_written_by_simulation_replay(tmp_path: Path) -> None:
    stats = run_simulation(SimConfig("biblios", 3, 5, seed=2, records=str(tmp_path)))
    files = sorted(tmp_path.glob("game-*.json"))
    assert [f.name for f in files] == [f"game-{i:06d}.json" for i in range(1, 6)]
    wins = [0.0, 0.0, 0.0]
    for f in files:
        record = load_record(f)
        assert record.bots == ("random",) * 3
        result = replay(record).result()
        for p in range(3):
            wins[p] += result.win_share(p)
    assert [w / 5 for w in wins] == list(stats.seat_win_rates)


def test_cli_simulate_json_and_text(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["simulate", "--ruleset", "biblios", "--players", "4", "--games", "20", "--seed", "1"]
    result = runner.invoke(build_app(), [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in ("games", "players", "seat_win_rates", "mean_vp", "category_win_shares", "games_per_sec",
                "decisions_per_sec", "shared_rate", "mean_decisions", "bot_win_rates"):  # fmt: skip
        assert key in data
    assert data["games"] == 20 and data["players"] == 4
    result = runner.invoke(build_app(), [*args, "--lang", "fr"])
    assert result.exit_code == 0 and "%" in result.output
    # categories are named in the user's language, not by their ids
    assert "Grimoires Interdits" in result.output and "forbidden-tomes" not in result.output


@pytest.mark.parametrize(
    "args,message",
    [
        (["--players", "9"], "supports 2, 3, 4 players"),
        (["--games", "0"], "--games"),
        (["--workers", "0"], "--workers"),
        (["--bots", "random,wizard"], "unknown bot"),
        (["--bots", "random,random"], "one per seat"),
        (["--ruleset", "nope"], "nope"),
        (["--option", "nope"], "nope"),
    ],
)
def test_cli_simulate_bad_input_exits_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(build_app(), ["simulate", "--games", "2", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    "lang,bots,message",
    [
        ("fr", "hard:iterations=0,medium", "le paramètre iterations doit valoir au moins 1, reçu 0"),
        ("es", "medium:deny=x,random", "el parámetro deny espera un número, se recibió x"),
        ("fr", "random:depth=2,medium", "ce bot ne prend aucun paramètre, reçu depth"),
        ("es", "wizard,medium", "bot desconocido 'wizard'"),
    ],
)
def test_cli_simulate_bad_bot_spec_in_the_chosen_language(lang: str, bots: str, message: str) -> None:
    try:
        result = CliRunner().invoke(
            build_app(), ["simulate", "--games", "2", "--players", "2", "--bots", bots, "--lang", lang]
        )
    finally:
        use_language("en")
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_cli_simulate_unsupported_player_count_in_french() -> None:
    try:
        result = CliRunner().invoke(build_app(), ["simulate", "--games", "2", "--players", "9", "--lang", "fr"])
    finally:
        use_language("en")
    assert result.exit_code == 2, result.output
    assert "les règles 'biblios' se jouent à 2, 3, 4 joueurs, pas à 9" in result.output, result.output


def test_the_game_loop_reports_each_turn_boundary_once() -> None:
    """play_game's boundary hook (what the lab measures at): before the first decision, at the auction's
    start, at every change of active player, never after the last decision; the game is the same game."""
    from biblios_kit.engine import Phase
    from biblios_kit.sim.runner import play_game

    ruleset = load_ruleset("biblios")
    for players, bots in ((2, ("medium", "random")), (4, ("random",) * 4)):
        seen: list[tuple[int, bool, int, Phase]] = []
        state = play_game(
            ruleset,
            players,
            game_seed(4, players),
            bots,
            boundary=lambda s, done, auction, seen=seen: seen.append((done, auction, s.active_player, s.phase)),
        )
        plain = play_game(ruleset, players, game_seed(4, players), bots)
        assert state.actions == plain.actions and state.log  # same game; the watched one keeps its log
        dones = [done for done, _auction, _active, _phase in seen]
        assert dones[0] == 0 and dones == sorted(set(dones)) and dones[-1] < state.decision_count
        assert [auction for _done, auction, _a, _p in seen].count(True) == 1
        start = next(i for i, (_d, auction, _a, _p) in enumerate(seen) if auction)
        assert seen[start][3] in (Phase.BIDDING, Phase.PAYMENT)
        assert all(phase not in (Phase.BIDDING, Phase.PAYMENT) for _d, _x, _a, phase in seen[:start])
        actives = [active for _d, _x, active, _p in seen]
        assert all(a != b for a, b in zip(actives[start + 1 :], actives[start + 2 :]))
        # the boundaries, found again on a replay of the actions: the auction's start, then each change of active player
        from biblios_kit.engine import new_game

        again = new_game(ruleset, players, game_seed(4, players))
        expected = [(0, False)]
        active, auction = again.active_player, False
        for done, action in enumerate(state.actions[:-1], start=1):
            again.apply(action)
            if not auction and again.phase in (Phase.BIDDING, Phase.PAYMENT):
                auction = True
                expected.append((done, True))
            elif again.active_player != active:
                expected.append((done, False))
            active = again.active_player
        assert [(done, flag) for done, flag, _a, _p in seen] == expected
