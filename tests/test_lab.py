"""The balance lab: per-game metrics, restricted play, statistics, resume, sweeps, reports and the ``lab`` CLI."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
from collections.abc import Iterator, Sequence
from html import escape as html_escape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.engine import DECLINE, KEEP, PASS, EventKind, Observation, new_game
from biblios_kit.i18n import use_language
from biblios_kit.lab import report as out
from biblios_kit.lab.backends import InProcessBackend
from biblios_kit.lab.metrics import measure, play, play_and_measure
from biblios_kit.lab.overrides import SetError, patch_for, split_values, sweep_rulesets
from biblios_kit.lab.plan import MAIN, Arm, Experiment, GameRow, Job, RulesetRef, run_job, seats_for
from biblios_kit.lab.restrict import RESTRICTIONS, RestrictedBot
from biblios_kit.lab.results import ResultsFileError, read_results
from biblios_kit.lab.runner import LabReport, run_experiment
from biblios_kit.rules import load_ruleset
from biblios_kit.sim.runner import game_seed, play_game
from biblios_kit.sim.stats import compare, estimate, holm, seat_test, t_interval, wilson_interval


@pytest.fixture(autouse=True)
def _english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("BIBLIOS_KIT_DATA_DIR", str(tmp_path / "data"))
    use_language("en")


def _ref(name: str, options: Sequence[str] = (), label: str | None = None) -> RulesetRef:
    return RulesetRef.of(load_ruleset(name, options), label)


def _figures(report: LabReport) -> list[dict]:
    return [cell.to_json() for cell in report.cells]


# --------------------------------------------------------------------------- metrics


@pytest.mark.parametrize(("name", "players"), [("biblios", 3), ("scripts-and-scribes", 4), ("second-place-dice", 2)])
def test_metrics_agree_with_the_engine(name: str, players: int) -> None:
    ruleset = load_ruleset(name)
    seed = game_seed(5, 3)
    seats = ("random",) * players
    actions = play(ruleset, players, seed, seats)
    assert actions == play_game(ruleset, players, seed, seats).actions  # the lab's games are simulate's games
    state = new_game(ruleset, players, seed)
    for action in actions:
        state.apply(action)
    result = state.result()
    m = measure(ruleset, players, seed, actions)
    assert m == json.loads(json.dumps(m))  # plain JSON data
    assert m["win"] == [result.win_share(p) for p in range(players)] and sum(m["win"]) == pytest.approx(1)
    assert m["vp"] == list(result.victory_points)
    assert m["decisions"] == len(actions)
    kinds = [e.kind for e in state.events_for(0)]
    assert m["auctions"] == kinds.count(EventKind.REVEALED) > 0
    assert m["unsold"] == kinds.count(EventKind.DISCARDED)
    assert m["penalties"] == kinds.count(EventKind.CANNOT_PAY) + kinds.count(EventKind.REFUSED)
    assert m["shared"] == result.shared
    assert len(m["category_winner"]) == len(ruleset.categories)
    assert sum(len(c.dice) for c in ruleset.categories) == len(m["dice"])
    assert all(1 <= v <= 6 for v in m["dice"].values())
    assert m["gift_leaders"] and set(m["gift_leaders"]) <= set(range(players))
    assert 0 < m["decided_at"] <= 1 and m["lead_changes"] >= 0
    if m["tiebreak_depth"] == 0:
        vp = m["vp"]
        assert sorted(vp)[-1] > sorted(vp)[-2]  # victory points alone decided
    else:
        assert max(m["vp"]).__eq__(sorted(m["vp"])[-2])  # a tie on victory points went to the tie-break


@pytest.mark.parametrize(
    ("name", "players", "bot"),
    [
        ("biblios", 4, "medium"),
        ("biblios", 2, "random"),
        ("second-place-dice", 3, "easy"),
        ("scripts-and-scribes", 3, "random"),
    ],
)
def test_measured_while_played_equals_a_replay(name: str, players: int, bot: str) -> None:
    """The lab measures a game as it is played; the replay scored by the engine's score_hands is the reference."""
    ruleset = load_ruleset(name)
    for index in range(4):
        seed = game_seed(7, index)
        seats = (bot,) * players
        reference = measure(ruleset, players, seed, play(ruleset, players, seed, seats))
        assert play_and_measure(ruleset, players, seed, seats) == reference
        restricted = play(ruleset, players, seed, seats, 1, "no-church")
        live = play_and_measure(ruleset, players, seed, seats, 1, "no-church")
        assert {**live, "overrides": 0, "choices": 0} == measure(ruleset, players, seed, restricted, 1)
        assert 0 <= live["overrides"] <= live["choices"] < live["decisions"]


@pytest.mark.parametrize(
    ("name", "options", "players"),
    [("biblios", (), 2), ("biblios", (), 4), ("second-place-dice", (), 3), ("complete-library", (), 3),
     ("complete-library", ("count-the-books",), 2)],
)  # fmt: skip
def test_projected_points_are_the_engines_score(name: str, options: tuple[str, ...], players: int) -> None:
    """The lab's fast projection gives score_hands' victory points at every step of random games (set bonuses
    and multiplied dice included)."""
    import random

    from biblios_kit.engine import compile_rules
    from biblios_kit.engine.scoring import score_hands
    from biblios_kit.lab.projector import Projector

    ruleset = load_ruleset(name, list(options))
    rules = compile_rules(ruleset)
    for seed in range(12):
        state = new_game(ruleset, players, seed)
        projector = Projector(rules, players)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(state.random_action(rng))
            hands = [list(state.hand(p)) for p in range(players)]
            projected = projector.project([hand[:] for hand in state.hands], state.dice[:])
            assert projected == score_hands(rules, hands, list(state.dice_values())).victory_points


