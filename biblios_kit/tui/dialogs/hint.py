"""The hint dialog (the hard bot's move for the player's decision, and why) and the game review.

Both take only what a player may know: :class:`HintDialog` gets the player's
:class:`~biblios_kit.engine.Observation`, :class:`ReviewDialog` the game's seed and actions
(the review replays them and reads each person's own observations, see
:func:`biblios_kit.bots.hints.review`). The bot thinks in a worker thread; the sentences are
made here, in the active language, from the reasons' codes and numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Label, Static

from biblios_kit.bots.hints import (
    BID_FOR,
    CHURCH_CARD,
    DECLINE_CHURCH,
    GIVE_CARD,
    GOLD,
    HIDE_CARD,
    HINT_ITERATIONS,
    KEEP_CARD,
    LOWER_DIE,
    ONLY_MOVE,
    PASS_BID,
    PAY_LEAST,
    RAISE_DIE,
    REFUSE_PAY,
    TAKE_CARD,
    Hint,
    Reason,
    ReviewItem,
    review,
    suggest,
)
from biblios_kit.engine.actions import Action
from biblios_kit.engine.events import to_event
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import new_game
from biblios_kit.i18n import _, current_language, format_percent, ngettext
from biblios_kit.rulebook.describe import EventDescriber, action_label, bid_text, term_args
from biblios_kit.rules.model import Ruleset
from biblios_kit.tui.dialogs.base import TableDialog
from biblios_kit.tui.render import phase_name
from biblios_kit.tui.table_session import TableSession


def _category(ruleset: Ruleset, k: int) -> str:
    category = ruleset.categories[k]
    return f"{category.glyph} {category.name.get(current_language())}"


def _at_stake(dice: Sequence[int]) -> str:
    points = sum(dice)
    return ngettext("{points} victory point at stake", "{points} victory points at stake", points).format(points=points)


def reason_sentence(ruleset: Ruleset, reason: Reason, currency: str = "gold") -> str:
    """One reason as a sentence in the active language, in the edition's terms."""
    terms = term_args(ruleset)
    code = reason.code
    values: dict[str, str] = dict(terms)
    if reason.category is not None:
        values["category"] = _category(ruleset, reason.category)
    if reason.chance is not None:
        values["chance"] = format_percent(reason.chance)
    if reason.chance_after is not None:
        values["after"] = format_percent(reason.chance_after)
    if reason.dice and code not in (RAISE_DIE, LOWER_DIE):
        values["stake"] = _at_stake(reason.dice)
    if code in (KEEP_CARD, TAKE_CARD, BID_FOR) and reason.category is not None:
        return _("Your chance of winning {category} would go from {chance} to {after} ({stake}).").format(**values)
    if code == HIDE_CARD:
        return _(
            "In a rival's hand it would lower your chance of winning {category} from {chance} to {after} "
            "({stake}); on {the_auction_pile} you can still bid for it."
        ).format(**values)
    if code == GIVE_CARD:
        return _(
            "It is the card you lose least by giving away: even in the hand of the rival it helps most, "
            "your chance of winning {category} would go from {chance} to {after}."
        ).format(**values)
    if code == GOLD:
        values["amount"] = str(reason.amount)
        return _("{gold} {amount}: worth what it can buy during {the_auction_phase}.").format(**values)
    if code == CHURCH_CARD:
        return _("With {a_church} you can move the award dice.").format(**values)
    if code in (RAISE_DIE, LOWER_DIE):
        values["before"], values["face"] = (str(face) for face in reason.dice)
        if code == RAISE_DIE:
            return _(
                "Raising the {category} die from {before} to {face} helps you: your chance of winning it is {chance}."
            ).format(**values)
        return _(
            "Lowering the {category} die from {before} to {face} hurts your rivals more than you: "
            "your chance of winning it is {chance}."
        ).format(**values)
    if code == DECLINE_CHURCH:
        return _("Every way of moving the dice would cost you more than it gains.")
    if code == PASS_BID:
        values["amount"] = bid_text(ruleset, reason.amount or 0, currency)
        if reason.category is None:
            return _("The card is not worth {amount} to you.").format(**values)
        return _(
            "The card is not worth {amount} to you: your chance of winning {category} would only go "
            "from {chance} to {after}."
        ).format(**values)
    if code == BID_FOR:
        values["amount"] = bid_text(ruleset, reason.amount or 0, currency)
        return _("The card is worth at least {amount} to you.").format(**values)
    if code == PAY_LEAST:
        return _("Pay with what you will miss least.")
    if code == REFUSE_PAY:
        return _("The penalty costs you less than paying.")
    if code == ONLY_MOVE:
        return _("It is your only legal move.")
    raise ValueError(f"unknown reason code {code!r}")


