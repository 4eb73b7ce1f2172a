"""Hints and reviews: the hard bot's move with reasons, from the player's observation only; the TUI dialogs."""

from __future__ import annotations

import asyncio
import random

import pytest
from conftest import game_config, run_until, visible_text, waiting_for_person

from biblios_kit.bots.estimate import Estimate
from biblios_kit.bots.hints import (
    CODES,
    GIVE_CARD,
    HIDE_CARD,
    LOWER_DIE,
    ONLY_MOVE,
    RAISE_DIE,
    Reason,
    explain,
    hint_bot,
    review,
    suggest,
)
from biblios_kit.bots.registry import make_bot
from biblios_kit.bots.style import strong_style
from biblios_kit.engine import new_game
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import GameState, Phase
from biblios_kit.i18n import current_language, format_percent, set_language, translator
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import make_app
from biblios_kit.tui.dialogs.hint import HintDialog, ReviewDialog, hint_binding, hint_lines, reason_sentence

ITERATIONS = 12
"""A small search: the tests check what a hint is, not how strong it is."""


def decisions(name: str, players: int, seed: int) -> list[GameState]:
    """A medium game's positions, one per decision with a choice (clones)."""
    ruleset = load_ruleset(name)
    state = new_game(ruleset, players, seed)
    bots = [make_bot("medium", seed * 10 + seat, ruleset) for seat in range(players)]
    out = []
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if len(obs.legal_actions) > 1:
            out.append(state.clone())
        state.apply(bots[p].choose(obs))
    return out


def test_a_hint_is_the_hard_bots_legal_move_with_reasons_for_every_kind_of_decision() -> None:
    ruleset = load_ruleset("biblios")
    phases = set()
    for index, state in enumerate(decisions("biblios", 3, 7)):
        if index % 4:
            continue
        obs = state.observation(state.cur)
        hint = suggest(obs, ruleset, iterations=ITERATIONS)
        phases.add(obs.phase)
        assert hint.action in obs.legal_actions
        assert hint.player == obs.player
        assert hint.action == hint_bot(obs, ruleset, ITERATIONS).choose(obs)  # analyse plays as choose
        assert hint.reasons and all(reason.code in CODES for reason in hint.reasons)
        for reason in hint.reasons:
            for chance in (reason.chance, reason.chance_after):
                assert chance is None or 0.0 <= chance <= 1.0
            if reason.category is not None and reason.code not in (RAISE_DIE, LOWER_DIE):
                assert reason.dice == tuple(obs.dice[d] for d in state.rules.cat_dice[reason.category])
        if obs.phase == Phase.PAYMENT:
            assert hint.win_chance is None
        else:
            assert hint.win_chance is not None and 0.0 <= hint.win_chance <= 1.0
    assert phases >= {Phase.GIFT, Phase.PICK, Phase.BIDDING, Phase.PAYMENT}


def test_hints_are_equal_for_two_states_that_give_the_same_observation() -> None:
    ruleset = load_ruleset("biblios")
    checked = 0
    for index, state in enumerate(decisions("biblios", 3, 11)):
        if index % 9:
            continue
        me = state.cur
        other = state.resample(me, random.Random(index))
        obs, same = state.observation(me), other.observation(me)
        assert obs == same
        assert other.hands != state.hands or other.draw != state.draw  # hidden cards really differ
        assert suggest(obs, ruleset, iterations=ITERATIONS) == suggest(same, ruleset, iterations=ITERATIONS)
        checked += 1
    assert checked >= 5


def test_the_drawn_card_reasons_compare_our_chance_with_a_rival_holding_it() -> None:
    seen = set()
    for state in decisions("biblios", 2, 3):
        obs = state.observation(state.cur)
        if obs.phase != Phase.GIFT or obs.drawn is None or state.rules.cat[obs.drawn] < 0:
            continue
        est = Estimate(state.rules, obs, strong_style(2))
        for action in obs.legal_actions:
            (reason,) = explain(state.rules, est, action)
            seen.add(reason.code)
            assert reason.category == state.rules.cat[obs.drawn]
            assert reason.chance is not None and reason.chance_after is not None
            if reason.code in (GIVE_CARD, HIDE_CARD):
                assert reason.chance_after <= reason.chance + 1e-12  # a rival holding it never helps us
            else:
                assert reason.chance_after >= reason.chance - 1e-12  # keeping it never hurts us
    assert {"keep", GIVE_CARD, HIDE_CARD} <= seen