def test_leads_by_hand() -> None:
    """Lead changes count the sole leader changing (ties in between do not); the decisive point is the
    first checkpoint from which a winner leads, alone or tied, to the end."""
    from biblios_kit.lab.projector import leaders, leads

    checkpoints = [(0, (0, 0)), (3, (2, 0)), (5, (2, 3)), (6, (3, 3)), (8, (4, 3)), (9, (4, 4))]
    assert [leaders(vp) for _done, vp in checkpoints] == [0b11, 0b01, 0b10, 0b11, 0b01, 0b11]
    assert leads(checkpoints, 0b10, 9) == (2, 9)  # seat 1 won: it leads (tied) only at the last checkpoint
    assert leads(checkpoints, 0b01, 9) == (2, 6)  # seat 0 won: it leads from decision 6 on
    assert leads([(0, (1, 0, 0)), (4, (0, 0, 2))], 0b100, 4) == (1, 4)
    assert leads([(0, (0, 0))], 0b11, 0) == (0, 0)


@pytest.mark.parametrize(("name", "players"), [("biblios", 4), ("second-place-dice", 3), ("complete-library", 2)])
def test_result_figures_read_the_result(name: str, players: int) -> None:
    """Win shares, first-place winners and dice faces, against a plain reading of the engine's result."""
    from biblios_kit.lab.projector import event_counts, result_figures

    ruleset = load_ruleset(name)
    for index in range(6):
        state = play_game(ruleset, players, game_seed(3, index), ("random",) * players, boundary=lambda *_: None)
        result = state.result()
        win, category_winner, dice = result_figures(result)
        assert win == [result.win_share(p) for p in range(players)]
        assert category_winner == [
            next((a.winner if a.winner is not None else -1 for a in c.awards if a.place == 1), -1)
            for c in result.categories
        ]
        expected = {
            f"{k}" if a.place == 1 else f"{k}:{a.place}": a.value
            for k, c in enumerate(result.categories, start=1)
            for a in c.awards
        }
        assert dice == expected and list(dice) == list(expected)
        kinds = [e.kind for e in state.events_for(0)]
        assert event_counts(state) == (
            kinds.count(EventKind.REVEALED),
            kinds.count(EventKind.DISCARDED),
            kinds.count(EventKind.CANNOT_PAY) + kinds.count(EventKind.REFUSED),
        )


def test_second_place_dice_are_measured_by_place() -> None:
    m = play_and_measure(load_ruleset("second-place-dice"), 3, 11, ("random",) * 3)
    assert set(m["dice"]) == {"1", "1:2", "2", "2:2", "3", "3:2", "4", "4:2", "5", "5:2"}


def test_seats_rotate_in_every_arm() -> None:
    assert seats_for(MAIN, ("medium",), 3, 5) == (("medium",) * 3, -1)
    rotations = {seats_for(MAIN, ("easy", "medium"), 2, i)[0] for i in range(4)}
    assert rotations == {("easy", "medium"), ("medium", "easy")}
    skill = Arm("skill", strong="medium", weak="easy")
    assert [seats_for(skill, ("medium",), 3, i) for i in range(3)] == [
        (("medium", "easy", "easy"), 0),
        (("easy", "medium", "easy"), 1),
        (("easy", "easy", "medium"), 2),
    ]
    assert seats_for(Arm("restrict", restriction="no-church"), ("easy",), 4, 6) == (("easy",) * 4, 2)


# --------------------------------------------------------------------------- restricted play


class _Checking:
    """Wraps a restricted bot and records, at each of its decisions, whether the rule could be and was obeyed."""

    def __init__(self, bot: RestrictedBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.seen: list[tuple[bool, bool]] = []

    def choose(self, observation: Observation) -> int:
        action = self.bot.choose(observation)
        rule = self.bot.restriction.allowed
        possible = any(rule(self.bot.ruleset, observation, a) for a in observation.legal_actions)
        self.seen.append((possible, rule(self.bot.ruleset, observation, action)))
        assert action in observation.legal_actions
        return action


@pytest.mark.parametrize("name", sorted(RESTRICTIONS))
def test_a_restricted_bot_obeys_its_restriction(name: str) -> None:
    from biblios_kit.bots.registry import make_bot

    ruleset = load_ruleset("biblios")
    overridden = 0
    for seed in range(3):
        state = new_game(ruleset, 3, seed)
        restricted = RestrictedBot(make_bot("random", seed, ruleset), RESTRICTIONS[name], ruleset)
        checking = _Checking(restricted)
        bots = [checking, make_bot("random", 100 + seed, ruleset), make_bot("random", 200 + seed, ruleset)]
        while not state.is_terminal():
            player = state.current_player
            assert player is not None
            state.apply(bots[player].choose(state.observation(player)))
        assert all(obeyed for possible, obeyed in checking.seen if possible)
        overridden += restricted.overridden
    assert overridden > 0  # random play breaks every restriction sometimes: the wrapper did step in


def test_restrictions_forbid_what_they_say() -> None:
    from biblios_kit.engine import BID, CHURCH

    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 1)
    obs = state.observation(0)
    assert RESTRICTIONS["no-church"].allowed(ruleset, obs, DECLINE)
    assert not RESTRICTIONS["no-church"].allowed(ruleset, obs, CHURCH + 2)
    assert not RESTRICTIONS["never-bid"].allowed(ruleset, obs, BID + 1)
    assert RESTRICTIONS["never-bid"].allowed(ruleset, obs, PASS)
    gold = obs.drawn is not None and ruleset.deck[obs.drawn].kind.value == "gold"
    assert RESTRICTIONS["no-gold-keep"].allowed(ruleset, obs, KEEP) is not gold


