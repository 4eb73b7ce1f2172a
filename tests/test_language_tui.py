"""French typography on screen: Textual must not break a line at a no-break space (F1 help, narrow)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.app import App
from textual.content import Content
from textual.geometry import Region

from biblios_kit import tui
from biblios_kit.i18n import use_language
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.screens.help import HelpScreen
from biblios_kit.tui.widgets.prose import break_offsets, wrap_content

NNBSP = "\u202f"
OPENING = (":", ";", "!", "?", "»")


def test_break_offsets_never_break_at_a_no_break_space() -> None:
    line = f"Vous avez pioché{NNBSP}: «{NNBSP}Or 3{NNBSP}» et rien d'autre"
    for width in range(3, len(line) + 1):
        pieces = wrap_content(Content(line), width).plain.split("\n")
        assert all(len(piece) <= width or NNBSP in piece or " " not in piece for piece in pieces), (width, pieces)
        assert not [piece for piece in pieces if piece.lstrip()[:1] in OPENING], (width, pieces)
    assert break_offsets("abc def", 3) == [4]
    assert break_offsets("abcdefgh", 3) == [3, 6]  # a word wider than the line is cut
    assert break_offsets("", 5) == []


class HelpApp(App[None]):
    """The F1 screen alone, on the game's style sheet."""

    CSS_PATH = str(Path(tui.__file__).parent / "biblios.tcss")

    def __init__(self, ruleset: Ruleset) -> None:
        super().__init__()
        self.ruleset = ruleset

    def on_mount(self) -> None:
        self.push_screen(HelpScreen(self.ruleset, "fr", "overview"))


def shown_lines(screen: HelpScreen) -> list[str]:
    """The lines of the help text as drawn, whole (not only the part scrolled into view)."""
    text = screen.query_one("#help-text")
    height = text.virtual_size.height or text.size.height
    return [strip.text for strip in text.render_lines(Region(0, 0, text.size.width, height))]


@pytest.mark.parametrize("width", [50, 64, 81])
def test_french_help_never_starts_a_line_with_punctuation(width: int) -> None:
    use_language("fr")
    ruleset = load_ruleset("biblios", ["medieval-bluff"])

    async def scenario() -> list[str]:
        app = HelpApp(ruleset)
        bad: list[str] = []
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, HelpScreen)
            for section in screen.book.section_ids:
                screen._show_section(section)
                await pilot.pause()
                bad += [f"{section}: {line}" for line in shown_lines(screen) if line.lstrip()[:1] in OPENING]
            search = screen.query_one("#help-search")
            for query in ("enchère", "pénalité", "or", "égalité"):
                search.value = query  # type: ignore[attr-defined]
                await pilot.pause()
                lines = shown_lines(screen)
                assert len(lines) > 3, query
                bad += [f"{query!r}: {line}" for line in lines if line.lstrip()[:1] in OPENING]
        return bad

    assert asyncio.run(scenario()) == []
