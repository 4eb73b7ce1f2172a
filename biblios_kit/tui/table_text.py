"""Each part of a :class:`~biblios_kit.tui.table_view.TableView` as Rich text (no Textual): what the table's widgets show."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from biblios_kit.engine.events import Event
from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import EventDescriber
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import (
    ACCENT,
    MUTED,
    WARNING,
    focus_text,
    hand_table,
    log_line,
    pile_counts_text,
    players_table,
    public_text,
)
from biblios_kit.tui.table_view import FocusPart, HandPart, NoticePart, Offer, PlayersPart, PublicPart, StatusPart


def status_text(part: StatusPart, width: int) -> Text:
    """The status line at ``width`` cells: edition, phase, who plays, and the language at the right."""
    text = Text()
    text.append(f" {part.title} ", style="bold #1b1b1b on #e0b050")
    text.append(f" {part.phase} ", style="bold")
    if part.player is not None:
        text.append("· ", style=MUTED)
        text.append(part.player, style=ACCENT)
    language = f" {part.language} "
    if text.cell_len + len(language) < width:
        text.append(" " * (width - text.cell_len - len(language)))
        text.append(language, style=MUTED)
    return text


def hand_renderable(ruleset: Ruleset, part: HandPart) -> RenderableType:
    """The hand by category with its marks, or the note saying why no hand is shown."""
    if part.cards is None:
        return Text(part.note, style=MUTED)
    return hand_table(ruleset, part.cards, part.seen)


def public_renderable(ruleset: Ruleset, part: PublicPart) -> Text:
    """The public space, the cards that can be taken with their key number."""
    return public_text(ruleset, part.cards, dict(part.numbered))


def focus_renderable(ruleset: Ruleset, part: FocusPart) -> Text:
    """The "Now" panel."""
    return focus_text(ruleset, part.obs, part.names, part.viewer, part.bid_choice)


def players_renderable(ruleset: Ruleset, part: PlayersPart) -> Group:
    """Every seat with its collection, then the piles."""
    return Group(
        players_table(
            part.names,
            part.seats,
            part.hand_sizes,
            part.current,
            part.active,
            part.viewer,
            ruleset,
            part.collections,
            part.fresh,
        ),
        pile_counts_text(ruleset, *part.piles),
    )


def notice_text(ruleset: Ruleset, part: NoticePart) -> Text:
    """A penalty: who lost which cards, as far as the viewer may know, and how to close the notice."""
    describer = EventDescriber(ruleset, part.names)
    if part.revealed is not None:
        describer.describe(part.revealed)  # the currency of the bids
    text = Text()
    for number, event in enumerate(part.group):
        line = describer.describe(event)
        if line:
            text.append(("\n" if number else "") + ("⚠ " if number == 0 else "  ") + line,
                        style=WARNING if number == 0 else "")  # fmt: skip
    text.append("\n" + _("Esc closes this notice."), style=MUTED)
    return text


def log_lines(describer: EventDescriber, events: Sequence[Event]) -> list[Text]:
    """The log's lines for ``events`` (an event the log does not show has none)."""
    return [line for line in (log_line(describer, event) for event in events) if line is not None]


def fresh_line(line: Text) -> Text:
    """A log line that just arrived: a ``›`` in front and a highlight until it is no longer new."""
    fresh = Text("› ", style=ACCENT)
    fresh.append_text(line)
    fresh.stylize("on #3a3320")
    return fresh


def offer_label(offer: Offer, short: bool = False) -> Text | str:
    """A button's label with its key in front (``k Keep it``); ``short``: the shorter label, if any."""
    label = offer.short if short and offer.short is not None else offer.label
    if not offer.key:
        return label
    text = Text(offer.key, style="bold underline")
    text.append(" " + label)
    return text