def test_restricted_play_is_reproducible_and_differs_from_free_play() -> None:
    ruleset = load_ruleset("biblios")
    seats = ("easy",) * 3
    free = play(ruleset, 3, 9, seats)
    never = play(ruleset, 3, 9, seats, focus=1, restriction_name="never-bid")
    assert never == play(ruleset, 3, 9, seats, focus=1, restriction_name="never-bid")
    assert never != free


# --------------------------------------------------------------------------- statistics


def test_wilson_matches_scipy() -> None:
    from scipy.stats import binomtest, norm

    from biblios_kit.sim.stats import CONFIDENCE, Z95

    assert float(norm.ppf(0.5 + CONFIDENCE / 2)) == Z95  # written out so simulate needs no scipy

    for k, n in ((0, 10), (3, 10), (50, 100), (99, 100)):
        expected = binomtest(k, n).proportion_ci(method="wilson")
        low, high = wilson_interval(k / n, n)
        assert low == pytest.approx(expected.low) and high == pytest.approx(expected.high)


def test_t_interval_and_estimates() -> None:
    low, high = t_interval([1.0, 2.0, 3.0, 4.0])  # mean 2.5, sd 1.29, t(3) 3.182
    assert low == pytest.approx(2.5 - 3.182446 * 1.290994 / 2, rel=1e-5)
    assert high == pytest.approx(2.5 + 3.182446 * 1.290994 / 2, rel=1e-5)
    assert t_interval([2.0, 2.0]) == (2.0, 2.0)
    e = estimate("x", "mean", [1, None, 3], bootstrap=True)
    assert e is not None and e.n == 2 and e.value == 2 and e.low <= 2 <= e.high
    assert estimate("x", "rate", [None]) is None


def test_holm_adjustment() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert holm([]) == []


@given(st.lists(st.floats(min_value=0, max_value=1), max_size=30))
def test_holm_never_lowers_a_p_value_and_keeps_the_order(p_values: list[float]) -> None:
    adjusted = holm(p_values)
    assert all(p <= a <= 1 for p, a in zip(p_values, adjusted))
    for i, j in itertools.combinations(range(len(p_values)), 2):
        if p_values[i] < p_values[j]:
            assert adjusted[i] <= adjusted[j]


@given(st.integers(min_value=1, max_value=10_000), st.data())
def test_wilson_interval_contains_the_rate(n: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(min_value=0, max_value=n))
    low, high = wilson_interval(k / n, n)
    assert 0 <= low <= k / n <= high <= 1


def test_comparisons_and_seat_test() -> None:
    same = compare("k", "rate", [1, 0, 1, 0], [1, 0, 1, 0])
    assert same is not None and same.diff == 0 and same.p == 1
    constant = compare("k", "mean", [3, 3, 3], [3, 3, 3])
    assert constant is not None and constant.p == 1
    apart = compare("k", "mean", [1, 2, 1, 2, 1, 2] * 5, [5, 6, 5, 6, 5, 6] * 5)
    assert apart is not None and apart.diff == pytest.approx(4) and apart.p < 1e-6
    rates = compare("k", "rate", [0] * 90 + [1] * 10, [0] * 40 + [1] * 60)
    assert rates is not None and rates.p < 1e-6
    even = seat_test([10, 10, 10])
    assert even is not None and even.p == pytest.approx(1)
    skewed = seat_test([60, 20, 20])
    assert skewed is not None and skewed.significant


def test_difference_intervals_and_power_match_known_answers() -> None:
    from biblios_kit.sim.stats import _newcombe, fair_share_test, games_needed

    # Newcombe (1998), example (a): 56/70 against 48/80, difference 0.2000 in 0.0524 to 0.3339
    low, high = _newcombe([1] * 48 + [0] * 32, [1] * 56 + [0] * 14)
    assert low == pytest.approx(0.0524, abs=1e-4) and high == pytest.approx(0.3339, abs=1e-4)
    rates = compare("k", "rate", [1] * 48 + [0] * 32, [1] * 56 + [0] * 14)
    assert rates is not None and (rates.low, rates.high) == pytest.approx((low, high))
    means = compare("k", "mean", [1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 6.0, 8.0])
    from scipy.stats import ttest_ind

    expected = ttest_ind([2.0, 4.0, 6.0, 8.0], [1.0, 2.0, 3.0, 4.0], equal_var=False).confidence_interval()
    assert means is not None and (means.low, means.high) == pytest.approx((expected.low, expected.high))
    # (1.96 + 0.8416)^2 * 2 * 0.25 / 0.05^2 = 1569.8: 1570 games per ruleset; half of it against a fixed share
    assert games_needed(0.5, 0.05) == 1570 and games_needed(0.5, 0.05, two_samples=False) == 785
    fair = fair_share_test("seat_win.1", [1.0] * 58 + [0.0] * 42, 2)
    assert fair is not None and fair.diff == pytest.approx(0.08) and fair.p == pytest.approx(0.1096, abs=1e-3)


# --------------------------------------------------------------------------- experiments, A/A, resume


