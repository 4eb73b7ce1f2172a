"""The table a player needs, through Textual's pilot: collections, honest bidding, penalty notices,
highlights, sizes, keys that a browser leaves alone, forced moves and the hot-seat curtain."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from conftest import cat, game_config, gold, play_turn, position, press, run_until, visible_text, waiting_for_person
from rich.console import Console
from rich.text import Text
from table_helpers import after_penalty, bidding, open_table, table_app
from textual.content import Content
from textual.widgets import Input, RichLog, Static

from biblios_kit.engine.state import Phase
from biblios_kit.i18n import current_language, set_language, translator
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import PenaltyKind
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.render import FRESH_MARK, collection_text, die_chip
from biblios_kit.tui.screens import table as table_module
from biblios_kit.tui.screens.curtain import CurtainScreen
from biblios_kit.tui.screens.help import HelpScreen
from biblios_kit.tui.screens.setup import SetupScreen
from biblios_kit.tui.screens.table import TableScreen
from biblios_kit.tui.session import GameSession
from biblios_kit.tui.table_turns import needs_private_cards
from biblios_kit.tui.widgets.action_bar import ActionButton
from biblios_kit.tui.widgets.checkbox import SignedCheckbox
from biblios_kit.tui.widgets.dice import DieChip
from biblios_kit.tui.widgets.table_log import TableLog

LANGS = ["en", "fr", "es"]
SIZES = [(80, 24), (120, 40)]


def panel(table: TableScreen, widget_id: str) -> str:
    """The plain text a panel shows now, laid out at its width, spaces and line breaks as single spaces."""
    widget = table.query_one(f"#{widget_id}", Static)
    console = Console(width=max(20, widget.content_region.width), file=io.StringIO(), color_system=None)
    content = widget.content  # a Text is shown as the Content Textual makes of it (see show_measured)
    console.print(Text(content.plain) if isinstance(content, Content) else content)
    return re.sub(r"[ \n]+", " ", console.file.getvalue()).strip()  # type: ignore[attr-defined]


def run(scenario: object) -> None:
    asyncio.run(scenario)  # type: ignore[arg-type]


# ---------------------------------------------------------------- honest bidding


# Its content (what each seat sees) is checked without Textual in test_tui_table_view.py: slow here.
@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_bidding_shows_what_the_hand_can_pay_and_names_a_bluff_and_its_cost(lang: str, size: tuple[int, int]) -> None:
    set_language(lang)
    t = translator(lang)

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=size) as pilot:
            table = await open_table(pilot, bidding())
            focus = panel(table, "focus")
            assert t.gettext("You can pay: {amount}").split("{")[0].strip() in focus
            assert "3" in focus and t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] not in focus
            press(app, "plus", "plus", "plus")  # 4 Gold, one more than Gold 1 + Gold 2
            await run_until(pilot, lambda: table.bid_choice == 4)
            await pilot.pause()
            focus = panel(table, "focus")
            assert t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] in focus
            lose = t.ngettext(
                "If you win, each other player takes a card at random from your {hand}: you lose {count} card.",
                "If you win, each other player takes a card at random from your {hand}: you lose {count} cards.",
                1,
            )
            assert lose.split("{hand}")[-1].format(count=1) in focus.replace("\n", " ")
            bid_button = next(b for b in table.query(ActionButton) if b.command == "bid-go")
            assert t.gettext("(bluff)") in str(bid_button.label) and bid_button.variant == "warning"
            press(app, "minus")
            await run_until(pilot, lambda: table.bid_choice == 3)
            await pilot.pause()
            assert t.gettext("Bluff: you cannot pay {amount}.").split(":")[0] not in panel(table, "focus")

    run(scenario())


# Its content (what each seat sees) is checked without Textual in test_tui_table_view.py: slow here.
@pytest.mark.slow
def test_medieval_bluff_names_the_left_neighbour_and_one_card() -> None:
    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(120, 40)) as pilot:
            table = await open_table(pilot, bidding(("medieval-bluff",)))
            press(app, "plus", "plus", "plus", "plus")
            await run_until(pilot, lambda: table.bid_choice == 5)
            await pilot.pause()
            focus = panel(table, "focus")
            assert "Bob draws a card at random from your hand and it leaves the game: you lose 1 card." in focus

    run(scenario())


# ---------------------------------------------------------------- penalty notice


# The notice's content in every language is checked without Textual (test_tui_table_view.py); Esc only here.
@pytest.mark.parametrize("lang", ["en", *(pytest.param(lang, marks=pytest.mark.slow) for lang in LANGS[1:])])
def test_a_penalty_notice_says_who_lost_which_card_and_stays_until_dismissed(lang: str) -> None:
    set_language(lang)
    t = translator(lang)

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            table = await open_table(pilot, after_penalty())
            notice = table.query_one("#notice", Static)
            assert notice.display
            text = panel(table, "notice")
            assert "Bob" in text and "3" in text
            # the card Ann took is named: she saw it
            pigments = load_ruleset("biblios").category("pigments").name.get(lang)
            assert pigments in text
            assert t.gettext("Esc closes this notice.") in text
            press(app, "plus")  # the table is drawn again: the notice stays
            await run_until(pilot, lambda: table.bid_choice == 2)
            await pilot.pause()
            assert notice.display
            press(app, "escape")
            await run_until(pilot, lambda: not notice.display)
            press(app, "minus")
            await run_until(pilot, lambda: table.bid_choice == 1)
            await pilot.pause()
            assert not notice.display and table.notice_index is None

    run(scenario())


# ---------------------------------------------------------------- collections and highlights


# Its content (what each seat sees) is checked without Textual in test_tui_table_view.py: slow here.
@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", LANGS)
def test_every_player_s_collection_is_shown_and_new_cards_are_marked_for_a_while(
    lang: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    set_language(lang)
    monkeypatch.setattr(table_module, "HIGHLIGHT_SECONDS", 600)  # ended by hand below: no race with the clock
    ruleset = load_ruleset("biblios")
    # Ann places four cards (two go to the public space), Bob and Cy pick them; then Bob's turn
    # puts two more there, Cy picks one and Ann must pick.
    draw = [cat(ruleset, "monks", x) for x in "ABCD"] + [cat(ruleset, "pigments", x) for x in "ABCD"]
    state = position(ruleset, 3, hands=[[], [], []], draw=draw)

    async def scenario() -> None:
        app = table_app(GameConfig(autoplay="off"))
        async with app.run_test(size=size) as pilot:
            table = await open_table(pilot, state, seats=("human", "random", "random"))
            for key in ("k", "a", "p", "p"):
                before = table.session.state.decision_count
                press(app, key)
                await run_until(pilot, lambda before=before: table.session.state.decision_count > before)
            await run_until(pilot, lambda: table.session.phase is Phase.PICK and waiting_for_person(app))
            await pilot.pause()
            players = panel(table, "players")
            picked = [e for e in table.session.state.events_for(0) if e.kind.name == "PICKED"]
            assert {e.player for e in picked} == {1, 2}
            for event in picked:  # every pick by a bot is listed in that bot's collection
                card = ruleset.deck[event.card]
                assert f"{card.value}{card.letter}" in players
            assert FRESH_MARK in players  # the newest ones, marked
            assert table._fade is not None  # until the highlight timer ends them
            table._end_highlights()
            await pilot.pause()
            assert FRESH_MARK not in panel(table, "players")

    run(scenario())


def test_a_collection_reads_without_colour_and_says_when_cards_left_unseen() -> None:
    from biblios_kit.tui.public_cards import Collection

    ruleset = load_ruleset("biblios")
    cards = (cat(ruleset, "monks", "A"), cat(ruleset, "monks", "H"), cat(ruleset, "pigments", "B"))
    text = collection_text(ruleset, Collection(cards, 2), frozenset({cards[1]})).plain
    assert text.startswith("†2A +4H ◆2B")
    assert "2 cards gone unseen" in text
    assert collection_text(ruleset, Collection((), 0)).plain == ""


def test_a_die_that_moved_shows_its_direction() -> None:
    ruleset = load_ruleset("biblios")
    assert "▲" in die_chip(ruleset, 0, 4, previous=3).plain
    assert "▼" in die_chip(ruleset, 0, 2, previous=3).plain
    assert "▲" not in die_chip(ruleset, 0, 3).plain and "▼" not in die_chip(ruleset, 0, 3).plain


def test_the_newest_log_lines_are_marked_until_the_highlight_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "HIGHLIGHT_SECONDS", 600)  # ended by hand below: no race with the clock

    def log_lines(table: TableScreen) -> list[str]:
        return [strip.text for strip in table.query_one("#log", RichLog).lines]

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            table = await open_table(pilot, bidding())
            assert not any(line.startswith("›") for line in log_lines(table))  # nothing new on opening
            press(app, "b")  # Ann bids 1: new lines, marked "›", until the timer ends the highlight
            await run_until(pilot, lambda: waiting_for_person(app) and table.session.state.decision_count > 1)
            await pilot.pause()
            assert table.query_one(TableLog).fresh_lines > 0 and table._fade is not None
            assert any(line.startswith("› Ann bids 1 Gold.") for line in log_lines(table))
            table._end_highlights()
            await pilot.pause()
            assert "Ann bids 1 Gold." in log_lines(table) and not any(line.startswith("›") for line in log_lines(table))

    run(scenario())


# ---------------------------------------------------------------- sizes, language, keys


# The message in French and Spanish is also in the golden screenshots (table-too-small-*).
@pytest.mark.parametrize("lang", ["en", *(pytest.param(lang, marks=pytest.mark.slow) for lang in LANGS[1:])])
def test_a_terminal_too_small_is_told_so_and_the_table_comes_back(lang: str) -> None:
    set_language(lang)
    t = translator(lang)

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            table = await open_table(pilot, bidding())
            await pilot.resize_terminal(60, 20)
            await run_until(pilot, lambda: table.too_small)
            await pilot.pause()
            shown = re.sub(r"[ \n]+", " ", visible_text(app))
            assert t.gettext("The terminal is too small for the table: {width}×{height}. It needs at least "
                             "{min_width}×{min_height}. Enlarge the window or make the font smaller.").split(":")[0] in shown  # fmt: skip
            assert "60×20" in shown
            await pilot.resize_terminal(80, 24)
            await run_until(pilot, lambda: not table.too_small)
            await pilot.pause()
            hand = panel(table, "hand")
            assert load_ruleset("biblios").term_form("gold", lang).text in hand  # the Gold row is there

    run(scenario())


# Each case goes through every language; the others differ only in the one it starts in.
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("lang", ["en", *(pytest.param(lang, marks=pytest.mark.slow) for lang in LANGS[1:])])
def test_action_buttons_are_never_cut_off(lang: str, size: tuple[int, int]) -> None:
    """Every button of the action bar is as wide as its label and inside the screen, after a language
    switch too (a relabelled button used to keep its old width)."""
    ruleset = load_ruleset("biblios")
    draw = [cat(ruleset, "forbidden-tomes", x) for x in "ABCDE"]  # long names in every language
    state = position(ruleset, 4, hands=[[], [], [], []], draw=draw, active=1)

    async def scenario() -> None:
        app = table_app(GameConfig(autoplay="off"))
        async with app.run_test(size=size) as pilot:
            table = await open_table(
                pilot, state, seats=("human", "random", "random", "random"), names=("A", "B", "C", "D")
            )
            if table.session.phase is not Phase.PICK:
                pytest.skip("the bots left no choice")  # pragma: no cover - seat 0 always picks here
            for target in [lang, *LANGS]:
                while current_language() != target:
                    press(app, "f2")
                    await pilot.pause()
                await pilot.pause()
                await pilot.pause()
                buttons = [b for b in table.query(ActionButton) if b.display]
                assert buttons
                for button in buttons:
                    label = button.label
                    assert button.size.width >= len(str(label)), (str(label), button.size.width)
                    assert button.region.right <= size[0]

    run(scenario())


# Its content (what each seat sees) is checked without Textual in test_tui_table_view.py: slow here.
@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_you_is_translated(lang: str) -> None:
    set_language(lang)

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            table = await open_table(pilot, bidding())
            assert translator(lang).gettext("(you)") in panel(table, "players")

    run(scenario())


def test_f2_redraws_the_dice_too(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[int] = []
    original = DieChip.render

    def counting(chip: DieChip) -> object:
        drawn.append(chip.die)
        return original(chip)

    monkeypatch.setattr(DieChip, "render", counting)

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            table = await open_table(pilot, bidding())
            drawn.clear()
            press(app, "f2")
            await run_until(pilot, lambda: set(drawn) >= set(range(len(table.session.state.dice_values()))))

    run(scenario())


def test_f1_and_question_mark_open_the_rules_with_the_search_box_focused() -> None:
    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await open_table(pilot, bidding())
            # the browser's own F1 has an alternative, shown (the footer lists the keys just after the table's frame)
            await run_until(pilot, lambda: "F1/?" in visible_text(app))
            for key in ("f1", "question_mark"):
                press(app, key)
                await run_until(pilot, lambda: isinstance(app.screen, HelpScreen))
                await pilot.pause()
                assert isinstance(app.focused, Input) and app.focused.id == "help-search"
                await pilot.press(*"bluff")
                await pilot.pause()
                assert "Medieval" in visible_text(app)
                press(app, "escape")
                await run_until(pilot, lambda: isinstance(app.screen, TableScreen))

    run(scenario())


def test_f10_quits_like_ctrl_q() -> None:
    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            await open_table(pilot, bidding())
            quits: list[bool] = []
            app.exit = lambda *args, **kwargs: quits.append(True)  # type: ignore[method-assign]
            press(app, "f10")
            await run_until(pilot, lambda: bool(quits))

    run(scenario())


def test_setup_start_has_a_browser_safe_key_and_checkboxes_read_without_colour() -> None:
    async def scenario() -> None:
        app = table_app(GameConfig(ruleset="biblios", players=2, seed=8))
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, SetupScreen) and app.screen.complete)
            await run_until(pilot, lambda: "F9" in visible_text(app))  # the footer shows the browser-safe key
            box = app.screen.query_one("#option-medieval-bluff", SignedCheckbox)
            assert not box.value and "X" not in box.render().plain
            box.toggle()
            await pilot.pause()
            assert "X" in box.render().plain
            press(app, "f9")
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            assert app.session is not None
            assert app.session.ruleset.penalty.kind is PenaltyKind.MEDIEVAL_BLUFF  # the option went through

    run(scenario())


# ---------------------------------------------------------------- forced moves


@pytest.mark.parametrize("mode", ["picks-payments", "off"])
def test_a_single_pick_is_played_for_the_person_unless_the_setting_is_off(mode: str) -> None:
    ruleset = load_ruleset("biblios")
    draw = [cat(ruleset, "monks", x) for x in "ABCD"] + [cat(ruleset, "pigments", "A")]
    # Bob's turn: he places two cards in the public space; Cy takes one, Ann is left one.
    state = position(ruleset, 3, hands=[[], [], []], draw=draw[:4], active=1)

    async def scenario() -> None:
        app = table_app()  # the setting is the session's (it is saved with the game), not the app's
        async with app.run_test(size=(80, 24)) as pilot:
            session = GameSession(ruleset, state, ("human", "random", "random"), ("Ann", "Bob", "Cy"), autosave=False,
                                  autoplay=mode)  # fmt: skip
            app.start_session(session)
            await run_until(pilot, lambda: isinstance(app.screen, TableScreen))
            table = app.screen
            assert isinstance(table, TableScreen)
            if mode == "off":
                await run_until(pilot, lambda: waiting_for_person(app))
                assert table.session.phase is Phase.PICK and len(table.my_legal()) == 1
                assert table.autoplayed == 0
                press(app, "1")
            await run_until(pilot, lambda: any(e.kind.name == "PICKED" and e.player == 0
                                               for e in session.state.events_for(0)))  # fmt: skip
            assert table.autoplayed == (1 if mode != "off" else 0)

    run(scenario())


def test_no_key_plays_while_a_forced_payment_is_on_its_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the table deciding to play a person's only move and playing it, a key pressed (``y``)
    opens no payment dialog on the position about to change: at a server's table that dialog would
    ask about a payment the server has already taken."""
    from biblios_kit.engine.actions import PASS
    from biblios_kit.tui.dialogs.payment import PaymentDialog

    ruleset = load_ruleset("biblios")
    hands = [[gold(ruleset, 3), cat(ruleset, "pigments", "B")], [cat(ruleset, "monks", "A")],
             [cat(ruleset, "pigments", "A")]]  # fmt: skip
    state = position(ruleset, 3, hands=hands, pile=[cat(ruleset, "monks", "I")], active=0)
    state.apply(PASS)
    state.apply(PASS)  # Bob and Cy passed: Ann's bid wins, and her Gold 3 is her only payment
    play_forced = TableScreen._apply_auto
    held: list[tuple[TableScreen, int, int, int]] = []
    monkeypatch.setattr(TableScreen, "_apply_auto", lambda screen, *move: held.append((screen, *move)))

    async def scenario() -> None:
        app = table_app()
        async with app.run_test(size=(80, 24)) as pilot:
            session = GameSession(ruleset, state, ("human", "random", "random"), ("Ann", "Bob", "Cy"),
                                  autosave=False, autoplay="picks-payments")  # fmt: skip
            app.start_session(session)
            await run_until(pilot, lambda: waiting_for_person(app))
            table = app.screen
            assert isinstance(table, TableScreen)
            await pilot.press("b")
            await run_until(pilot, lambda: bool(held))
            assert session.phase is Phase.PAYMENT and len(session.legal_actions()) == 1
            assert table.my_legal() == ()
            await pilot.press("y")
            assert not isinstance(app.screen, PaymentDialog)
            play_forced(*held[0])
            await run_until(pilot, lambda: session.phase is not Phase.PAYMENT)
            assert gold(ruleset, 3) not in session.state.hand(0) and table.autoplayed == 1

    run(scenario())


