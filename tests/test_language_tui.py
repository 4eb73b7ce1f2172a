"""French typography on screen: lines never break at a no-break space (F1 help and the table, narrow)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import pytest
from conftest import game_config, play_turn, run_until, waiting_for_person
from rich.console import Console
from rich.text import Text
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget

from biblios_kit.i18n import use_language
from biblios_kit.linebreak import keep_no_break_spaces
from biblios_kit.rules import load_ruleset
from biblios_kit.tui.app import make_app
from biblios_kit.tui.config import GameConfig
from biblios_kit.tui.screens.help import HelpScreen
from biblios_kit.tui.screens.table import TableScreen

NNBSP = "\u202f"
OPENING = (":", ";", "!", "?", "»")


def starts_badly(line: str) -> bool:
    """Whether a drawn line starts (after borders and blanks) with punctuation French glues to the word before."""
    return line.strip(" │┃█▊▎▏╎").lstrip()[:1] in OPENING


def drawn_lines(widget: Widget) -> list[str]:
    """Every line of ``widget`` as drawn, scrolled out of view or not."""
    height = max(widget.virtual_size.height, widget.size.height)
    return [strip.text for strip in widget.render_lines(Region(0, 0, widget.size.width, height))]


def test_rich_and_textual_wrap_only_at_breakable_spaces() -> None:
    keep_no_break_spaces()
    line = f"Pioche{NNBSP}: 71 · Pile d'Enchères{NNBSP}: 0 · hors jeu{NNBSP}: 15 («{NNBSP}Refus de payer{NNBSP}»)"
    console = Console(width=80)
    for width in range(12, len(line)):
        rich_lines = [str(piece) for piece in Text(line).wrap(console, width)]
        content_lines = Content(line).wrap(width)
        for lines in (rich_lines, [content.plain for content in content_lines]):
            assert not [piece for piece in lines if starts_badly(piece)], (width, lines)
    assert [str(piece) for piece in Text("abc def").wrap(console, 3)] == ["abc", "def"]  # ordinary spaces still break


@pytest.mark.parametrize("width", [60, 81])
def test_french_help_never_starts_a_line_with_punctuation(width: int) -> None:
    use_language("fr")
    ruleset = load_ruleset("biblios", ["medieval-bluff"])

    async def scenario() -> list[str]:
        app = make_app(GameConfig(lang="fr"), bot_delay=0)
        bad: list[str] = []
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            await app.push_screen(HelpScreen(ruleset, "fr", "overview"))
            await run_until(pilot, lambda: isinstance(app.screen, HelpScreen))
            screen = app.screen
            assert isinstance(screen, HelpScreen)
            text = screen.query_one("#help-text")
            for section in screen.book.section_ids:
                screen._show_section(section)
                await pilot.pause()
                bad += [f"{section}: {line}" for line in drawn_lines(text) if starts_badly(line)]
            search = screen.query_one("#help-search")
            for query in ("enchère", "pénalité", "or", "égalité"):
                search.value = query  # type: ignore[attr-defined]
                await pilot.pause()
                lines = drawn_lines(text)
                assert len(lines) > 3, query
                bad += [f"{query!r}: {line}" for line in lines if starts_badly(line)]
        return bad

    assert asyncio.run(scenario()) == []


def test_french_table_never_starts_a_line_with_punctuation() -> None:
    """The players panel ("Pioche : 71 · Pile d'Enchères : 0 · hors jeu : 15"), the focus panel and the log."""
    use_language("fr")

    async def scenario() -> list[str]:
        config = replace(game_config(seats=("human", "random", "random"), seed=5), lang="fr")
        app = make_app(config, bot_delay=0)
        rng = random.Random(3)
        bad: list[str] = []
        async with app.run_test(size=(100, 36)) as pilot:
            for _turn in range(40):
                await run_until(pilot, lambda: waiting_for_person(app))
                await pilot.pause()
                if isinstance(app.screen, TableScreen):
                    for name in ("#players", "#focus", "#public", "#log"):
                        bad += [
                            f"{name}: {line}" for line in drawn_lines(app.screen.query_one(name)) if starts_badly(line)
                        ]
                if not await play_turn(pilot, rng):
                    break
        return bad

    assert asyncio.run(scenario()) == []


def test_the_cli_and_the_app_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    import rich._wrap

    from biblios_kit.cli.app import build_app
    from biblios_kit.linebreak import WORD

    for start in (build_app, lambda: make_app(GameConfig())):
        monkeypatch.setattr(rich._wrap, "re_word", re.compile(r"\s*\S+\s*"))  # Rich's own
        start()
        assert rich._wrap.re_word is WORD
    console = Console(width=24, file=None)
    with console.capture() as capture:
        console.print(Text(f"Moines{NNBSP}: remportée par un joueur, 100,0\u00a0% (91,2\u00a0%–100,0\u00a0%)"))
    assert not [line for line in capture.get().splitlines() if line.lstrip()[:1] in ("%", ":", ")")]