def _experiment(*refs: RulesetRef, games: int = 20, arms: tuple[Arm, ...] = (MAIN,), **kw) -> Experiment:
    return Experiment(tuple(refs), kw.pop("players", (3,)), kw.pop("bots", ("random",)), arms, games=games, **kw)


def test_aa_identical_rulesets_show_no_difference(tmp_path: Path) -> None:
    experiment = _experiment(_ref("biblios"), _ref("biblios", label="copy"), games=40)
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "aa.jsonl")
    base, copy = report.cells
    assert copy.differences and all(d.diff == 0 and not d.significant for d in copy.differences.values())
    assert base.estimates == copy.estimates


def test_a_real_difference_is_flagged(tmp_path: Path) -> None:
    experiment = _experiment(_ref("biblios"), _ref("second-place-dice"), games=60)
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "ab.jsonl")
    differences = report.cells[1].differences
    assert differences["vp_mean"].significant and differences["vp_mean"].diff > 2  # second dice add points
    assert all(d.p_adjusted >= d.p for d in differences.values())
    assert not any(d.significant for k, d in differences.items() if k.startswith("seat_win"))


def test_skill_gradient_and_both_editions(tmp_path: Path) -> None:
    skill = Arm("skill", strong="easy", weak="random")
    experiment = _experiment(_ref("scripts-and-scribes"), _ref("biblios"), games=15, arms=(MAIN, skill))
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "skill.jsonl")
    by_key = {(c.label, c.arm): c for c in report.cells}
    for label in ("scripts-and-scribes", "biblios"):
        strong = by_key[(label, "skill:easy>random")].estimates["focus_win"]
        assert strong.n == 15 and strong.value > 0.6  # the easy bot beats random ones most of the time
    # Categories are compared by board position across editions (Illuminators with Monks...).
    assert "category_by_winner.1" in by_key[("biblios", "main")].differences


def test_a_restriction_that_never_bites_is_flagged_and_not_compared(tmp_path: Path) -> None:
    """Medium bots never bid beyond their means: no-bluff changes no game, so nothing is tested for it."""
    arms = (MAIN, Arm("restrict", restriction="no-bluff"), Arm("restrict", restriction="never-bid"))
    experiment = _experiment(
        _ref("biblios"), _ref("second-place-dice"), games=30, arms=arms, players=(2,), bots=("medium",)
    )
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "r.jsonl")
    cells = {(c.ruleset, c.arm): c for c in report.cells}
    for ruleset in (0, 1):
        idle = cells[(ruleset, "restrict:no-bluff")]
        assert idle.effect is not None and idle.no_effect and idle.effect.choices > 0
        assert idle.effect.share_of_games == 0 and idle.gap is None and not idle.differences
        bites = cells[(ruleset, "restrict:never-bid")]
        assert bites.effect is not None and not bites.no_effect
        assert bites.effect.share_of_games == 1 and 0 < bites.effect.share_of_decisions < 1
        # Jaffe's gap: the restricted bot against the unrestricted one on the same deals, in the same seat
        assert bites.gap is not None and bites.gap.family == "primary" and bites.gap.diff < 0
    assert cells[(1, "restrict:never-bid")].differences
    text = out.to_json(report)
    data = json.loads(text)
    idle_json = next(c for c in data["cells"] if c["arm"] == "restrict:no-bluff")
    assert idle_json["restriction"]["no_effect"] is True
    assert all("p" not in m for m in idle_json["metrics"].values())
    from rich.console import Console

    console = Console(record=True, width=200)
    out.render_terminal(report, console)
    assert "No effect with these bots" in console.export_text()


def test_the_primary_family_is_corrected_on_its_own(tmp_path: Path) -> None:
    from biblios_kit.lab.stats import PRIMARY

    arms = (MAIN, Arm("restrict", restriction="never-bid"))
    experiment = _experiment(_ref("biblios"), _ref("second-place-dice"), games=40, arms=arms, players=(2, 3))
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "f.jsonl")
    tests: dict[str, list] = {"primary": [], "secondary": []}
    for cell in report.cells:
        found = [*cell.differences.values(), *cell.fair.values(), *([cell.gap] if cell.gap else [])]
        for d in found:
            tests[d.family].append(d)
        for key, d in cell.differences.items():
            expected = cell.arm == "main" and key.startswith(tuple(PRIMARY))
            assert (d.family == "primary") is expected, key
        if cell.arm == "main":
            assert set(cell.fair) == {f"seat_win.{s + 1}" for s in range(cell.players)}
            assert all(d.family == "primary" for d in cell.fair.values())
    for family, found in tests.items():
        assert found
        assert [d.p_adjusted for d in found] == pytest.approx(holm([d.p for d in found])), family
    assert len(tests["primary"]) < len(tests["secondary"])
    # no complement ("won by someone" is 1 - "won by nobody") and no constant tested
    keys = {k for cell in report.cells for k in cell.differences}
    assert not any(k.startswith("category_won") for k in keys)
    restricted = next(c for c in report.cells if c.ruleset == 1 and c.arm == "restrict:never-bid")
    assert "changed" not in restricted.differences


class _Interrupting(InProcessBackend):
    """Plays ``after`` jobs, then behaves like Ctrl-C."""

    def __init__(self, after: int) -> None:
        self.after = after

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[Job, list[GameRow]]]:
        for number, item in enumerate(super().run(jobs)):
            if number == self.after:
                raise KeyboardInterrupt
            yield item


