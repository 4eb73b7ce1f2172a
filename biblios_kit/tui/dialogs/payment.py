"""The payment dialog: choose the Gold cards (or, for a Gold card, which cards) that pay a winning bid.

The cards that can still complete a valid payment are listed **cheapest first**, so that
pressing Enter until the payment is complete pays the cheapest way:

* paying Gold, a card comes first when the best payment that uses it wastes the least
  (the smallest overpay), then the bigger card (fewer cards);
* paying cards (a Gold card won), a card comes first when losing it costs the least, as
  the medium bot estimates it from this player's own view of the game (what it holds, the
  dice, what it saw the others take); without that view, the lowest value first. Gold
  cards come after every other card (the smallest first): a Gold card is won to gain Gold,
  and paying for it with Gold gives back what it brings (:func:`cheapest_cards_first`).

Each row previews its effect on the payer's totals (``† Monks 9 → 7``, ``Gold 8 → 5``);
chosen cards stay in the list marked ``[x]`` (Enter on one takes it back), the others are
marked ``[ ]``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, OptionList, Static

from biblios_kit.engine.actions import PAY, REFUSE
from biblios_kit.engine.observation import Observation
from biblios_kit.i18n import _, current_language, format_list, ngettext
from biblios_kit.rulebook.describe import bid_text, term
from biblios_kit.rules.model import CardKind, Ruleset
from biblios_kit.tui.dialogs.base import TableDialog
from biblios_kit.tui.render import ACCENT, MUTED, card_list, card_phrases, card_text, fill
from biblios_kit.tui.table_session import SeatUnavailable
from biblios_kit.tui.widgets.marked_list import MarkedList

GOLD_STYLE = "bold #f1c40f"


class PaymentDialog(TableDialog[list[int]]):
    """Build a payment card by card from the legal choices; dismisses with the pay actions (or ``[REFUSE]``).

    ``options(prefix)`` returns the legal actions after paying ``prefix``, or ``None``
    once the payment is complete (:class:`SeatUnavailable` closes the dialog with ``None``), so only cards that can still finish a valid payment
    are offered and a finished payment can be confirmed. ``observation`` (the payer's
    own) gives the hand whose totals each row previews, and the costs of the cards.
    """

    BINDINGS = [
        Binding("backspace", "undo", show=False),
        Binding("escape", "noop", show=False),
    ]

    def __init__(self, ruleset: Ruleset, bid: int, currency: str, card: int,
                 options: Callable[[Sequence[int]], tuple[int, ...] | None],
                 observation: Observation | None = None) -> None:  # fmt: skip
        super().__init__(ruleset)
        self.bid = bid
        self.currency = currency
        self.card = card
        self.options = options
        self.hand: tuple[int, ...] = observation.hand if observation is not None else ()
        self.costs = _card_costs(ruleset, observation) if currency != "gold" else {}
        """What losing each card of the hand costs (cards currency), lowest first in the list."""
        self.chosen: list[int] = []
        """The pay actions chosen so far, in order."""
        self.offered: list[int] = []
        """The pay actions offered now, in the order shown (cheapest first)."""
        self._status_lines = 1

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Vertical(classes="table-dialog", id="payment-dialog") as box:
            box.border_title = _("Pay your bid")
            head = fill(
                _("You won {the_card} for {amount}"),
                MUTED,
                **card_phrases(self.ruleset, self.card),
                amount=Text(bid_text(self.ruleset, self.bid, self.currency), style=ACCENT),
            )
            yield Static(head, id="payment-head")
            yield Static(id="payment-status")
            yield MarkedList(id="payment-options")
            with Horizontal(classes="buttons"):
                yield Button(_("Confirm"), id="pay-confirm", variant="success", compact=True)
                yield Button(_("Undo"), id="pay-undo", compact=True)
                yield Button(_("Refuse to pay"), id="pay-refuse", variant="error", compact=True)
            yield Label(_("Enter: choose or take back the card · Backspace: undo"), classes="hint")

    def rows_wanted(self) -> int:
        """Borders, head, status, one row per card listed, buttons and hint."""
        return 2 + 1 + self._status_lines + max(1, len(self.chosen) + len(self.offered)) + 1 + 1

    def on_mount(self) -> None:
        self._refresh()

    # ------------------------------------------------------------------ contents

    def _value(self, card: int) -> int:
        return self.ruleset.deck[card].value

    def _is_gold(self, card: int) -> bool:
        return self.ruleset.deck[card].kind is CardKind.GOLD

    def _paid(self) -> list[int]:
        return [a - PAY for a in self.chosen]

    def _totals(self, without: Sequence[int]) -> dict[str, int]:
        """The payer's totals per category id (and ``""`` for Gold) once ``without`` is paid."""
        totals: dict[str, int] = {"": 0}
        for category in self.ruleset.categories:
            totals[category.id] = 0
        gone = set(without)
        for card in self.hand:
            if card in gone:
                continue
            c = self.ruleset.deck[card]
            if c.kind is CardKind.GOLD:
                totals[""] += c.value
            elif c.category is not None:
                totals[c.category] += c.value
        return totals

    def _total_label(self, key: str) -> Text:
        if not key:
            return Text(term(self.ruleset, "gold"), style=GOLD_STYLE)
        category = self.ruleset.category(key)
        return Text(f"{category.glyph} {category.name.get(current_language())}", style=f"bold {category.colour}")

    def _changes(self, before: dict[str, int], after: dict[str, int]) -> list[Text]:
        """``† Monks 9 → 7`` for every total that changes."""
        changes = []
        for key, old in before.items():
            if after[key] != old:
                text = self._total_label(key)
                text.append(f" {old} → {after[key]}", style="bold")
                changes.append(text)
        return changes

    def _best_total(self, action: int) -> int:
        """Paying Gold: the smallest total reachable by a payment that adds ``action`` to those chosen."""
        paid = self._paid()
        card = action - PAY
        so_far = sum(self._value(c) for c in paid)
        need = self.bid - so_far - self._value(card)
        if need <= 0:
            return so_far + self._value(card)
        pool = [c for c in self.hand if self._is_gold(c)] if self.hand else [a - PAY for a in self.offered]
        rest = [self._value(c) for c in pool if c != card and c not in paid]
        reach = 1  # bit s set: a sum s of some of ``rest`` is reachable
        for value in rest:
            reach |= reach << value
        above = reach >> need
        if not above:
            return 1 << 20  # cannot complete (the engine would not offer it)
        return so_far + self._value(card) + need + (above & -above).bit_length() - 1

    def _order(self, offered: list[int]) -> list[int]:
        """The offered pay actions, cheapest first."""
        if self.currency == "gold":
            return sorted(offered, key=lambda a: (self._best_total(a), -self._value(a - PAY), a))
        return cheapest_cards_first(self.ruleset, offered, self.costs)

    def _status(self, complete: bool) -> Text:
        paid = self._paid()
        status = Text()
        if self.currency == "gold":
            total = sum(self._value(c) for c in paid)
            if not paid:
                status.append(_("Chosen: nothing yet"), style=MUTED)
            else:
                status.append_text(
                    fill(
                        _("Chosen: {cards} = {total}"),
                        MUTED,
                        cards=card_list(self.ruleset, paid),
                        total=Text(bid_text(self.ruleset, total, "gold"), style="bold"),
                    )
                )
            if total > self.bid:
                status.append(
                    "\n"
                    + _("Overpay (lost): {amount}").format(amount=bid_text(self.ruleset, total - self.bid, "gold")),
                    style="bold #e67e22",
                )
        else:
            status.append(
                ngettext("{count} card chosen out of {bid}", "{count} cards chosen out of {bid}", len(paid)).format(
                    count=len(paid), bid=self.bid
                ),
                style="bold",
            )
        if paid and self.hand:
            changes = self._changes(self._totals(()), self._totals(paid))
            if changes:
                status.append("\n")
                status.append_text(fill(_("After paying: {changes}"), MUTED, changes=_join(changes)))
        if complete:
            status.append("\n" + _("The payment is complete: confirm it."), style=ACCENT)
        return status

    def _refresh(self) -> None:
        try:
            legal = self.options(self.chosen)
        except SeatUnavailable as error:  # the game moved on meanwhile, or its server is out of reach
            self.app.notify(str(error), severity="error", timeout=6)
            self.dismiss(None)
            return
        complete = legal is None
        offered = [a for a in legal or () if PAY <= a < PAY + 1_000]
        self.offered = offered  # the pool of ``_best_total`` without a hand
        self.offered = self._order(offered)
        status = self._status(complete)
        self._status_lines = self.text_rows(status.plain)
        self.query_one("#payment-status", Static).update(status)
        rows = [(f"x-{a}", a, True) for a in self.chosen] + [(f"a-{a}", a, False) for a in self.offered]
        width = max((card_text(self.ruleset, a - PAY).cell_len for _key, a, _x in rows), default=0)
        before = self._totals(self._paid())
        entries = []
        for key, action, chosen in rows:
            card = action - PAY
            prompt = Text("[x] " if chosen else "[ ] ", style=ACCENT if chosen else "")
            name = card_text(self.ruleset, card)
            name.pad_right(width - name.cell_len)
            prompt.append_text(name)
            if not chosen and self.hand:
                changes = self._changes(before, self._totals([*self._paid(), card]))
                if changes:
                    prompt.append("   ")
                    prompt.append_text(_join(changes))
            entries.append((key, prompt))
        option_list = self.query_one(MarkedList)
        option_list.set_entries(entries, highlight=len(self.chosen) if self.offered else 0)
        self.query_one("#pay-confirm", Button).disabled = not complete
        self.query_one("#pay-undo", Button).disabled = not self.chosen
        self.query_one("#pay-refuse", Button).display = REFUSE in (legal or ()) and not self.chosen
        self.fit()
        if complete:
            self.query_one("#pay-confirm", Button).focus()
        else:
            option_list.focus()

    def rows(self) -> list[str]:
        """The rows of the list as shown (marker, ``[x]``/``[ ]``, card, effect), for tests and screen readers."""
        option_list = self.query_one(MarkedList)
        return [option_list.row_text(index) for index in range(option_list.option_count)]

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language, keeping the cards chosen so far."""
        await self.recompose()
        self._refresh()

    # ------------------------------------------------------------------ input

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click: add a ``[ ]`` card to the payment, or take a ``[x]`` card back."""
        event.stop()
        key = event.option.id
        assert key is not None
        action = int(key[2:])
        if key.startswith("x-"):
            self.chosen.remove(action)
        else:
            self.chosen.append(action)
        self._refresh()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Confirm, undo or refuse."""
        event.stop()
        if event.button.id == "pay-confirm":
            self.dismiss(list(self.chosen))
        elif event.button.id == "pay-undo":
            self.action_undo()
        elif event.button.id == "pay-refuse":
            self.dismiss([REFUSE])

    def action_undo(self) -> None:
        """Take back the last card chosen."""
        if self.chosen:
            self.chosen.pop()
            self._refresh()

    def action_noop(self) -> None:
        """Escape does nothing: a won auction must be paid."""
        self.notify(_("Choose the cards to pay with."), timeout=2)


def cheapest_cards_first(ruleset: Ruleset, actions: Sequence[int], costs: dict[int, float]) -> list[int]:
    """Pay actions of a payment in cards, cheapest first: every other card, then the Gold cards.

    Among the others, the lowest ``costs`` (what losing the card costs, by card id; its
    value when missing) first, then the lower value, then the later letter (it wins fewer
    ties); the Gold cards follow, the smallest first.
    """

    def cost(action: int) -> tuple[bool, float, int, int, int]:
        card = ruleset.deck[action - PAY]
        is_gold = card.kind is CardKind.GOLD
        letter = -ord(card.letter) if card.letter else 0
        spent = float(card.value) if is_gold else costs.get(card.id, float(card.value))
        return is_gold, spent, card.value, letter, action

    return sorted(actions, key=cost)


def _join(parts: list[Text]) -> Text:
    """Rich texts joined as a list in the active language ("A, B et C")."""
    marks = [f"\x00{index}\x00" for index in range(len(parts))]
    text = Text()
    for index, piece in enumerate(format_list(marks).split("\x00")):
        if index % 2:
            text.append_text(parts[int(piece)])
        elif piece:
            text.append(piece)
    return text


def _card_costs(ruleset: Ruleset, observation: Observation | None) -> dict[int, float]:
    """What losing each card of the payer's hand costs, estimated from their own observation only."""
    if observation is None:
        return {}
    from biblios_kit.bots.estimate import Estimate
    from biblios_kit.engine.compiled import compile_rules

    estimate = Estimate(compile_rules(ruleset), observation)
    return {card: estimate.loss_of(card) for card in observation.hand}
