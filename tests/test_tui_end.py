"""The end screen: the result without redundant words, everyone's final cards, the whole log and a move-by-move replay."""

from __future__ import annotations

import asyncio
import io
import itertools

import pytest
from conftest import run_until, visible_text
from dialog_helpers import LANGS, NAMES, SIZES, finished_save, squash
from textual.app import App
from textual.widgets import TabbedContent

from biblios_kit.i18n import _, set_language
from biblios_kit.rulebook.describe import EventDescriber, action_label, term, tiebreak_text
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import make_app
from biblios_kit.tui.replay_view import GameReplay, ReplayView
from biblios_kit.tui.screens.end import LOG_BATCH, EndScreen


async def _end(pilot: object, app: object) -> EndScreen:
    await run_until(pilot, lambda: isinstance(app.screen, EndScreen))  # type: ignore[arg-type, attr-defined]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, EndScreen)
    return screen


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_ranking_names_each_place_once_and_tie_breaks_only_where_they_decided(
    lang: str, size: tuple[int, int]
) -> None:
    set_language(lang)
    state = finished_save(lang)
    ruleset = state.ruleset
    result = state.result()
    vp = capitalize(term(ruleset, "victory_points"))
    assert any(placing.by is not None for placing in result.ranking)  # this game has a tie on points
    assert any(placing.by is None for placing in result.ranking)

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=size) as pilot:
            await _end(pilot, app)
            await pilot.pause()
            text = visible_text(app)
            assert f"{vp} {vp}" not in text and f"{vp}  {vp}" not in text
            # once in the headline, once for the table's row, once per place: never twice on a line
            assert text.count(tiebreak_text(ruleset, None)) == 2 + len(result.ranking)
            for placing in result.ranking:
                if placing.by is not None:
                    assert tiebreak_text(ruleset, placing.by) in text
            for title in (_("Result"), _("Everyone's cards"), _("Log"), _("Replay")):
                assert title in text

    asyncio.run(scenario())


def test_everyones_final_cards_are_shown() -> None:
    state = finished_save()
    ruleset = state.ruleset

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await _end(pilot, app)
            await pilot.press("2")
            await pilot.pause()
            text = visible_text(app)
            for player, name in enumerate(NAMES):
                assert name in text
                hand = state.hand(player)
                for card in hand:
                    c = ruleset.deck[card]
                    if c.letter:
                        assert f"{c.value}{c.letter}" in text  # value and letter, as in the hand panel

    asyncio.run(scenario())


def test_the_log_names_every_card() -> None:
    state = finished_save()
    ruleset = state.ruleset
    full = EventDescriber(ruleset, NAMES).describe_all(state.events)
    redacted = EventDescriber(ruleset, NAMES).describe_all(state.events_for(0))
    hidden = [line for line in redacted if line not in full]
    assert hidden  # Ann did not see every card during the game ...

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _end(pilot, app)
            await pilot.press("3")
            await pilot.pause()
            assert screen.query_one(TabbedContent).active == "end-log"
            await run_until(pilot, lambda: screen.log_complete)
            await pilot.pause()
            lines = screen.log_lines()
            text = squash("".join(lines)).replace("▸", "")  # the headings' mark
            assert squash("".join(full)) == text  # ... the end screen shows all of them
            assert _("The game is over.") in visible_text(app)

    asyncio.run(scenario())


def test_the_log_pane_shows_its_first_lines_at_once_then_the_rest() -> None:
    state = finished_save()
    full = EventDescriber(state.ruleset, NAMES).describe_all(state.events)
    assert len(full) > 3 * LOG_BATCH  # a whole game: several batches

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _end(pilot, app)
            await pilot.pause()
            assert screen.log_lines() == [] and not screen.log_complete  # nothing rendered while hidden
            left: list[int] = []
            fill = screen._fill_log

            def spy() -> None:
                left.append(len(screen._log_queue))
                fill()

            screen._fill_log = spy  # type: ignore[method-assign]
            await pilot.press("3")
            await run_until(pilot, lambda: screen.log_complete)
            await pilot.pause()
            # a batch per refresh: the pane is painted after the first batch, not after the whole game
            assert len(left) > len(full) // LOG_BATCH
            assert all(0 < a - b <= LOG_BATCH for a, b in itertools.pairwise(left))
            lines = screen.log_lines()
            assert squash(lines[0]) == squash(full[0])
            assert squash(lines[-1]) in squash(visible_text(app))  # scrolled to the end of the game
            assert len(screen.log_lines()) >= len(full)

    asyncio.run(scenario())