def move_text(ruleset: Ruleset, observation: Observation, action: Action) -> str:
    """The move as on the table's buttons ("Keep it", "Bid 3 Gold", "† Monks 3 → 4")."""
    currency = observation.auction.currency if observation.auction is not None else "gold"
    return action_label(ruleset, action, observation.dice, currency)


def hint_lines(ruleset: Ruleset, observation: Observation, hint: Hint) -> list[str]:
    """The hint as sentences: the move, its reasons, the estimated chance of winning the game."""
    currency = observation.auction.currency if observation.auction is not None else "gold"
    lines = [_("Suggested move: {move}").format(move=move_text(ruleset, observation, hint.action))]
    lines += [reason_sentence(ruleset, reason, currency) for reason in hint.reasons]
    if hint.win_chance is not None:
        lines.append(
            _("Estimated chance of winning the game with this move: {chance}.").format(
                chance=format_percent(hint.win_chance)
            )
        )
    return lines


def move_sentences(
    ruleset: Ruleset,
    players: int,
    seed: int,
    actions: Sequence[Action],
    indices: Iterable[int],
    names: Sequence[str],
    reseeds: Sequence[tuple[int, int]] = (),
) -> dict[int, str]:
    """The log's sentence for each move in ``indices`` (0-based positions in ``actions``), as its player saw it.

    The game is replayed from ``seed``; a move's sentence is the first one the log writes for
    the events it caused ("Ann keeps the Gold 3.", "Bob bids 4 Gold."), with the cards its
    player could see named and the others hidden, the way that player's log showed it. A
    game continued from a save is dealt again at its ``reseeds`` (moves made, new seed).
    """
    wanted = set(indices)
    deals = dict(reseeds)
    state = new_game(ruleset, players, seed)
    describer = EventDescriber(ruleset, names)
    found: dict[int, str] = {}
    for index, action in enumerate(actions):
        if not wanted - found.keys():
            break
        if index in deals:
            reseed(state, deals[index])
        player = state.current_player
        if player is None:
            break
        start = len(state.log)
        state.apply(action)
        lines = describer.describe_all([to_event(raw, player) for raw in state.log[start:]])
        if index in wanted and lines:
            found[index] = lines[0]
    return found


def review_lines(ruleset: Ruleset, item: ReviewItem, move: str | None = None) -> list[str]:
    """One reviewed decision as sentences: the move as the log names it (``move``, when given), what was
    played, what the bot suggests, and why."""
    observation = item.observation
    currency = observation.auction.currency if observation.auction is not None else "gold"
    played = move_text(ruleset, observation, item.played)
    suggested = move_text(ruleset, observation, item.hint.action)
    best = item.hint.win_chance if item.hint.win_chance is not None else item.played_chance
    head = _(
        "Decision {number} ({phase}): you played {played} ({played_chance}); the bot suggests {suggested} ({chance})."
    ).format(
        number=item.index + 1,
        phase=phase_name(ruleset, item.phase),
        played=played,
        played_chance=format_percent(item.played_chance),
        suggested=suggested,
        chance=format_percent(best),
    )
    reasons = [reason_sentence(ruleset, reason, currency) for reason in item.hint.reasons]
    return [move, head, *reasons] if move else [head, *reasons]


HINT_CSS = """
HintDialog #hint-text, ReviewDialog #review-text {
    width: 100%;
}
ReviewDialog #review-scroll {
    height: 1fr;
}
"""