def test_resume_gives_the_same_figures_without_replaying(tmp_path: Path) -> None:
    experiment = _experiment(_ref("biblios"), _ref("second-place-dice"), games=30, batch=5)
    whole = run_experiment(experiment, InProcessBackend(), tmp_path / "whole.jsonl")
    path = tmp_path / "cut.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment, _Interrupting(after=5), path)
    assert len(read_results(path, experiment)) == 25
    with path.open("a") as handle:
        handle.write('{"cell": "0|3|main", "ind')  # a line cut short by a crash
    resumed = run_experiment(experiment, InProcessBackend(), path, resume=True)
    assert resumed.played == 35 and resumed.resumed == 25
    assert _figures(resumed) == _figures(whole)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 60 and all(json.loads(line) for line in lines)
    again = run_experiment(experiment, InProcessBackend(), path, resume=True)
    assert again.played == 0 and _figures(again) == _figures(whole)


def test_results_of_another_experiment_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run_experiment(_experiment(_ref("biblios"), games=5), InProcessBackend(), path)
    other = _experiment(_ref("biblios"), games=5, seed=1)
    with pytest.raises(ResultsFileError):
        run_experiment(other, InProcessBackend(), path, resume=True)
    (tmp_path / "junk.jsonl").write_text("hello\n")
    with pytest.raises(ResultsFileError):
        read_results(tmp_path / "junk.jsonl", other)


def test_precision_stops_each_cell_when_narrow_enough(tmp_path: Path) -> None:
    experiment = _experiment(
        _ref("biblios"), games=120, precision=0.5, round_size=40, arms=(MAIN, Arm("restrict", restriction="never-bid"))
    )
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "p.jsonl")
    for cell in report.cells:
        assert cell.games in (40, 80, 120)
        assert cell.widest_rate <= 0.5 or cell.games == 120
    capped = _experiment(_ref("biblios"), games=60, precision=0.01, round_size=40)
    report = run_experiment(capped, InProcessBackend(), tmp_path / "c.jsonl")
    assert [c.games for c in report.cells] == [60]


def test_jobs_are_pure(tmp_path: Path) -> None:
    ref = _ref("biblios")
    job = Job(ref, "0|3|main", 3, MAIN, ("random",), 4, 2, 5)
    rows = run_job(job)
    assert [r["index"] for r in rows] == [2, 3, 4] and rows == run_job(job)
    rebuilt = RulesetRef(ref.label, json.loads(json.dumps(ref.document)), ref.active_options, "", (), ref.content_hash)
    assert rebuilt.build().content_hash == ref.content_hash


# --------------------------------------------------------------------------- sweeps


def test_patch_writes_lists_whole_and_mappings_nested() -> None:
    document = {"dice": [{"place": 1, "start": 3}], "setup": {2: {"gift_cards": 3}}}
    patch = patch_for(document, [(("dice", 0, "start"), 4), (("setup", 2, "gift_cards"), 5)])
    assert patch == {"dice": [{"place": 1, "start": 4}], "setup": {2: {"gift_cards": 5}}}
    assert document["dice"][0]["start"] == 3  # unchanged


def test_sweep_applies_values_and_skips_invalid_ones() -> None:
    points, skipped = sweep_rulesets("biblios", [], ["dice[0].start=2,4,9", "setup.3.gift_cards=4"])
    assert [p.ruleset.categories[0].dice[0].start for p in points] == [2, 4]
    assert all(p.ruleset.setups[3].gift_cards == 4 for p in points)
    assert points[0].values == {"dice[0].start": "2", "setup.3.gift_cards": "4"}
    assert len(skipped) == 1 and "dice[0].start=9" in skipped[0] and "at most 6" in skipped[0]
    with pytest.raises(SetError, match="no field 'bogus'"):
        sweep_rulesets("biblios", [], ["dice.0.bogus=1"])
    points, skipped = sweep_rulesets("biblios", [], ["dice=3"])
    assert points == [] and "expected a list" in skipped[0]
    with pytest.raises(SetError):
        sweep_rulesets("biblios", [], ["dice.0.start"])
    # values whose YAML tag cannot build a value are skipped like any wrong value, not a crash
    points, skipped = sweep_rulesets("biblios", [], ["dice[0].start=!!timestamp x,2024-02-30,!!int x,3"])
    assert [p.ruleset.categories[0].dice[0].start for p in points] == [3]
    assert len(skipped) == 3 and all("dice[0].start" in line for line in skipped)


def test_sweep_a_card_value_with_a_whole_mapping() -> None:
    assert split_values("{2: ABCD, 3: EFG, 4: I, 5: H},{2: ABCD, 3: EFGHI},x") == [
        "{2: ABCD, 3: EFG, 4: I, 5: H}",
        "{2: ABCD, 3: EFGHI}",
        "x",
    ]
    points, skipped = sweep_rulesets("biblios", [], ["categories.monks.cards={2: ABCD, 3: EFG, 4: I, 5: H},{2: ABCD}"])
    assert skipped == []
    monks = [sorted((c.value, c.letter) for c in p.ruleset.deck if c.category == "monks") for p in points]
    assert monks[0][-2:] == [(4, "I"), (5, "H")]  # card H now worth 5
    assert monks[1] == [(2, "A"), (2, "B"), (2, "C"), (2, "D")]  # the dropped values are gone, not merged back
    assert [c.value for c in points[0].ruleset.deck if c.category == "pigments"] == [
        c.value for c in load_ruleset("biblios").deck if c.category == "pigments"
    ]