def test_the_replay_steps_through_the_whole_game() -> None:
    state = finished_save()
    ruleset = state.ruleset
    moves = len(state.actions)

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _end(pilot, app)
            await pilot.press("4")
            await pilot.pause()
            view = screen.query_one(ReplayView)
            assert view.has_focus and view.step == 0
            assert f"Move 0 of {moves}" in visible_text(app)
            await pilot.press("right")
            await pilot.pause()
            text = visible_text(app)
            assert f"Move 1 of {moves}" in text
            assert f"{NAMES[0]}: {action_label(ruleset, state.actions[0])}" in text
            await pilot.press("pagedown")
            assert view.step == 11
            await pilot.press("left")
            assert view.step == 10
            await pilot.press("end")
            await pilot.pause()
            assert view.step == moves and f"Move {moves} of {moves}" in visible_text(app)
            final = view.replay.position(moves)
            assert final.dice_values() == state.dice_values()
            assert [final.hand(p) for p in range(3)] == [state.hand(p) for p in range(3)]
            await pilot.press("right")  # no step beyond the end
            assert view.step == moves
            await pilot.press("home")
            assert view.step == 0
            await pilot.press("left")
            assert view.step == 0

    asyncio.run(scenario())


def test_replay_positions_match_the_game_and_its_log() -> None:
    state = finished_save()
    replay = GameReplay(state)
    assert replay.moves == len(state.actions)
    assert sum(len(replay.events_of(step)) for step in range(replay.moves + 1)) == len(state.events)
    middle = replay.position(replay.moves // 2)
    assert middle.decision_count == replay.moves // 2
    again = replay.position(3)  # going back replays from the deal
    assert again.decision_count == 3 and replay.position(replay.moves).is_terminal()


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_screen_follows_a_language_switch(lang: str) -> None:
    set_language(lang)
    finished_save(lang)

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _end(pilot, app)
            await pilot.press("4", "right")
            await pilot.press("f2")
            await pilot.pause()
            text = visible_text(app)
            assert _("Move {step} of {moves}").format(step=1, moves=screen.replay.moves if screen.replay else 0) in text
            assert _("Replay") in text

    asyncio.run(scenario())


def test_without_the_whole_game_only_the_result_is_shown() -> None:
    """A game followed from another machine has only the result (its state is the player's own view)."""
    ruleset = load_ruleset("scripts-and-scribes")
    state = finished_save()

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(EndScreen(ruleset, state.result(), NAMES, state=object()))

    async def scenario() -> None:
        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _end(pilot, app)
            await pilot.pause()
            assert screen.state is None and screen.replay is None
            text = visible_text(app)
            assert _("Result") in text and _("Replay") not in text and _("Log") not in text

    asyncio.run(scenario())


@pytest.mark.parametrize("lang", ["fr", "es"])
def test_replay_and_hands_read_as_native_text(lang: str) -> None:
    """Every replay position, the hands and the result pass the language check (elisions, spacing, plurals)."""
    from rich.console import Console
    from test_language_check import defects

    from biblios_kit.i18n import in_language
    from biblios_kit.tui.replay_view import replay_renderable
    from biblios_kit.tui.screens.end import hands_renderable, result_renderable

    state = finished_save()
    ruleset = state.ruleset
    replay = GameReplay(state)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    problems = []
    with in_language(lang):
        for step in range(0, replay.moves + 1, 7):
            with console.capture() as capture:
                console.print(replay_renderable(replay, step, NAMES))
            for line in capture.get().splitlines():
                problems.extend(defects(line, lang))
        with console.capture() as capture:
            console.print(hands_renderable(ruleset, state, state.result(), NAMES))
            console.print(result_renderable(ruleset, state.result(), NAMES))
        for line in capture.get().splitlines():
            problems.extend(defects(line, lang))
    assert problems == []
