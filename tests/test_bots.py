"""Bots: legal moves in every ruleset, reproducible from a seed, specs, thread use."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import SHIPPED_CHOICES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.bots.heuristic import HeuristicBot
from biblios_kit.bots.ismcts import ISMCTSBot
from biblios_kit.bots.registry import BotSpecError, make_bot
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.state import GameState
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset

ROOT = Path(__file__).resolve().parent.parent
EDITIONS = ["biblios", "scripts-and-scribes"]
VARIANTS = sorted(p.stem for p in (ROOT / "rulesets" / "variants").glob("*.yaml"))
SPECS = ["easy", "medium", "hard:iterations=3", "hard:iterations=3:model=1"]


def play(ruleset: Ruleset, players: int, seed: int, specs: list[str], limit: int | None = None) -> GameState:
    """Play with bots ``specs`` (cycled over the seats), checking each move is legal."""
    state = new_game(ruleset, players, seed)
    bots = [make_bot(specs[p % len(specs)], seed * 31 + p, ruleset) for p in range(players)]
    moves = 0
    while not state.is_terminal() and (limit is None or moves < limit):
        p = state.current_player
        assert p is not None
        observation = state.observation(p)
        action = bots[p].choose(observation)
        assert action in observation.legal_actions, (bots[p].name, observation.phase, action)
        state.apply(action)
        moves += 1
    return state


@st.composite
def games(draw: st.DrawFn) -> tuple[Ruleset, int, int, list[str]]:
    name = draw(st.sampled_from(EDITIONS + VARIANTS))
    base = load_ruleset(name)
    options = draw(st.lists(st.sampled_from(sorted(base.options)), unique=True)) if base.options else []
    ruleset = load_ruleset(name, options)
    players = draw(st.sampled_from(sorted(ruleset.setups)))
    seed = draw(st.integers(0, 2**31))
    specs = draw(st.lists(st.sampled_from(SPECS + ["random"]), min_size=1, max_size=3))
    return ruleset, players, seed, specs


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_bots_play_legal_moves_to_the_end(game: tuple[Ruleset, int, int, list[str]]) -> None:
    ruleset, players, seed, specs = game
    state = play(ruleset, players, seed, specs)
    assert state.is_terminal()
    assert sum(state.result().win_share(p) for p in range(players)) == pytest.approx(1.0)


@pytest.mark.parametrize("name", EDITIONS + VARIANTS)
def test_every_bot_finishes_each_shipped_ruleset(name: str) -> None:
    ruleset = load_ruleset(name)
    players = max(ruleset.setups)
    state = play(ruleset, players, 3, ["medium", "easy", "hard:iterations=2"])
    assert state.is_terminal()


@pytest.mark.parametrize("name,options", SHIPPED_CHOICES)
def test_every_level_plays_legal_moves_and_repeats_its_game_for_a_seed(name: str, options: tuple[str, ...]) -> None:
    """Every edition, option and shipped variant, at its smallest and largest table: each level
    (the search in both modes) plays only legal moves to the end, and the same seeds replay the same game."""
    ruleset = load_ruleset(name, list(options))
    specs = ["hard:iterations=3", "medium", "easy", "hard:iterations=6:paired=1", "random"]
    for players in (min(ruleset.setups), max(ruleset.setups)):
        seats = specs[:players] if players < len(specs) else specs
        first = play(ruleset, players, 5, seats)
        assert first.is_terminal()
        assert play(ruleset, players, 5, seats).actions == first.actions


@pytest.mark.parametrize("spec", SPECS)
def test_same_seed_same_moves(spec: str) -> None:
    ruleset = load_ruleset("biblios")
    first = play(ruleset, 2, 11, [spec], limit=60)
    second = play(ruleset, 2, 11, [spec], limit=60)
    assert first.actions == second.actions


def test_different_seeds_differ_for_noisy_bots() -> None:
    ruleset = load_ruleset("biblios")
    runs = {play(ruleset, 2, seed, ["easy"], limit=80).actions for seed in (1, 2, 3)}
    assert len(runs) == 3


def test_specs_and_parameters() -> None:
    biblios = load_ruleset("biblios")
    assert isinstance(make_bot("medium", 1, biblios), HeuristicBot)
    easy = make_bot("easy", 1, biblios)
    assert isinstance(easy, HeuristicBot) and easy.mistakes > 0 and easy.style.noise > 0
    hard = make_bot("hard:iterations=50:exploration=1.0", 1, biblios)
    assert isinstance(hard, ISMCTSBot) and hard.iterations == 50 and hard.exploration == 1.0
    assert hard.model == 2 and make_bot("hard:model=1", 1, biblios).model == 1  # type: ignore[attr-defined]
    timed = make_bot("hard:seconds=0.05", 1, biblios)
    assert isinstance(timed, ISMCTSBot) and timed.iterations is None and timed.seconds == 0.05
    assert make_bot("medium:bluff=0", 1, biblios).name == "medium:bluff=0"
    tuned = make_bot("medium:deny=0.3:futures=4", 1, biblios)
    assert isinstance(tuned, HeuristicBot) and tuned.style.deny == 0.3 and tuned.style.futures == 4
    for bad in (
        "hard:iterations=0",
        "hard:width=3",
        "hard:depth=-1",
        "medium:noise=loud",
        "easy:mistakes=2",
        "hard:iterations=2.5",
        "hard:model=3",
        "medium:deny=-1",
        "medium:colour=2",
    ):
        with pytest.raises(BotSpecError):
            make_bot(bad, 1, biblios)


def test_single_legal_action_is_taken_without_search() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 4)
    bot = make_bot("hard:iterations=5", 1, ruleset)
    assert isinstance(bot, ISMCTSBot)
    while len(state.legal_actions()) != 1:
        state.apply(state.legal_actions()[0])
    observation = state.observation(state.current_player or 0)
    assert bot.choose(observation) == observation.legal_actions[0]
    assert bot.last_iterations == 0


def test_time_budget_stops_the_search() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 4)
    bot = make_bot("hard:paired=0:seconds=0.05:iterations=10000000", 1, ruleset)
    bot.choose(state.observation(0))
    assert 1 <= bot.last_iterations < 10_000_000  # type: ignore[attr-defined]  # the clock, not the count, stopped it


def test_search_in_worker_threads_matches_sequential() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 8)
    observation = state.observation(0)
    expected = [make_bot("hard:iterations=15", seed, ruleset).choose(observation) for seed in range(4)]
    results: dict[int, int] = {}

    def work(seed: int) -> None:
        results[seed] = make_bot("hard:iterations=15", seed, ruleset).choose(observation)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[seed] for seed in range(4)] == expected


def test_a_bot_plays_the_ruleset_it_was_made_with_and_no_other() -> None:
    """A bot is given its rules when it is made: an observation of other rules (the same id with
    other options) is refused, never played by the wrong rules nor looked up elsewhere."""
    plain = load_ruleset("biblios")
    bluff = load_ruleset("biblios", ["medieval-bluff"])
    plain_view = new_game(plain, 2, 1).observation(0)
    bluff_view = new_game(bluff, 2, 1).observation(0)
    assert plain_view.ruleset_id == bluff_view.ruleset_id
    for spec in ("medium", "hard:iterations=3"):
        bot = make_bot(spec, 1, bluff)
        assert bot.rules is compile_rules(bluff)  # type: ignore[attr-defined]
        assert bot.choose(bluff_view) in bluff_view.legal_actions
        with pytest.raises(ValueError, match="made for ruleset"):
            bot.choose(plain_view)


def test_tree_size_is_bounded() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 6)
    bot = make_bot("hard:paired=0:iterations=200:max_nodes=12", 1, ruleset)
    assert isinstance(bot, ISMCTSBot)
    action = bot.choose(state.observation(0))
    assert action in state.legal_actions()
    assert bot.last_iterations == 200 and 1 < bot.last_nodes <= 12
