"""The table screen's base: what the person at the keyboard may do (keys, buttons, the church and payment dialogs).

:class:`~biblios_kit.tui.screens.table.TableScreen` adds the panels and the game loop; this
class holds the person's actions, each checked against the legal actions of the moment.
"""

from __future__ import annotations

from dataclasses import replace

from textual.screen import Screen

from biblios_kit.engine.actions import BID, CHURCH, DECLINE, PASS, PAY, PICK, REFUSE
from biblios_kit.engine.observation import Observation
from biblios_kit.tui.dialogs.hint import hint_for
from biblios_kit.tui.table_session import SeatUnavailable, TableSession
from biblios_kit.tui.table_view import (
    PHASE_SECTIONS,
    Perspective,
    TableView,
    key_allowed,
    keys_for,
    legal_for,
    observed,
)
from biblios_kit.tui.widgets.action_bar import ActionBar


class TableActions(Screen[None]):
    """The person's actions on the table; the subclass draws (:meth:`update_view`) and plays (:meth:`apply`)."""

    session: TableSession
    seen: Perspective
    """Who looks at the table (viewer, actor), whether a dialog is open, the bid being chosen."""
    view: TableView | None
    """The view the panels show."""
    token: int
    """How many changes the table has gone through (a bot's or a forced move is for one of them)."""
    forcing: int = -1
    """The :attr:`token` of a forced move on its way: until it is played, no key plays (or opens a dialog)."""

    def update_view(self) -> None:
        """Draw the table again from :attr:`seen`."""
        raise NotImplementedError

    def apply(self, actions: list[int]) -> None:
        """Play ``actions`` (already checked), then go on with the game."""
        raise NotImplementedError

    def draw_curtain(self, seat: int) -> None:
        """Hide the table until ``seat`` takes the keyboard, then show their cards."""
        raise NotImplementedError

    @property
    def viewer(self) -> int | None:
        """The person whose private information is shown (``None``: only what everybody sees)."""
        return self.seen.viewer

    @property
    def actor(self) -> int | None:
        """A person deciding without their private cards on screen (hot-seat: a pick, a church card)."""
        return self.seen.actor

    @property
    def bid_choice(self) -> int:
        """The amount the person is about to bid."""
        return self.seen.bid_choice

    @property
    def notice_index(self) -> int | None:
        """The penalty notice on screen (index of its first event), if any."""
        return self.view.keys.notice if self.view is not None else None

    def my_legal(self) -> tuple[int, ...]:
        """The legal actions of the person at the keyboard now (empty when it is not their decision)."""
        return () if self.forcing == self.token else legal_for(self.session, self.seen)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer a key only when it does something legal now."""
        keys = keys_for(self.session, self.seen, self.my_legal(), self.notice_index)
        return key_allowed(keys, action, parameters)

    def _observation(self) -> Observation:
        return observed(self.session, self.seen)

    def _play(self, action: int) -> None:
        if action in self.my_legal():
            self.apply([action])

    def action_place(self, action: int) -> None:
        """Gift turn: keep the drawn card, or put it on the auction pile or in the public space."""
        self._play(action)

    def action_pick(self, number: int) -> None:
        """Take the ``number``-th card offered from the public space."""
        picks = [a for a in self.my_legal() if PICK <= a < PAY]
        if 1 <= number <= len(picks):
            self._play(picks[number - 1])

    def action_pass_bid(self) -> None:
        """Pass in this auction."""
        self._play(PASS)

    def action_bid(self) -> None:
        """Bid the amount shown."""
        self._play(BID + self.bid_choice)

    def action_bid_step(self, step: int) -> None:
        """Change the amount to bid by ``step`` within the legal range."""
        auction = self._observation().auction
        if auction is not None and self.my_legal():
            self.seen = replace(
                self.seen, bid_choice=max(auction.min_bid, min(auction.max_bid, self.bid_choice + step))
            )
            self.update_view()

    def _dialog_closed(self) -> None:
        self.seen = replace(self.seen, busy=False)

    def action_open_church(self) -> None:
        """Open the church/bishop dialog with the legal choices."""
        from biblios_kit.tui.dialogs.church import ChurchDialog

        legal, obs = self.my_legal(), self._observation()
        if not legal or obs.church is None:
            return
        owner, card = obs.church
        self.seen = replace(self.seen, busy=True)
        self.refresh_bindings()

        def chosen(action: int | None) -> None:
            self._dialog_closed()
            self._play(action) if action is not None else self.update_view()

        choices = tuple(a for a in legal if a == DECLINE or a >= CHURCH)
        self.app.push_screen(ChurchDialog(self.session.ruleset, card, choices, obs.dice, self.session.names[owner]),
                             chosen)  # fmt: skip

    def action_open_payment(self) -> None:
        """Open the payment dialog."""
        from biblios_kit.tui.dialogs.payment import PaymentDialog

        legal, obs = self.my_legal(), self._observation()
        if not legal or obs.payment is None or obs.auction is None:
            return
        self.seen = replace(self.seen, busy=True)
        self.refresh_bindings()

        def paid(actions: list[int] | None) -> None:
            self._dialog_closed()
            if actions and (actions == [REFUSE] or self._payment_complete(actions)):
                self.apply(actions)
            else:
                self.update_view()

        self.app.push_screen(PaymentDialog(self.session.ruleset, obs.payment.bid, obs.payment.currency,
                                           obs.auction.card, self.session.payment_options, observation=obs), paid)  # fmt: skip

    def _payment_complete(self, actions: list[int]) -> bool:
        try:
            return self.session.payment_options(actions) is None
        except SeatUnavailable as error:
            self.notify(str(error), severity="error", timeout=6)
            return False

    def on_action_bar_chosen(self, message: ActionBar.Chosen) -> None:
        """Route the action bar's buttons."""
        command = message.command
        if command.startswith("act-"):
            self._play(int(command[4:]))
        else:
            steps = {"bid-more": 1, "bid-less": -1}
            if command in steps:
                self.action_bid_step(steps[command])
            elif command == "bid-go":
                self.action_bid()
            elif command == "open-church":
                self.action_open_church()
            elif command == "open-payment":
                self.action_open_payment()

    def action_hint(self) -> None:
        """Ask the hard bot for a hint on the person's current decision (from their observation only).

        Only for a decision taken behind the curtain or alone at the screen: a hot-seat
        decision taken in view of everyone gets none, as its reasons would tell the others
        about the actor's cards.
        """
        if self.viewer is not None and self.actor is None and self.my_legal():
            self.app.push_screen(hint_for(self.session, self.viewer))

    def action_show_hand(self) -> None:
        """Hot-seat, deciding in view of everyone: bring the curtain down, then show the actor's cards."""
        if self.actor is not None and self.viewer != self.actor and not self.seen.busy:
            self.draw_curtain(self.actor)

    def action_dismiss_notice(self) -> None:
        """Close the penalty notice (Esc)."""
        if self.notice_index is not None:
            self.seen = replace(self.seen, dismissed=self.seen.dismissed | {self.notice_index})
            self.update_view()

    def action_quit_game(self) -> None:
        """Leave; the game is already saved after every action."""
        self.app.exit()

    def help_section(self) -> str:
        """The rulebook section F1 opens now."""
        return PHASE_SECTIONS.get(self.session.phase, "overview")
