"""The table screen's keys, labelled in the active language (the screen sets them at start and after F2)."""

from __future__ import annotations

from collections.abc import Iterable

from textual.actions import parse
from textual.binding import Binding

from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.dialogs.hint import hint_binding
from biblios_kit.tui.table_view import KeysPart, key_allowed

FooterActions = tuple[tuple[str, tuple[object, ...]], ...]
"""The actions (name, parameters) of the keys the footer shows."""


def table_bindings(ruleset: Ruleset) -> list[Binding]:
    """The table screen's keys in the active language. The game's own keys are shown on the bar's buttons,
    not in the footer, which keeps room for the keys that work everywhere."""
    return [
        Binding("k", "place(0)", _("Keep"), show=False),
        Binding("a", "place(1)", capitalize(term(ruleset, "auction_pile")), show=False),
        Binding("p", "place(2)", capitalize(term(ruleset, "public_space")), show=False),
        *(Binding(str(n), f"pick({n})", _("Take"), show=False) for n in range(1, 10)),
        Binding("x", "pass_bid", _("Pass"), show=False),
        Binding("b", "bid", _("Bid"), show=False),
        Binding("plus,equals_sign,right", "bid_step(1)", _("Raise"), key_display="+", show=False),
        Binding("minus,left", "bid_step(-1)", _("Lower"), key_display="−", show=False),
        Binding("pageup", "bid_step(5)", _("Raise by 5"), show=False),
        Binding("pagedown", "bid_step(-5)", _("Lower by 5"), show=False),
        Binding("c", "open_church", _("Use the card"), show=False),
        Binding("y", "open_payment", _("Pay"), show=False),
        Binding("h", "show_hand", _("Show my cards")),
        hint_binding(),
        Binding("escape", "dismiss_notice", _("Close the notice")),
        Binding("q", "quit_game", _("Save & quit")),
    ]


def footer_actions(bindings: Iterable[Binding]) -> FooterActions:
    """The actions of the ``bindings`` the footer shows (the others are on the action bar's buttons)."""
    return tuple(parse(binding.action)[1:] for binding in bindings if binding.show)


def footer_state(actions: FooterActions, keys: KeysPart) -> tuple[bool, ...]:
    """Which of the footer's ``actions`` are offered in ``keys``: the footer is built again only when this changes.

    Textual's footer rebuilds its keys (new widgets, styled, then a layout pass and a frame) whenever the
    screen's bindings are refreshed: about a third of a key's CPU at 120x40 when only the game's keys, which
    the footer does not show, changed."""
    return tuple(key_allowed(keys, name, parameters) for name, parameters in actions)