# --------------------------------------------------------------------------- reports


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> LabReport:
    experiment = Experiment(
        (_ref("biblios"), _ref("second-place-dice")),
        (2, 3),
        ("random",),
        (MAIN, Arm("restrict", restriction="no-church")),
        games=12,
    )
    return run_experiment(experiment, InProcessBackend(), tmp_path_factory.mktemp("lab") / "r.jsonl")


def test_json_and_csv_reports(small_report: LabReport) -> None:
    data = json.loads(out.to_json(small_report))
    assert len(data["cells"]) == 8 and data["language"] == "en"
    metric = data["cells"][4]["metrics"]["vp_mean"]
    assert metric["label"] == "Victory points, mean per player" and "p_holm" in metric
    rows = list(csv.DictReader(io.StringIO(out.to_csv(small_report))))
    assert set(rows[0]) == set(out.CSV_COLUMNS)
    assert {r["arm"] for r in rows} == {"main", "restrict:no-church"}
    assert all(float(r["ci95_low"]) <= float(r["value"]) <= float(r["ci95_high"]) for r in rows)


def test_html_report_is_self_contained_and_localized(small_report: LabReport) -> None:
    use_language("fr")
    page = out.to_html(small_report)
    assert page.startswith("<!DOCTYPE html>") and '<html lang="fr">' in page
    assert page.count("<svg") >= 3 + 3 + 2  # seat rates, VP and categories per main group, VP and categories per arm
    assert "<script" not in page and "src=" not in page and "@import" not in page
    assert "Taux de victoire" in page and "Moines" in page
    assert out.to_html(small_report) == page  # reproducible


def _chromium() -> str | None:
    import shutil

    return next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)


@pytest.mark.skipif(
    _chromium() is None and not os.environ.get("CI"),
    reason="no Chromium on this machine (apt-get install chromium to run it); never skipped in CI",
)
def test_the_report_opens_in_headless_chromium_with_its_summary_first(small_report: LabReport, tmp_path: Path) -> None:
    """Chromium parses the page offline; the summary in plain words comes before the charts, then the tables."""
    import subprocess

    from biblios_kit.lab.summary import findings

    use_language("fr")
    page = tmp_path / "rapport.html"
    page.write_text(out.to_html(small_report), encoding="utf-8")
    browser = _chromium()
    assert browser is not None, "Chromium is needed in CI"
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout.replace("&nbsp;", "\xa0")  # fmt: skip
    assert '<section id="summary">' in dom and "Résumé" in dom
    first = findings(small_report)[0].text
    assert first.startswith("À 2 joueurs, dans biblios, le siège") and html_escape(first, quote=False) in dom
    assert (
        dom.index("Résumé") < dom.index("Graphiques") < dom.index("<svg") < dom.index("Tableaux") < dom.index("<table")
    )
    assert 'name="viewport"' in dom


def test_charts_have_titles_axis_labels_and_the_fair_share(small_report: LabReport) -> None:
    rulesets = [ref.build() for ref in small_report.experiment.rulesets]
    main = next(cells for players, arm, cells in out.groups(small_report) if arm == "main" and players == 2)
    for figure in (
        out.seat_rates_figure(main),
        out.nobody_figure(main, rulesets),
        out.categories_figure(main, rulesets),
    ):
        (axes,) = figure.axes
        assert axes.get_title() and axes.get_xlabel() and axes.get_ylabel()
        legend = axes.get_legend()
        assert legend is not None and legend.get_bbox_to_anchor().y0 < axes.bbox.y0  # under the plot, not on a bar
    restricted = out.restricted_figure(small_report, 2)
    assert restricted is not None
    (axes,) = restricted.axes
    assert "fair share 50%" in [t.get_text() for t in axes.texts]
    assert any(abs(line.get_ydata()[0] - 0.5) < 1e-9 for line in axes.get_lines())


def test_sweep_charts_show_the_metrics_that_moved_most(tmp_path: Path) -> None:
    points, _skipped = sweep_rulesets("biblios", (), ["dice.0.start=2,6"])
    refs = [RulesetRef.of(p.ruleset, p.label) for p in points]
    report = run_experiment(_experiment(*refs, games=30), InProcessBackend(), tmp_path / "s.jsonl")
    report.sweep = [p.values for p in points]
    (cells,) = [cells for _players, arm, cells in out.groups(report) if arm == "main"]
    keys = out.sweep_keys(cells)
    assert keys[0] == "seat_win.1" and len(keys) == out.SWEEP_PLOTS
    # every die starts 4 faces higher: final dice and victory points move most, far beyond their intervals
    assert "vp_mean" in keys and any(k.startswith("die.") for k in keys)
    assert "decisions" not in keys  # the dice do not change how the game is played by random bots
    page = out.to_html(report)
    assert page.count("<svg") == 4 + len(keys)  # seats, left to nobody, decisiveness, victory points, then the sweep


def test_the_summary_is_exported_as_png_and_pdf(small_report: LabReport) -> None:
    assert out.summary_bytes(small_report, "png").startswith(b"\x89PNG\r\n")
    assert out.summary_bytes(small_report, "pdf").startswith(b"%PDF")