def test_a_review_lists_a_persons_decisions_the_bot_disagrees_with_worst_first() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 21)
    bots = [make_bot("easy", 1, ruleset), make_bot("medium", 2, ruleset)]
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        state.apply(bots[p].choose(state.observation(p)))
    found = review(ruleset, 2, 21, state.history, [0], per_player=4, iterations=ITERATIONS)
    assert set(found) == {0}
    items = found[0]
    assert 1 <= len(items) <= 4
    losses = [item.loss for item in items]
    assert losses == sorted(losses, reverse=True) and all(loss > 0 for loss in losses)
    replay = new_game(ruleset, 2, 21)
    views = {}
    for index, action in enumerate(state.history):
        if replay.cur == 0:
            views[index] = replay.observation(0)
        replay.apply(action)
    for item in items:
        assert item.player == 0 and item.played == state.history[item.index]
        assert item.observation == views[item.index] and item.phase != Phase.PAYMENT
        assert item.played != item.hint.action
        assert item.hint.win_chance is not None and item.hint.win_chance - item.played_chance == item.loss
    with pytest.raises(ValueError, match="after the end"):
        review(ruleset, 2, 21, [*state.history, 0], [1], iterations=ITERATIONS)


def test_the_review_of_a_game_continued_from_a_save_replays_its_reseeds() -> None:
    """A game dealt again at two continuations: each reviewed decision is analysed from the
    observation its player really had (replaying from the seed alone deals other hands)."""
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 21)
    bots = [make_bot("easy", 1, ruleset), make_bot("medium", 2, ruleset)]
    views = {}
    while not state.is_terminal():
        if len(state.history) in (12, 40) and len(state.history) not in dict(state.reseeds):
            reseed(state, 1000 + len(state.history))
        p = state.current_player
        assert p is not None
        obs = state.observation(p)
        if p == 0:
            views[len(state.history)] = obs
        state.apply(bots[p].choose(obs))
    assert [point for point, _seed in state.reseeds] == [12, 40]
    found = review(ruleset, 2, 21, state.history, [0], per_player=6, iterations=ITERATIONS, reseeds=state.reseeds)
    items = found[0]
    assert items and any(item.index > 40 for item in items)
    for item in items:
        assert item.observation == views[item.index]
        assert item.played == state.history[item.index]


