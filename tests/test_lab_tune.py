"""``lab tune``: targets, ranges, successive halving finding known answers (a game length, the one fair value) in this process and on Dask, the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.i18n import use_language
from biblios_kit.lab.backends import Backend, DaskBackend, InProcessBackend
from biblios_kit.lab.overrides import sweep_rulesets
from biblios_kit.lab.plan import RulesetRef
from biblios_kit.lab.tune import Target, TargetError, TuneResult, expand_range, parse_target, tune

# Removing cards at setup shortens the game: about 4 decisions fewer per card removed with two random
# bots (303 decisions with none removed, 231 with 18, 185 with 30 over 400 games). A target of
# 231.3 +- 2 decisions is met by 18 cards alone: its neighbours are about 4 decisions away.
FIELD = "setup.2.remove_random=12..24"
KNOWN = "18"
TARGET = "decisions=231.3:2"

# Seat fairness: with two players and only 8 down to 3 cards left after setup (73 to 78 of the 81
# removed at random), the deck makes two or three gift turns, the last one short, and which seat
# plays the extra or the short turn decides most games. Easy bots, 1,000 to 2,000 games each: seat 1
# wins about 70% with 73 or 74 removed (it plays two turns), 28% with 76 or 77 (its opponent's turn
# is the short one), 62% with 78 (one turn, its own); only 75 (two full turns of three cards, one
# each) is fair: 49.9%. The neighbours are 20 points away, far outside a 5-point tolerance.
FAIR_FIELD = "setup.2.remove_random=73..78"
FAIR_KNOWN = "75"
FAIR_TARGET = "fair:0.05"


@pytest.fixture(autouse=True)
def _english() -> None:
    use_language("en")


def test_targets_and_ranges_are_read() -> None:
    assert parse_target("fair:0.02") == Target("fair", tolerance=0.02, text="fair:0.02")
    assert parse_target("category_nobody.3<=0.1").kind == "at_most"
    assert parse_target("seat_win.1>=0.45").kind == "at_least"
    band = parse_target("decisions=231.3:2")
    assert (band.kind, band.metric, band.value, band.tolerance) == ("band", "decisions", 231.3, 2.0)
    for bad in ("fair", "fair:2", "nonsense=1:1", "shared=2:0.1", "shared=0.5", "seat_win.1>=", "vp>=3"):
        with pytest.raises(TargetError):
            parse_target(bad)
    assert expand_range("dice.0.start=2..5") == "dice.0.start=2,3,4,5"
    assert expand_range("setup.2.remove_random=0..21:7") == "setup.2.remove_random=0,7,14,21"
    assert expand_range("dice.0.start=2,4") == "dice.0.start=2,4"
    for bad in ("dice.0.start=5..2", "dice.0.start=1..5:0", "x=0..100000"):
        with pytest.raises(TargetError):
            expand_range(bad)


def _tune(backend: Backend) -> TuneResult:
    points, skipped = sweep_rulesets("biblios", (), [expand_range(FIELD)])
    assert not skipped and len(points) == 13
    refs = [RulesetRef.of(p.ruleset, p.label) for p in points]
    return tune(refs, [p.values for p in points], (2,), ("random",), parse_target(TARGET), backend, first=40, most=320)


def _check_known_answer(result: TuneResult) -> None:
    chosen = result.chosen
    assert chosen.values == {"setup.2.remove_random": KNOWN} and chosen.meets
    (cell,) = chosen.cells
    decisions = cell.estimates["decisions"]
    assert 229.3 <= decisions.value <= 233.3 and decisions.low < 231.3 < decisions.high
    assert chosen.confirmed(result.target)  # the interval, not only the estimate, lies in 229.3-233.3
    assert len(result.runners_up) == 2 and all(not r.meets for r in result.runners_up)
    # Successive halving: far fewer games than playing every candidate to the end
    assert result.games < 13 * 320 / 4
    assert result.rounds[0] == (13, 40) and result.rounds[-1][0] == 1


def test_tune_finds_the_known_answer_in_process() -> None:
    _check_known_answer(_tune(InProcessBackend()))


def _tune_fair(backend: Backend) -> TuneResult:
    points, skipped = sweep_rulesets("biblios", (), [expand_range(FAIR_FIELD)])
    assert not skipped and len(points) == 6
    refs = [RulesetRef.of(p.ruleset, p.label) for p in points]
    target = parse_target(FAIR_TARGET)
    return tune(refs, [p.values for p in points], (2,), ("easy",), target, backend, first=50, most=800)


def _check_fair_answer(result: TuneResult) -> None:
    chosen = result.chosen
    assert chosen.values == {"setup.2.remove_random": FAIR_KNOWN} and chosen.meets
    (cell,) = chosen.cells
    for key in ("seat_win.1", "seat_win.2"):
        rate = cell.estimates[key]
        assert 0.45 <= rate.low < 0.5 < rate.high <= 0.55  # confirmed: the whole interval within 5 points of 1/2
    assert chosen.confirmed(result.target)
    assert all(not c.meets for c in result.candidates[1:])  # every other value is unfair
    assert result.rounds[0] == (6, 50) and result.rounds[-1][0] == 1
    assert result.games < 6 * 800 / 3  # successive halving: far fewer games than every value to the end


def test_tune_finds_the_one_fair_value_in_process() -> None:
    _check_fair_answer(_tune_fair(InProcessBackend()))


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskBackend]:
    backend = DaskBackend(workers=2)
    try:
        yield backend
    finally:
        backend.close()


@pytest.mark.slow
def test_tune_finds_the_same_answer_on_dask(cluster: DaskBackend) -> None:
    local = _tune(InProcessBackend())
    remote = _tune(cluster)
    _check_known_answer(remote)
    assert remote.rounds == local.rounds and remote.games == local.games
    assert [c.values for c in remote.candidates] == [c.values for c in local.candidates]
    assert [c.cells[0].estimates for c in remote.candidates] == [c.cells[0].estimates for c in local.candidates]


def test_cli_tune_json_and_bad_input() -> None:
    runner = CliRunner()
    args = ["lab", "tune", "biblios", "--set", FIELD, "--target", TARGET, "-p", "2", "-b", "random"]
    result = runner.invoke(build_app(), [*args, "--first-games", "40", "--max-games", "320", "--in-process", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["chosen"]["values"] == {"setup.2.remove_random": KNOWN} and data["chosen"]["meets"]
    assert data["chosen"]["figures"]["2"]["decisions"]["band"] == pytest.approx([229.3, 233.3])
    text = runner.invoke(build_app(), [*args, "--first-games", "40", "--max-games", "320", "--in-process"])
    assert text.exit_code == 0 and text.stdout.startswith("Chosen: setup.2.remove_random=18, which meets")
    assert "Runner-up:" in text.stdout and "Games played:" in text.stdout
    for bad in (
        ["--target", "nonsense"],
        ["--set", "setup.2.remove_random=9..3"],
        ["--set", "no.such.field=1..3"],
        ["--first-games", "0"],
    ):
        broken = runner.invoke(
            build_app(),
            [*args[:3], *bad, "--target", TARGET, "-p", "2", "-b", "random", "--in-process"]
            if bad[0] == "--set"
            else [*args, *bad],
        )
        assert broken.exit_code == 2 and "Traceback" not in broken.output, (bad, broken.output)


@pytest.mark.slow
def test_tune_finds_the_one_fair_value_on_dask(cluster: DaskBackend) -> None:
    local = _tune_fair(InProcessBackend())
    remote = _tune_fair(cluster)
    _check_fair_answer(remote)
    assert remote.rounds == local.rounds and remote.games == local.games
    assert [c.values for c in remote.candidates] == [c.values for c in local.candidates]
    assert [c.cells[0].estimates for c in remote.candidates] == [c.cells[0].estimates for c in local.candidates]
