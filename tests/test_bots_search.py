"""Hard's search: the analysis is the move it plays; the paired comparison of root moves on common worlds;
the default searches only bids, each world played to the end of the game."""

from __future__ import annotations

import random

import pytest

from biblios_kit.bots.ismcts import ISMCTSBot, _settle_by_heuristic, create_bot
from biblios_kit.bots.registry import make_bot
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.engine.worlds import Worlds
from biblios_kit.errors import BotSpecError
from biblios_kit.rules import load_ruleset

BIBLIOS = load_ruleset("biblios")
"""The ruleset of every position here (:func:`views`)."""


def views(players: int, seed: int, every: int = 5) -> list[Observation]:
    """Observations of the deciding seat at every ``every``-th decision with a choice of a medium game."""
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, players, seed)
    bots = [make_bot("medium", seed + seat, ruleset) for seat in range(players)]
    out = []
    count = 0
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if len(obs.legal_actions) > 1 and obs.phase != Phase.PAYMENT:
            if count % every == 0:
                out.append(obs)
            count += 1
        state.apply(bots[p].choose(obs))
    return out


@pytest.mark.parametrize(
    "spec", ["hard:paired=0:iterations=10", "hard:iterations=40:focus=0:horizon=0:gate=1", "hard:iterations=20"]
)
def test_analyse_finds_the_move_choose_plays(spec: str) -> None:
    for index, obs in enumerate(views(2, 3, every=9)):
        a = make_bot(spec, index, BIBLIOS)
        b = make_bot(spec, index, BIBLIOS)
        assert isinstance(a, ISMCTSBot) and isinstance(b, ISMCTSBot)
        analysis = a.analyse(obs)
        assert analysis.choice == b.choose(obs)
        assert analysis.choice in obs.legal_actions and analysis.style_choice in obs.legal_actions
        assert all(m.action in obs.legal_actions and 0.0 <= m.mean <= 1.0 for m in analysis.moves)


def test_the_paired_comparison_keeps_the_styles_move_without_evidence() -> None:
    changed = 0
    for index, obs in enumerate(views(2, 5, every=4)):
        stubborn = ISMCTSBot(index, BIBLIOS, iterations=60, paired=1, focus=0, horizon=0, gate=1e9).analyse(obs)
        assert stubborn.choice == stubborn.style_choice
        eager = ISMCTSBot(index, BIBLIOS, iterations=60, paired=1, focus=0, horizon=0, gate=0.0).analyse(obs)
        means = {m.action: m.mean for m in eager.moves}
        if eager.choice != eager.style_choice:
            changed += 1
            assert means[eager.choice] == max(means.values())  # gate 0: the best mean wins
    assert changed > 0


def test_the_paired_comparison_spends_its_budget_on_close_moves() -> None:
    budget = 200
    spent = []
    for index, obs in enumerate(views(3, 8, every=6)):
        bot = ISMCTSBot(index, BIBLIOS, iterations=budget, paired=1, focus=0, horizon=0, gate=1.5)
        analysis = bot.analyse(obs)
        assert bot.last_iterations <= budget + len(obs.legal_actions)  # a round plays every live move once
        rounds = [m.visits for m in analysis.moves]
        spent.append(bot.last_iterations)
        assert max(rounds) == next(m.visits for m in analysis.moves if m.action == analysis.style_choice)
    assert min(spent) < budget  # clearly worse moves are dropped, and a decision stops once one move is left


def test_paired_focus_and_horizon_are_checked_parameters() -> None:
    assert create_bot("hard", 1, {"paired": 0}, BIBLIOS).paired == 0
    default = create_bot("hard", 1, {}, BIBLIOS)
    assert (default.paired, default.focus, default.horizon, default.gate) == (1, 1, 1, 2.0)
    for bad in ("hard:paired=2", "hard:focus=2", "hard:horizon=-1", "hard:focus=0.5"):
        with pytest.raises(BotSpecError):
            make_bot(bad, 1, BIBLIOS)


def test_the_default_searches_bids_and_plays_its_style_elsewhere() -> None:
    searched = {Phase.BIDDING: 0, Phase.GIFT: 0}
    for index, obs in enumerate(views(2, 7, every=3)):
        bot = ISMCTSBot(index, BIBLIOS, iterations=20)
        analysis = bot.analyse(obs)
        if obs.phase == Phase.BIDDING:
            searched[Phase.BIDDING] += bot.last_iterations > 0
            assert analysis.choice in obs.legal_actions
        else:
            assert bot.last_iterations == 0 and analysis.choice == analysis.style_choice
            searched[Phase.GIFT] += obs.phase == Phase.GIFT
    assert searched[Phase.BIDDING] > 0 and searched[Phase.GIFT] > 0


def test_a_world_is_played_to_the_end_of_the_game_or_of_the_turn() -> None:
    ruleset = load_ruleset("biblios")
    rules = compile_rules(ruleset)
    obs = views(2, 4, every=7)[1]
    world = Worlds(rules, obs).sample(random.Random(1))
    turn, game = world.clone(), world.clone()
    _settle_by_heuristic(turn, rules, random.Random(2), obs.player)
    _settle_by_heuristic(game, rules, random.Random(2), obs.player, to_end=True)
    assert game.cur < 0 and game.result() is not None
    assert turn.cur >= 0  # the turn ended before the game did