def test_the_summary_surfaces_categories_left_to_nobody(tmp_path: Path) -> None:
    """At 2 players, second-place-dice leaves categories to nobody 20-45% of the time: the summary says so itself."""
    from biblios_kit.lab.summary import findings

    experiment = _experiment(_ref("biblios"), _ref("second-place-dice"), games=60, players=(2,), bots=("medium",))
    report = run_experiment(experiment, InProcessBackend(), tmp_path / "n.jsonl")
    texts = [f.text for f in findings(report)]
    nobody = [t for t in texts if "is left to nobody" in t]
    assert nobody and all("second-place-dice" in t for t in nobody)
    assert texts[0].startswith("At 2 players, in biblios, seat ")
    assert any(t.startswith("To detect a 2-point gap") for t in texts)


def test_terminal_report(small_report: LabReport) -> None:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=200)
    out.render_terminal(small_report, console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert "Win rate, seat 1" in text and "restricted play: no-church" in text and "Equal seats" in text


# --------------------------------------------------------------------------- CLI


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(build_app(), list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_cli_compare_json_aa(tmp_path: Path) -> None:
    code, stdout, _err = _cli(
        "lab", "compare", "biblios", "biblios", "-p", "3", "-b", "random", "-g", "10", "--in-process",
        "--json", "--results", str(tmp_path / "r.jsonl"),
    )  # fmt: skip
    assert code == 0
    data = json.loads(stdout)
    labels = [c["ruleset"] for c in data["cells"]]
    assert labels == ["biblios", "biblios (2)"]
    assert not any(m.get("significant") for m in data["cells"][1]["metrics"].values())


def test_cli_sweep_csv_html_and_resume(tmp_path: Path) -> None:
    args = [
        "lab", "sweep", "biblios", "--set", "dice.0.start=2,9,4", "-p", "2", "-b", "random", "-g", "6",
        "--in-process", "--results", str(tmp_path / "s.jsonl"), "--lang", "es",
    ]  # fmt: skip
    code, stdout, stderr = _cli(*args, "--csv", "--html", str(tmp_path / "s.html"))
    assert code == 0 and "dice.0.start=9" in stderr and "Traceback" not in stderr
    rows = list(csv.DictReader(io.StringIO(stdout)))
    assert {r["ruleset"] for r in rows} == {"biblios dice.0.start=2", "biblios dice.0.start=4"}
    page = (tmp_path / "s.html").read_text()
    assert '<html lang="es">' in page and "Monjes" in page
    code, stdout, _err = _cli(*args, "--json", "--resume")
    assert code == 0 and json.loads(stdout)["played"] == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "nonesuch"], "nonesuch"),
        (["compare", "biblios", "-o", "no-such-option"], "no-such-option"),
        (["compare", "biblios", "-p", "7"], "7"),
        (["compare", "biblios", "-p", "three"], "--players"),
        (["compare", "biblios", "-b", "genius"], "genius"),
        (["compare", "biblios", "--restrict", "no-fun"], "no-fun"),
        (["compare", "biblios", "-g", "0"], "--games"),
        (["compare", "biblios", "--precision", "2"], "--precision"),
        (["sweep", "biblios", "--set", "dice.0.colour=3"], "colour"),
        (["sweep", "biblios", "--set", "dice.0.start=abc"], "abc"),
        (["sweep", "biblios", "--set", "nonsense"], "FIELD=VALUE"),
        (["compare", "biblios", "--cluster", "tcp://127.0.0.1:9"], "127.0.0.1:9"),
        (["compare"], "rulesets to compare"),
        (["sweep", "--set", "dice.0.start=2"], "--ruleset"),
        (["sweep", "biblios", "-r", "biblios", "--set", "dice.0.start=2"], "--ruleset"),
        (["sweep", "biblios"], "--set"),
    ],
)
def test_cli_bad_input_exits_2_without_traceback(args: list[str], needle: str, tmp_path: Path) -> None:
    code, stdout, stderr = _cli("lab", *args, "--results", str(tmp_path / "r.jsonl"))
    assert code == 2, stdout + stderr
    assert needle in stderr and "Traceback" not in stderr + stdout


def test_cli_takes_rulesets_as_arguments_or_with_the_shared_flag(tmp_path: Path) -> None:
    common = ["-p", "2", "-b", "random", "-g", "3", "--in-process", "--json"]
    code, stdout, _err = _cli(
        "lab", "compare", "-r", "biblios", "-r", "second-place-dice", *common, "--results", str(tmp_path / "a")
    )
    flagged = json.loads(stdout)
    code2, stdout2, _err = _cli(
        "lab", "compare", "biblios", "second-place-dice", *common, "--results", str(tmp_path / "b")
    )
    assert code == code2 == 0 and flagged["cells"] == json.loads(stdout2)["cells"]
    code, stdout, _err = _cli(
        "lab", "sweep", "-r", "biblios", "--set", "gold.1=10,12", *common, "--results", str(tmp_path / "c")
    )
    assert code == 0 and [c["ruleset"] for c in json.loads(stdout)["cells"]] == [
        "biblios gold.1=10",
        "biblios gold.1=12",
    ]


