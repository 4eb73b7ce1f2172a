"""The payment dialog: choose the Gold cards (or, for a Gold card, which cards) that pay a winning bid."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from biblios_kit.describe import bid_text
from biblios_kit.engine.actions import PAY, REFUSE
from biblios_kit.i18n import _, ngettext
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.render import ACCENT, MUTED, card_list, card_text, fill


class PaymentDialog(ModalScreen[list[int]]):
    """Build a payment card by card from the legal choices; dismisses with the pay actions (or ``[REFUSE]``).

    ``options(prefix)`` returns the legal actions after paying ``prefix``, or ``None``
    once the payment is complete, so only cards that can still finish a valid payment
    are offered and a finished payment can be confirmed.
    """

    BINDINGS = [
        Binding("backspace", "undo", show=False),
        Binding("escape", "noop", show=False),
    ]

    def __init__(self, ruleset: Ruleset, bid: int, currency: str, card: int,
                 options: Callable[[Sequence[int]], tuple[int, ...] | None]) -> None:  # fmt: skip
        super().__init__(classes="dialog-screen")
        self.ruleset = ruleset
        self.bid = bid
        self.currency = currency
        self.card = card
        self.options = options
        self.chosen: list[int] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="payment-dialog") as box:
            box.border_title = _("Pay your bid")
            head = fill(
                _("You won {card} for {amount}"),
                MUTED,
                card=card_text(self.ruleset, self.card),
                amount=Text(bid_text(self.ruleset, self.bid, self.currency), style=ACCENT),
            )
            yield Static(head, id="payment-head")
            yield Static(id="payment-status")
            yield OptionList(id="payment-options")
            with Horizontal(classes="buttons"):
                yield Button(_("Confirm"), id="pay-confirm", variant="success", compact=True)
                yield Button(_("Undo"), id="pay-undo", compact=True)
                yield Button(_("Refuse to pay"), id="pay-refuse", variant="error", compact=True)
            yield Label(_("Enter: add the card · Backspace: undo"), classes="muted hint")

    def on_mount(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        legal = self.options(self.chosen)
        complete = legal is None
        status = Text()
        paid = [a - PAY for a in self.chosen]
        if self.currency == "gold":
            total = sum(self.ruleset.deck[c].value for c in paid)
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
            for card in paid:
                status.append("\n  ")
                status.append_text(card_text(self.ruleset, card))
        if complete:
            status.append("\n" + _("The payment is complete: confirm it."), style=ACCENT)
        self.query_one("#payment-status", Static).update(status)
        option_list = self.query_one(OptionList)
        option_list.clear_options()
        if legal:
            option_list.add_options(
                Option(card_text(self.ruleset, a - PAY), id=str(a)) for a in legal if PAY <= a < PAY + 1_000
            )
            option_list.highlighted = 0 if option_list.option_count else None
        self.query_one("#pay-confirm", Button).disabled = not complete
        self.query_one("#pay-undo", Button).disabled = not self.chosen
        self.query_one("#pay-refuse", Button).display = bool(legal) and REFUSE in (legal or ()) and not self.chosen
        if complete:
            self.query_one("#pay-confirm", Button).focus()
        else:
            option_list.focus()

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language, keeping the cards chosen so far."""
        await self.recompose()
        self._refresh()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Add the selected card to the payment."""
        event.stop()
        assert event.option.id is not None
        self.chosen.append(int(event.option.id))
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