def test_the_end_screen_offers_the_review_of_a_game_continued_from_a_save() -> None:
    """A finished game dealt again when it was continued: the end screen keeps the review key (``r``)."""
    from biblios_kit.tui.saves import save_game
    from biblios_kit.tui.screens.end import EndScreen

    ruleset = load_ruleset("scripts-and-scribes")
    state = new_game(ruleset, 3, 4)
    rng = random.Random(1)
    while not state.is_terminal():
        if len(state.history) == 30 and not state.reseeds:
            reseed(state, 99)
        state.apply(state.random_action(rng))
    save_game(state, ("human", "random", "random"), ("Ann", "Bob", "Cy"), "en")

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(120, 50)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, EndScreen))
            screen = app.screen
            assert isinstance(screen, EndScreen)
            assert screen.state is not None and screen.state.reseeds == ((30, 99),)
            assert screen._reviewable()
            assert "review" in {binding.action for binding in screen._bindings.key_to_bindings.get("r", [])}

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize("name", ["biblios", "scripts-and-scribes"])
def test_every_reason_reads_as_a_sentence_in_every_language(lang: str, name: str) -> None:
    ruleset = load_ruleset(name)
    previous = current_language()
    set_language(lang)
    try:
        samples = [
            Reason(
                code,
                category=1,
                chance=0.25,
                chance_after=0.5,
                dice=(4, 5) if code in (RAISE_DIE, LOWER_DIE) else (4,),
                amount=3,
            )
            for code in CODES
        ] + [Reason("pass", amount=2), Reason("gold", amount=1)]
        sentences = [reason_sentence(ruleset, reason) for reason in samples]
        by_code = dict(zip(CODES, sentences, strict=False))
        assert by_code["keep"] == by_code["take"] == by_code["bid"]  # the card would be ours: same words
        assert len(set(sentences)) == len(samples) - 2  # every other reason says something of its own
        for sentence in sentences:
            assert "{" not in sentence and "}" not in sentence and sentence[-1] in ".!"
        category = ruleset.categories[1].name.get(lang)
        assert category in reason_sentence(ruleset, samples[0])
        assert format_percent(0.25) in reason_sentence(ruleset, samples[0])
    finally:
        set_language(previous)
    with pytest.raises(ValueError):
        reason_sentence(ruleset, Reason("no-such-code"))
    assert ONLY_MOVE in CODES


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_hint_dialog_shows_the_move_and_its_reasons(lang: str) -> None:
    ruleset = load_ruleset("biblios")
    state = next(s for s in decisions("biblios", 2, 5) if s.phase == Phase.GIFT)
    obs = state.observation(state.cur)
    words = translator(lang)
    previous = current_language()
    set_language(lang)

    async def scenario() -> None:
        app = make_app(bot_delay=0)
        async with app.run_test(size=(110, 30)) as pilot:
            await pilot.pause()
            dialog = HintDialog(ruleset, obs, "Ana", iterations=ITERATIONS)
            app.push_screen(dialog)
            await run_until(pilot, lambda: dialog.hint is not None)
            await pilot.pause()
            shown = " ".join(visible_text(app).split())
            assert dialog.hint is not None
            expected = hint_lines(ruleset, obs, dialog.hint)
            assert expected[0].startswith(words.gettext("Suggested move: {move}").split("{")[0])
            for line in expected:  # each sentence starts a line (the rest may wrap inside the border)
                assert " ".join(line.split())[:24] in shown
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is not dialog

    try:
        asyncio.run(scenario())
    finally:
        set_language(previous)


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_review_dialog_lists_the_persons_worst_decisions(lang: str) -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 2, 21)
    bots = [make_bot("easy", 1, ruleset), make_bot("medium", 2, ruleset)]
    while not state.is_terminal():
        p = state.current_player
        assert p is not None
        state.apply(bots[p].choose(state.observation(p)))
    words = translator(lang)
    previous = current_language()
    set_language(lang)

    async def scenario() -> None:
        app = make_app(bot_delay=0)
        async with app.run_test(size=(120, 60)) as pilot:
            await pilot.pause()
            dialog = ReviewDialog(ruleset, 2, 21, state.history, [0], ["Ana", "Bot"], per_player=2, iterations=8)
            app.push_screen(dialog)
            await run_until(pilot, lambda: dialog.items is not None, limit=60)
            await pilot.pause()
            shown = " ".join(visible_text(app).split())
            assert words.gettext("Review of the game") in shown
            assert "Ana" in shown
            head = words.gettext("Decision {number} ({phase}): you played {played} ({played_chance}); "
                                 "the bot suggests {suggested} ({chance}).")  # fmt: skip
            assert head.split("{")[0].strip() in shown
            assert dialog.items is not None and len(dialog.items[0]) == 2
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is not dialog

    try:
        asyncio.run(scenario())
    finally:
        set_language(previous)


def test_the_table_and_end_screen_helpers_build_the_dialogs_from_a_session() -> None:
    from biblios_kit.tui.dialogs.hint import hint_binding, hint_for, review_binding, review_for
    from biblios_kit.tui.session import GameSession

    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 9)
    session = GameSession(ruleset, state, ["human", "medium", "human"], ["Ana", "Bo", "Cy"], autosave=False)
    dialog = hint_for(session, 0)
    assert dialog.observation == state.observation(0) and dialog.player_name == "Ana"
    for _ in range(30):
        state.apply(state.legal_actions()[0])
    reseed(state, 77)  # a game continued from a save: the review replays its new deal
    review = review_for(session)
    assert (review.players, review.seed, review.actions) == (3, 9, tuple(state.history))
    assert review.reseeds == state.reseeds == ((30, 77),)
    assert review.humans == (0, 2) and review.names == ("Ana", "Bo", "Cy")
    assert (hint_binding().key, hint_binding().action, review_binding().key, review_binding().action) == (
        "t",
        "hint",
        "r",
        "review",
    )


def test_the_hint_key_on_the_table_opens_the_hint_for_the_persons_decision() -> None:
    from biblios_kit.tui.screens.table import TableScreen

    async def scenario() -> None:
        app = make_app(game_config(seats=("human", "random"), seed=4), bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and waiting_for_person(app))
            table = app.screen
            assert isinstance(table, TableScreen)
            await pilot.press(hint_binding().key)
            await run_until(pilot, lambda: isinstance(app.screen, HintDialog))
            dialog = app.screen
            assert isinstance(dialog, HintDialog)
            state = app.session.state  # type: ignore[attr-defined]
            assert dialog.observation == state.observation(0)
            await run_until(pilot, lambda: dialog.hint is not None)
            await pilot.press("escape")
            await run_until(pilot, lambda: app.screen is table)

    asyncio.run(scenario())
