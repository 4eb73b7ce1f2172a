"""Hard's model of its rivals: the style each rival plays in its bidding search (``rivals=...``),
inferred from the bids and passes the bot saw (``rivals=2``), from its own observation only."""

from __future__ import annotations

import random

import pytest

from biblios_kit.bots import rivals
from biblios_kit.bots.ismcts import ISMCTSBot, create_bot
from biblios_kit.bots.registry import make_bot
from biblios_kit.bots.rivals import RivalModel, bid_chance, rival_candidates, round_decisions
from biblios_kit.bots.style import MEDIUM, STRONG, STRONG_MULTI, Style
from biblios_kit.engine import compile_rules, new_game
from biblios_kit.engine.state import GameState, Phase
from biblios_kit.errors import BotSpecError
from biblios_kit.rules import load_ruleset

BIBLIOS = load_ruleset("biblios")
TIMID = Style(deny=0.0, spread=3.0)
KEEN = Style(deny=2.0)


def test_a_rounds_bids_are_read_as_each_seats_decisions() -> None:
    bids = ((1, 1), (0, 2), (1, 3), (0, 0))
    # (the lowest raise then, whether the seat bid, whether a rival led)
    assert round_decisions(bids, 0) == [(2, True, True), (4, False, True)]
    assert round_decisions(bids, 1) == [(1, True, False), (3, True, True)]
    assert round_decisions((), 1) == []


def test_the_chance_of_a_bid_follows_the_heuristics_rule() -> None:
    assert bid_chance(5, 9, 5, rival_leads=False, bluff=0.06, free=False) == 1.0
    assert bid_chance(5, 4, 5, rival_leads=True, bluff=0.06, free=False) == 0.0  # cannot pay
    assert bid_chance(5, 4, 5, rival_leads=True, bluff=0.06, free=True) == 1.0  # no penalty
    assert bid_chance(5, 9, 7, rival_leads=True, bluff=0.06, free=False) == 0.06  # a bluff
    assert bid_chance(5, 9, 7, rival_leads=False, bluff=0.06, free=False) == 0.0
    assert bid_chance(5, 9, 8, rival_leads=True, bluff=0.06, free=False) == 0.0


class TrueWorld:
    """Stands in for :class:`~biblios_kit.engine.worlds.Worlds`: every world is the real game."""

    state: GameState | None = None

    def __init__(self, rules: object, obs: object) -> None:
        pass

    def sample(self, rng: random.Random) -> GameState:
        assert TrueWorld.state is not None
        return TrueWorld.state


def play(rival: str, seed: int, model: RivalModel, players: int = 2, share: type[TrueWorld] | None = None) -> None:
    """A game of hard's style (seat 0, whose observations feed ``model``) against ``rival`` elsewhere
    (``share``: the class whose ``state`` is set to the game's)."""
    rules = compile_rules(BIBLIOS)
    state = new_game(BIBLIOS, players, seed)
    if share is not None:
        share.state = state
    specs = ["medium:deny=0.3:spread=1.5"] + [rival] * (players - 1)
    bots = [make_bot(spec, seed * 10 + seat, BIBLIOS) for seat, spec in enumerate(specs)]
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if p == 0:
            model.update(rules, obs)
        state.apply(bots[p].choose(obs))


