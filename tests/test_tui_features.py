"""The TUI's promises one by one: hot-seat privacy, legal-only church choices, language switch, resume, bad saves, rules help."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

from conftest import (
    game_config,
    human_in,
    play_turn,
    prepare_save,
    press,
    run_until,
    visible_text,
    waiting_for_person,
)
from textual.widgets import OptionList, RichLog, Static

from biblios_kit.engine.actions import BID, CHURCH, DECLINE, KEEP, church_parts
from biblios_kit.engine.events import EventKind
from biblios_kit.engine.state import GameState, Phase, new_game
from biblios_kit.i18n import translator
from biblios_kit.rulebook.describe import card_name
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import CardKind
from biblios_kit.tui.app import make_app
from biblios_kit.tui.dialogs.church import ChurchDialog
from biblios_kit.tui.dialogs.confirm import ConfirmDialog
from biblios_kit.tui.saves import load_game, save_path
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.help import HelpScreen
from biblios_kit.tui.screens.setup import SetupScreen
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.widgets.choice import Choice
from biblios_kit.tui.widgets.table_log import TableLog


def setup_text_after_resume() -> str:
    """Start the app with ``resume=True`` and return what the setup screen it falls back to shows."""
    shown: list[str] = []

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            shown.append(visible_text(app))

    asyncio.run(scenario())
    return shown[0]


def test_hot_seat_hand_over_shows_the_curtain_and_hides_the_previous_hand() -> None:
    ruleset = load_ruleset("biblios")
    seed = next(s for s in range(1, 100)
                if ruleset.deck[new_game(ruleset, 3, s).observation(0).drawn].kind is CardKind.CATEGORY)  # fmt: skip

    async def scenario() -> None:
        app = make_app(game_config(seats=("human", "human", "random"), seed=seed, names=("Ann", "Bob", "Cy")),
                       bot_delay=0)  # fmt: skip
        async with app.run_test(size=(80, 24)) as pilot:
            # two people: even the first one is asked to take the keyboard
            await run_until(pilot, lambda: isinstance(app.screen, CurtainScreen))
            assert "Ann" in visible_text(app)
            press(app, "enter")
            await run_until(pilot, lambda: waiting_for_person(app) and isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen) and table.viewer == 0
            kept = table.session.state.observation(0).drawn
            assert kept is not None
            kept_name = card_name(ruleset, kept)
            press(app, "k")  # Ann keeps her first card (a category card): only she may know it
            await run_until(pilot, lambda: table.session.state.decision_count == 1)
            await pilot.pause()
            assert kept_name in visible_text(app)
            # Ann places her other cards; then Bob picks from the public space: the curtain falls
            while not isinstance(app.screen, CurtainScreen):
                await run_until(pilot, lambda: waiting_for_person(app))
                if isinstance(app.screen, CurtainScreen):
                    break
                current = table.my_legal()
                press(app, {1: "a", 2: "p", 0: "k"}[current[0]] if table.session.phase is Phase.GIFT else "1")
                before = table.session.state.decision_count
                await run_until(pilot, lambda before=before: table.session.state.decision_count > before or
                                isinstance(app.screen, CurtainScreen))  # fmt: skip
            await pilot.pause()
            screen_text = visible_text(app)
            assert "Bob" in screen_text and kept_name not in screen_text
            assert table.viewer is None  # nothing private is even drawn behind the curtain
            assert kept_name not in str(table.query_one("#hand", Static).render())
            press(app, "enter")
            await run_until(pilot, lambda: table.viewer == 1)
            await pilot.pause()
            after = visible_text(app)
            assert "Bob" in after and kept_name not in after  # Bob's view never names Ann's kept card
            describer = table.query_one(TableLog).describer
            bob_log = describer.describe_all(table.session.state.events_for(1)) if describer else []
            assert bob_log and not any(kept_name in line for line in bob_log)
            kept_events = [e for e in table.session.state.events_for(1) if e.kind is EventKind.KEPT and e.player == 0]
            assert kept_events and all(e.card is None for e in kept_events)

    asyncio.run(scenario())


def test_church_dialog_offers_only_legal_choices() -> None:
    # seed 57 / rng 3: the person must resolve "+1 or -1 on one die" while Forbidden Tomes shows 6
    ruleset = load_ruleset("biblios")

    def raise_with_a_six(s: GameState) -> bool:
        if not human_in(Phase.CHURCH)(s) or 6 not in s.dice_values():
            return False
        church = s.observation(0).church
        effect = ruleset.deck[church[1]].effect if church else None
        return effect is not None and 1 in effect.signs and effect.dice == 1

    state = prepare_save("biblios", ("human", "random", "random"), 57, raise_with_a_six, rng_seed=3)
    legal = set(state.legal_actions())
    die_at_six = state.dice_values().index(6)

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, ChurchDialog))
            dialog = app.screen
            assert isinstance(dialog, ChurchDialog)
            options = dialog.query_one(OptionList)
            offered = {int(options.get_option_at_index(i).id or "") for i in range(options.option_count)}
            assert offered == legal
            assert DECLINE in offered
            raises = [a for a in offered if a >= CHURCH and church_parts(a)[1] > 0]
            lowers = [a for a in offered if a >= CHURCH and church_parts(a)[1] < 0]
            assert len(lowers) == 5 and len(raises) == 4  # the die at 6 cannot be raised
            assert all(church_parts(a)[0] != (die_at_six,) for a in raises)
            assert "6 → 7" not in visible_text(app)
            press(app, "escape")  # the card must be resolved: Escape does not close the dialog
            await pilot.pause()
            assert app.screen is dialog
            press(app, "enter")  # the first choice
            await run_until(
                pilot, lambda: app.session is not None and app.session.state.decision_count > state.decision_count
            )
            assert app.session.state.history[state.decision_count] in legal

    asyncio.run(scenario())


def test_switching_language_rerenders_everything() -> None:
    fr = translator("fr")

    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            await pilot.pause()
            before = visible_text(app)
            assert "Public space" in before and "English" in before
            press(app, "f2")
            await run_until(pilot, lambda: "Français" in visible_text(app))
            await pilot.pause()
            after = visible_text(app)
            assert "Place publique" in after and "Public space" not in after  # edition terms
            assert fr.gettext("Rules") in after  # footer bindings
            assert fr.gettext("Players") in after  # panel titles
            press(app, "k")  # still playable after the switch
            await run_until(pilot, lambda: app.session is not None and app.session.state.decision_count == 1)
            press(app, "f2", "f2")
            await run_until(pilot, lambda: "English" in visible_text(app))
        assert load_game().lang == "en"

    asyncio.run(scenario())


def test_resume_a_saved_game_and_keep_saving() -> None:
    state = prepare_save(
        "scripts-and-scribes", ("random", "human"), 9, human_in(Phase.BIDDING, 1), names=("Eve", "Max")
    )

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.session.state.actions == state.actions
            assert table.session.names == ("Eve", "Max") and table.viewer == 1
            press(app, "x")  # pass
            await run_until(pilot, lambda: table.session.state.decision_count > state.decision_count)
            table.session.flush()  # the table writes its saves in a thread
            saved = load_game()
            assert (
                saved.state.actions[: state.decision_count + 1]
                == table.session.state.actions[: state.decision_count + 1]
            )

    asyncio.run(scenario())


def test_resume_keeps_the_forced_moves_setting_unless_a_flag_gives_another() -> None:
    """The setting is saved with the game: continuing it (--resume, or Continue on the setup screen) plays
    on with it, not with the default; an explicit --forced-moves wins and is saved from then on."""
    from biblios_kit.cli.play_cmds import _config

    prepare_save("biblios", ("human", "random", "random"), 3, human_in(Phase.GIFT, 0), autoplay="off")
    shown: list[tuple[str, str, str]] = []

    async def scenario(config_flags: list[str], via_setup: bool) -> None:
        config = _config(None, [], None, None, [], [], "en", *config_flags)
        app = make_app(config, resume=not via_setup, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            if via_setup:
                await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
                press(app, "f8")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen)
            shown.append((table.session.autoplay, table.autoplay_mode(), load_game().autoplay))

    asyncio.run(scenario([], via_setup=False))
    asyncio.run(scenario([], via_setup=True))
    asyncio.run(scenario(["all"], via_setup=False))  # play --resume --forced-moves all
    asyncio.run(scenario([], via_setup=True))  # ... then saved with the game
    assert shown == [("off", "off", "off")] * 2 + [("all", "all", "all")] * 2


def test_the_forced_moves_setting_chosen_on_the_setup_screen_is_the_games() -> None:
    """From the flag to the form, from the form to the game and its save."""
    from biblios_kit.cli.play_cmds import _config

    async def scenario() -> None:
        app = make_app(_config(None, [], None, None, [], [], "en", "off"), bot_delay=0)
        async with app.run_test(size=(80, 30)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
            setup = app.screen
            assert isinstance(setup, SetupScreen)
            assert setup.form.autoplay == "off" and setup.query_one("#autoplay", Choice).value == "off"
            await pilot.click("#autoplay")  # off -> picks and payments (the list wraps round)
            await pilot.click("#autoplay")  # -> all of them
            await run_until(pilot, lambda: setup.form.autoplay == "all")
            press(app, "f9")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.session.autoplay == "all" and table.autoplay_mode() == "all"
            assert load_game().autoplay == "all"

    asyncio.run(scenario())


def test_corrupt_save_is_reported_and_kept_until_the_player_agrees() -> None:
    path = save_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"format": "biblios-kit-game", "version": 1, "rules', encoding="utf-8")
    original = path.read_bytes()

    async def scenario() -> None:
        app = make_app(game_config(seed=2), resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen))
            await pilot.pause()
            assert "cannot be continued" in visible_text(app)
            assert not app.screen.query("#continue")  # nothing to continue
            press(app, "ctrl+s")  # start a new game: asks first
            await run_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            press(app, "escape")
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen))
            assert path.read_bytes() == original
            press(app, "ctrl+s")
            await run_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            press(app, "shift+tab", "enter")  # "Start a new game"
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and waiting_for_person(app))
        assert Path(str(path) + ".old").read_bytes() == original
        assert load_game().state.players == 3

    asyncio.run(scenario())


def test_incompatible_save_is_reported_on_resume() -> None:
    prepare_save("biblios", ("human", "random"), 5, lambda s: s.decision_count >= 3)
    document = json.loads(save_path().read_text(encoding="utf-8"))
    document["ruleset"]["content_hash"] = "0" * 64  # recorded with rules that have changed since
    save_path().write_text(json.dumps(document), encoding="utf-8")

    assert "has changed since" in setup_text_after_resume()


def test_f1_opens_the_rules_at_the_current_phase_with_search() -> None:
    prepare_save("biblios", ("human", "random", "random"), 4, human_in(Phase.BIDDING))

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(100, 30)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            press(app, "f1")
            await run_until(pilot, lambda: isinstance(app.screen, HelpScreen))
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen) and help_screen.section == "auction"
            await pilot.pause()
            assert help_screen.book.section("auction").title in visible_text(app)
            await pilot.click("#help-search")
            await pilot.press(*"bluff")
            await pilot.pause()
            assert "Medieval" in visible_text(app)
            press(app, "escape")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))

    asyncio.run(scenario())


def test_setup_screen_starts_the_game_it_shows() -> None:
    async def scenario() -> None:
        from biblios_kit.tui.config import GameConfig

        app = make_app(GameConfig(ruleset="scripts-and-scribes", players=2, seed=8, explicit=frozenset({"ruleset"})),
                       bot_delay=0)  # fmt: skip
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
            setup = app.screen
            assert isinstance(setup, SetupScreen)
            assert setup.form.ruleset == "scripts-and-scribes" and setup.form.players == 2
            assert not setup.query("Checkbox")  # Scripts & Scribes declares no options
            await pilot.click("#name-0")
            await run_until(pilot, lambda: app.focused is not None and app.focused.id == "name-0")
            await pilot.press(*"Zoe")
            await run_until(pilot, lambda: setup.form.names[:1] == ["Zoe"])
            press(app, "ctrl+s")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen) and waiting_for_person(app))
            assert app.session is not None
            assert app.session.names[0] == "Zoe" and app.session.ruleset.id == "scripts-and-scribes"
            assert app.session.state.seed == 8 and app.session.seats == ("human", "hard")

    asyncio.run(scenario())


def test_keys_offer_only_legal_actions() -> None:
    async def scenario() -> None:
        app = make_app(game_config(seed=3), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.check_action("place", (KEEP,)) and not table.check_action("pass_bid", ())
            press(app, "k")
            await run_until(pilot, lambda: table.session.state.decision_count == 1)
            assert not table.check_action("place", (KEEP,))  # the keep destination is used
            press(app, "k", "x", "b")  # none of them is legal now
            await pilot.pause()
            assert table.session.state.decision_count == 1

    asyncio.run(scenario())


def test_language_switch_reaches_an_open_dialog() -> None:
    prepare_save("biblios", ("human", "random", "random"), 4, human_in(Phase.PAYMENT))
    fr = translator("fr")

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: type(app.screen).__name__ == "PaymentDialog")
            dialog = app.screen
            press(app, "enter")  # choose a first card
            await run_until(pilot, lambda: len(dialog.chosen) == 1)  # type: ignore[attr-defined]
            press(app, "f2")
            await run_until(pilot, lambda: fr.gettext("Pay your bid") in visible_text(app))
            assert app.screen is dialog and len(dialog.chosen) == 1  # type: ignore[attr-defined]

    asyncio.run(scenario())


def test_resume_without_a_save_says_so() -> None:
    assert "There is no saved game to continue." in setup_text_after_resume()


def test_a_failing_bot_is_reported_and_the_game_goes_on() -> None:
    class Broken:
        name = "broken"

        def choose(self, observation: object) -> int:
            raise RuntimeError("out of ideas")

    async def scenario() -> None:
        app = make_app(game_config(seats=("human", "random"), seed=3), bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            session = app.session
            assert session is not None
            session.bots[1] = Broken()  # type: ignore[assignment]
            rng = random.Random(1)
            while session.current == 0:  # the person places the cards drawn; then the bot must pick
                await play_turn(pilot, rng)
            await run_until(pilot, lambda: session.current != 1)
            await pilot.pause()
            # the failure is told in an error toast and in the log
            log = app.screen.query_one("#log", RichLog)
            logged = "".join(strip.text for strip in log.lines).replace(" ", "")
            assert "Bot2(random)failed:outofideas" in logged
            assert session.state.decision_count >= 4

    asyncio.run(scenario())


def test_setup_choices_cycle_and_rebuild_the_form() -> None:
    async def scenario() -> None:
        from biblios_kit.tui.config import GameConfig

        app = make_app(GameConfig(seed=1), bot_delay=0)
        async with app.run_test(size=(80, 30)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
            setup = app.screen
            assert isinstance(setup, SetupScreen) and setup.form.players == 3
            setup.query_one("#players").focus()
            await pilot.press("right")  # 3 -> 4 players: a fourth seat appears
            await run_until(pilot, lambda: len(setup.query(".seat")) == 4)
            assert setup.form.players == 4 and setup.form.seats[3] == "hard"
            await pilot.click("#kind-1")  # hard -> person (the list wraps round)
            await pilot.pause()
            assert setup.form.seats[1] == "human"
            await pilot.click("#ruleset")  # the next ruleset, loaded and shown
            await run_until(pilot, lambda: setup.form.ruleset != "biblios")
            await pilot.pause()
            assert setup.ruleset.id == setup.form.ruleset
            shown = str(setup.query_one("#ruleset-description", Static).render())
            assert shown == setup.ruleset.description.en

    asyncio.run(scenario())


def test_bid_amount_keys_stay_within_the_legal_range() -> None:
    state = prepare_save("biblios", ("human", "random", "random"), 4, human_in(Phase.BIDDING))
    auction = state.observation(0).auction
    assert auction is not None

    async def scenario() -> None:
        app = make_app(resume=True, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: waiting_for_person(app))
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.bid_choice == auction.min_bid
            await pilot.press("minus")  # cannot go below the lowest legal bid
            assert table.bid_choice == auction.min_bid
            await pilot.press("pageup", "plus")
            assert table.bid_choice == min(auction.max_bid, auction.min_bid + 6)
            await pilot.press("b")
            await run_until(pilot, lambda: table.session.state.decision_count > state.decision_count)
            assert table.session.state.history[state.decision_count] == BID + min(auction.max_bid, auction.min_bid + 6)

    asyncio.run(scenario())
