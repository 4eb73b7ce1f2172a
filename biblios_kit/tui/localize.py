"""Helpers shared by the screens: localized key bindings, language names and colour contrast."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the table's view and texts use this module without Textual
    from textual.binding import Binding
    from textual.dom import DOMNode

LANGUAGE_NAMES: dict[str, str] = {"en": "English", "fr": "Français", "es": "Español"}
"""Each supported language in its own words (never translated)."""


def seat_kind_label(kind: str) -> str:
    """Who plays a seat, in the active language: "Person", "Bot: hard" (a spec with parameters is shown as is)."""
    from biblios_kit.i18n import _

    labels = {
        "human": _("Person"),
        "random": _("Bot: random"),
        "easy": _("Bot: easy"),
        "medium": _("Bot: medium"),
        "hard": _("Bot: hard"),
    }
    return labels.get(kind) or _("Bot: {spec}").format(spec=kind)


def set_bindings(node: DOMNode, bindings: Iterable[Binding]) -> None:
    """Replace ``node``'s own bindings for these keys (descriptions are localized at call time)."""
    merged = type(node)._merged_bindings
    bindings_map = merged.copy() if merged is not None else node._bindings.copy()
    for binding in bindings:
        for key in binding.key.split(","):
            bindings_map.key_to_bindings[key.strip()] = [binding.with_key(key.strip(), binding.key_display)]
    node._bindings = bindings_map
    if node.is_attached:  # before mounting there is no footer to update yet
        node.refresh_bindings()


def contrast(colour: str) -> str:
    """Black or white, whichever reads better on the ``#rrggbb`` background ``colour``."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    luminance = 0.299 * red + 0.587 * green + 0.114 * blue
    return "#000000" if luminance > 150 else "#ffffff"