class HintDialog(TableDialog[None]):
    """Ask the hard bot for the player's current decision and show its move and reasons (Escape closes).

    Like the church and payment dialogs it opens under the board (the dice and the hand stay
    in view: the hint speaks of them)."""

    DEFAULT_CSS = HINT_CSS

    BINDINGS = [Binding("escape,enter,h", "close", show=False, id="hint.close")]

    def __init__(
        self,
        ruleset: Ruleset,
        observation: Observation,
        player_name: str,
        iterations: int = HINT_ITERATIONS,
        advise: Callable[[Observation], Hint] | None = None,
    ) -> None:
        super().__init__(ruleset)
        self.observation = observation
        self.player_name = player_name
        self.iterations = iterations
        self.advise = advise
        """What gives the hint (by default :func:`~biblios_kit.bots.hints.suggest` with ``iterations``)."""
        self.hint: Hint | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="table-dialog", id="hint-dialog") as box:
            box.border_title = Content(_("{player}: a hint").format(player=self.player_name))  # a name: not markup
            yield Static(Text(self._body()), id="hint-text")
            yield Label(_("Esc: close"), classes="muted hint")

    def _body(self) -> str:
        if self.hint is None:
            return _("Thinking…")
        return "\n".join(hint_lines(self.ruleset, self.observation, self.hint))

    def rows_wanted(self) -> int:
        """Borders, the text as it wraps, and the key hint."""
        return 2 + self.text_rows(self._body()) + 1

    def on_mount(self) -> None:
        self.fit()
        if self.hint is None:
            self._think()

    @work(thread=True, exclusive=True, group="hint")
    def _think(self) -> None:
        advise = self.advise
        hint = (
            advise(self.observation)
            if advise is not None
            else suggest(self.observation, self.ruleset, iterations=self.iterations)
        )
        self.app.call_from_thread(self._show, hint)

    def _show(self, hint: Hint) -> None:
        self.hint = hint
        self.query_one("#hint-text", Static).update(Text(self._body()))
        self.fit()

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language (the hint itself is data: nothing is recomputed)."""
        await self.recompose()
        self.fit()

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)


class ReviewDialog(TableDialog[None]):
    """After a game: each person's decisions where the bot's evaluation differed most from the move played.

    It opens at the bottom of the screen, the screen below it in view; its text scrolls."""

    DEFAULT_CSS = HINT_CSS

    BINDINGS = [Binding("escape,enter", "close", show=False, id="review.close")]

    def __init__(
        self,
        ruleset: Ruleset,
        players: int,
        seed: int,
        actions: Sequence[Action],
        humans: Sequence[int],
        names: Sequence[str],
        per_player: int = 5,
        iterations: int = HINT_ITERATIONS,
        reseeds: Sequence[tuple[int, int]] = (),
    ) -> None:
        super().__init__(ruleset)
        self.players = players
        self.seed = seed
        self.actions = tuple(actions)
        self.reseeds = tuple(reseeds)
        """Where a game continued from a save was dealt again (moves made, new seed)."""
        self.humans = tuple(humans)
        self.names = tuple(names)
        self.per_player = per_player
        self.iterations = iterations
        self.items: dict[int, list[ReviewItem]] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="table-dialog", id="review-dialog") as box:
            box.border_title = _("Review of the game")
            with VerticalScroll(id="review-scroll"):
                yield Static(Text(self._body()), id="review-text")
            yield Label(_("Esc: close"), classes="muted hint")

    def _body(self) -> str:
        if self.items is None:
            return _("The bot is reviewing the game…")
        indices = [item.index for items in self.items.values() for item in items]
        moves = move_sentences(self.ruleset, self.players, self.seed, self.actions, indices, self.names, self.reseeds)
        lines: list[str] = []
        for seat in self.humans:
            lines.append(self.names[seat])
            items = self.items.get(seat, [])
            if not items:
                lines.append(_("No decision the bot would have played differently."))
            for item in items:
                lines += ["  " + line for line in review_lines(self.ruleset, item, moves.get(item.index))]
            lines.append("")
        return "\n".join(lines).rstrip()

    def rows_wanted(self) -> int:
        """Borders, the text as it wraps (it scrolls when longer than the room), and the key hint."""
        return 2 + self.text_rows(self._body()) + 1

    def on_mount(self) -> None:
        self.fit()
        if self.items is None:
            self._think()

    @work(thread=True, exclusive=True, group="review")
    def _think(self) -> None:
        items = review(
            self.ruleset,
            self.players,
            self.seed,
            self.actions,
            self.humans,
            self.per_player,
            self.iterations,
            self.reseeds,
        )
        self.app.call_from_thread(self._show, items)

    def _show(self, items: dict[int, list[ReviewItem]]) -> None:
        self.items = items
        self.query_one("#review-text", Static).update(Text(self._body()))
        self.fit()

    async def relocalize(self) -> None:
        """Rebuild the dialog in the active language."""
        await self.recompose()
        self.fit()

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)


def hint_binding() -> Binding:
    """The table's key for a hint (``t``, for tip: ``h`` shows the hot-seat hand), labelled in the active language."""
    return Binding("t", "hint", _("Hint"), id="table.hint")


def review_binding() -> Binding:
    """The end screen's key for the review (``r``), labelled in the active language."""
    return Binding("r", "review", _("Review"), id="end.review")


def hint_for(session: TableSession, seat: int) -> HintDialog:
    """The hint dialog for ``seat``'s current decision in ``session`` (from that seat's observation only)."""
    return HintDialog(session.ruleset, session.observation(seat), session.names[seat])


def review_for(session: TableSession) -> ReviewDialog:
    """The review dialog of ``session``'s game, for every seat a person plays (a game held on this machine)."""
    state = session.full_state
    if state is None:
        raise ValueError("the game is held by a server: there is no record here to review")
    return ReviewDialog(
        session.ruleset,
        state.players,
        state.seed,
        state.history,
        session.humans,
        session.names,
        reseeds=state.reseeds,
    )


__all__ = [
    "HintDialog",
    "ReviewDialog",
    "hint_binding",
    "hint_for",
    "hint_lines",
    "move_sentences",
    "move_text",
    "reason_sentence",
    "review_binding",
    "review_for",
    "review_lines",
]