def test_cli_refuses_a_results_file_of_another_experiment(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    base = ["lab", "compare", "biblios", "-p", "2", "-b", "random", "-g", "3", "--in-process", "--results", str(path)]
    assert _cli(*base, "--json")[0] == 0
    code, _out, stderr = _cli(*base, "--seed", "5", "--resume")
    assert code == 2 and "another experiment" in stderr


def test_precision_flag_reports_capped_games(tmp_path: Path) -> None:
    code, stdout, _err = _cli(
        "lab", "compare", "biblios", "-p", "2", "-b", "random", "--precision", "0.001", "--max-games", "20",
        "--in-process", "--json", "--results", str(tmp_path / "r.jsonl"),
    )  # fmt: skip
    assert code == 0 and json.loads(stdout)["cells"][0]["games"] == 20
    assert not math.isnan(json.loads(stdout)["cells"][0]["metrics"]["margin"]["value"])


def test_lab_help_imports_no_heavy_library() -> None:
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "biblios_kit", "lab", "compare", "--help"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=60,
    )
    assert proc.returncode == 0 and "--precision" in proc.stdout
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "biblios_kit.cli.lab_cmds" in imported
    heavy = sorted(n for n in imported if n.split(".")[0] in ("dask", "distributed", "scipy", "matplotlib", "numpy"))
    assert heavy == []


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_metric_labels_contract_the_article_of_each_edition_term(lang: str) -> None:
    from biblios_kit.i18n import in_language
    from biblios_kit.lab.names import metric_label
    from biblios_kit.rules import load_ruleset

    for ruleset_id in ("biblios", "scripts-and-scribes"):
        ruleset = load_ruleset(ruleset_id)
        with in_language(lang):
            label = metric_label("comeback", ruleset)
        assert " de le " not in label and " de el " not in label, label
        assert ("de la " if lang == "fr" and ruleset_id == "biblios" else "de l") in label, label


# --------------------------------------------------------------------------- reports in the reader's language


@pytest.fixture(scope="module")
def editions_report(tmp_path_factory: pytest.TempPathFactory) -> LabReport:
    experiment = Experiment((_ref("biblios"), _ref("scripts-and-scribes")), (3,), ("random",), (MAIN,), games=6)
    return run_experiment(experiment, InProcessBackend(), tmp_path_factory.mktemp("lab") / "e.jsonl")


def _tick_texts(figure: Any, axis: str = "y") -> list[str]:
    figure.draw_without_rendering()
    (axes,) = figure.axes
    labels = axes.get_yticklabels() if axis == "y" else axes.get_xticklabels()
    return [label.get_text() for label in labels if label.get_text()]


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", ["0.00", "0.25", "0.50", "0.75", "1.00", "1.25", "1.50"]),
        ("fr", ["0,00", "0,25", "0,50", "0,75", "1,00", "1,25", "1,50"]),
        ("es", ["0,00", "0,25", "0,50", "0,75", "1,00", "1,25", "1,50"]),
    ],
)
def test_tick_labels_use_the_languages_decimal_format(lang: str, expected: list[str]) -> None:
    from matplotlib.figure import Figure

    use_language(lang)
    figure = Figure()
    axes = figure.subplots()
    axes.plot([0, 1.5], [0, 1.5])
    axes.set_yticks([0, 0.25, 0.5, 0.75, 1, 1.25, 1.5])
    axes.yaxis.set_major_formatter(out.tick_formatter(out.DECIMAL_AXIS))
    assert _tick_texts(figure) == expected


@pytest.mark.parametrize(
    ("lang", "rate", "count"),
    [("en", "12.5%", "1,000"), ("fr", "12,5\u00a0%", "1\u202f000"), ("es", "12,5\u00a0%", "1000")],
)
def test_rate_and_count_ticks_in_each_language(lang: str, rate: str, count: str) -> None:
    assert out.tick_formatter(out.RATE_AXIS, lang)(0.125) == rate
    assert out.tick_formatter(out.COUNT_AXIS, lang)(1000) == count


@pytest.mark.parametrize(("lang", "percent"), [("fr", "\u00a0%"), ("es", "\u00a0%"), ("en", "%")])
def test_report_charts_write_numbers_as_the_language_does(editions_report: LabReport, lang: str, percent: str) -> None:
    use_language(lang)
    (_players, _arm, cells), *_rest = list(out.groups(editions_report))
    rulesets = [ref.build() for ref in editions_report.experiment.rulesets]
    for figure in (
        out.seat_rates_figure(cells),
        out.categories_figure(cells, rulesets),
        out.vp_figure(editions_report, cells),
    ):
        ticks = _tick_texts(figure)
        assert ticks and all(text.endswith(percent) for text in ticks), ticks
        if lang != "en":
            assert not any("." in text for text in ticks), ticks  # a decimal comma, never a point
    seats = _tick_texts(out.seat_rates_figure(cells), "x")
    assert seats == ["1", "2", "3"]


@pytest.mark.parametrize(
    ("lang", "row", "own"),
    [
        ("en", "Monks: won by the game's winner", "Illuminators: "),
        ("fr", "Moines\u202f: remportée par le vainqueur de la partie", "Enlumineurs\u202f: "),
        ("es", "Monjes: la gana el ganador de la partida", "Iluminadores: "),
    ],
)
def test_each_edition_column_names_its_own_categories(
    editions_report: LabReport, lang: str, row: str, own: str
) -> None:
    use_language(lang)
    (_players, _arm, cells), *_rest = list(out.groups(editions_report))
    rulesets = [ref.build() for ref in editions_report.experiment.rulesets]
    rows = {r[0]: r[1:] for r in out.table_rows(editions_report, cells, rulesets)}
    assert row in rows, sorted(rows)
    biblios, sns = rows[row]
    assert not biblios.startswith(own) and sns.startswith(own)
    # the chart's category ticks name both editions' categories at each place
    ticks = _tick_texts(out.categories_figure(cells, rulesets), "x")
    assert ticks[0] == "\n".join((row.split(":")[0].rstrip("\u202f"), own.rstrip(": \u202f")))
    page = out.to_html(editions_report)
    assert f'<html lang="{lang}">' in page and html_escape(own) in page