@pytest.mark.parametrize(("truth", "spec"), [(0, "medium:deny=0:spread=3"), (1, "medium:deny=2")])
def test_given_the_rivals_true_hand_the_model_finds_the_style_that_made_the_bids(
    truth: int, spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The likelihood itself: dealt the real game as its only world, the model is sure of the truth."""
    monkeypatch.setattr(rivals, "Worlds", TrueWorld)
    for seed in (1, 2):
        model = RivalModel(seed, candidates=(TIMID, KEEN), worlds=1)
        play(spec, seed, model, share=TrueWorld)
        assert model.posterior(1)[truth] > 0.99
        assert model.style_of(1) == (TIMID, KEEN)[truth]
        assert model.posterior(0) == [0.5, 0.5]  # the bot's own bids are not weighed


@pytest.mark.parametrize(("truth", "spec"), [(0, "medium:deny=0:spread=3"), (1, "medium:deny=2")])
def test_from_its_own_view_the_model_leans_to_the_style_that_made_the_bids(truth: int, spec: str) -> None:
    """From worlds dealt from the bot's view, the rival's hidden hand blurs the evidence (docs/bots.md,
    "Where the search stands"), but on average the true style is still the likelier one."""
    chances = []
    for seed in range(1, 7):
        model = RivalModel(seed, candidates=(TIMID, KEEN))
        play(spec, seed, model)
        assert sum(model.seen) + sum(model._pending_seen.values()) > 5
        chances.append(model.posterior(1)[truth])
    assert sum(chances) / len(chances) > 0.6


def test_the_model_reads_the_observation_only() -> None:
    """The same observations give the same scores, whatever the hidden cards of the real game."""
    rules = compile_rules(BIBLIOS)
    state = new_game(BIBLIOS, 2, 11)
    bots = [make_bot("medium", 110 + seat, BIBLIOS) for seat in range(2)]
    checked = 0
    while not state.is_terminal() and checked < 6:
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if p == 0 and obs.phase == Phase.BIDDING and obs.auction is not None and obs.auction.bids:
            other = state.resample(0, random.Random(checked)).observation(0)
            assert other == obs
            a, b = RivalModel(3), RivalModel(3)
            a.update(rules, obs)
            b.update(rules, other)
            assert a.likelihoods(1) == b.likelihoods(1) and a.likelihoods(1) != [0.0, 0.0]
            checked += 1
        state.apply(bots[p].choose(obs))
    assert checked == 6


def test_a_new_game_starts_the_model_afresh() -> None:
    model = RivalModel(4)
    play("medium", 4, model)
    assert sum(model.seen) > 0
    play("medium", 5, model, players=3)
    assert model.candidates == rival_candidates(3) == (MEDIUM, STRONG_MULTI)
    fresh = RivalModel(4)
    play("medium", 5, fresh, players=3)
    assert model.likelihoods(1) == fresh.likelihoods(1) and model.likelihoods(2) == fresh.likelihoods(2)


def test_the_search_table_gives_each_rival_its_posterior_share() -> None:
    model = RivalModel(1, candidates=(TIMID, KEEN))
    play("medium:deny=2", 1, model)
    obs = new_game(BIBLIOS, 2, 1).observation(0)
    rows = model.table(obs, STRONG)
    assert all(row[0] is STRONG for row in rows)
    assert sum(row[1] is KEEN for row in rows) == round(len(rows) * model.posterior(1)[1])
    even = RivalModel(1).table(obs, STRONG)  # no evidence: half the rows each
    assert sum(row[1] is MEDIUM for row in even) == sum(row[1] is STRONG for row in even) == len(even) // 2


def test_rivals_is_a_checked_parameter() -> None:
    assert create_bot("hard", 1, {}, BIBLIOS).rivals == 0
    assert create_bot("hard", 1, {"rivals": 2}, BIBLIOS).rival_model is not None
    assert create_bot("hard", 1, {"rivals": 3}, BIBLIOS).rival_model is None
    for bad in ("hard:rivals=4", "hard:rivals=-1", "hard:rivals=0.5"):
        with pytest.raises(BotSpecError):
            make_bot(bad, 1, BIBLIOS)


@pytest.mark.parametrize("rivals", [0, 1, 3])
def test_each_model_of_the_rivals_plays_the_searched_rounds(rivals: int) -> None:
    obs = new_game(BIBLIOS, 3, 2).observation(0)
    bot = ISMCTSBot(1, BIBLIOS, rivals=rivals)
    table = bot._rival_styles(obs, STRONG_MULTI)
    expected = {0: [[STRONG_MULTI, MEDIUM, MEDIUM]], 1: [[STRONG_MULTI] * 3]}
    expected[3] = [expected[0][0], expected[1][0]]
    assert table == expected[rivals]