# ---------------------------------------------------------------- hot-seat


def test_hot_seat_curtain_only_before_decisions_that_need_private_cards() -> None:
    """Two people and a bot through the gift phase: the curtain falls only before a gift turn, a bid or
    a payment of another person; picks happen in view of everyone, with no hand on screen."""
    import random

    ruleset = load_ruleset("biblios")
    rng = random.Random(5)
    curtains = 0
    public_decisions = 0
    handovers = 0  # how many curtains the old rule (every change of person) would have drawn

    async def scenario() -> None:
        nonlocal curtains, public_decisions, handovers
        config = game_config(seats=("human", "human", "random"), seed=11, names=("Ann", "Bob", "Cy"))
        config.autoplay = "off"
        app = table_app(config)  # a whole table: the game starts at once
        async with app.run_test(size=(80, 24)) as pilot:
            await run_until(pilot, lambda: isinstance(app.screen, (TableScreen, CurtainScreen)))
            last_person: int | None = None
            session = app.session
            assert session is not None
            while session.state.phase in (Phase.GIFT, Phase.PICK, Phase.CHURCH) and session.state.decision_count < 90:
                await run_until(pilot, lambda: waiting_for_person(app))
                screen = app.screen
                current = session.current
                if isinstance(screen, CurtainScreen):
                    curtains += 1
                    assert needs_private_cards(ruleset, session.observation(current))
                elif isinstance(screen, TableScreen) and screen.viewer is None and screen.actor is not None:
                    public_decisions += 1
                    hand = panel(screen, "hand")
                    for seat in range(3):  # nobody's cards are on screen
                        for card in session.state.hands[seat]:
                            assert card_label(ruleset, card) not in hand
                    if public_decisions == 1:  # "h": the curtain first, then the actor's own cards
                        actor = screen.actor
                        press(app, "h")
                        await run_until(pilot, lambda: isinstance(app.screen, CurtainScreen))
                        press(app, "enter")
                        await run_until(pilot, lambda screen=screen, actor=actor: screen.viewer == actor)
                        await pilot.pause()
                        assert screen.actor is None and screen.my_legal()
                        hand = panel(screen, "hand")
                        assert ruleset.term_form("gold", "en").text in hand
                if current != last_person and current is not None and session.is_human(current):
                    handovers += 1
                    last_person = current
                await play_turn(pilot, rng)

    run(scenario())
    assert public_decisions > 0
    assert curtains < handovers, (curtains, handovers, public_decisions)


def card_label(ruleset: object, card: int) -> str:
    from biblios_kit.rulebook.describe import card_name

    return card_name(ruleset, card)  # type: ignore[arg-type]
