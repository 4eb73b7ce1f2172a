"""A finished game replayed move by move from its record, for the end screen.

:class:`GameReplay` rebuilds the position after any move from the seed and the actions
(the engine replays a record exactly, see :mod:`biblios_kit.engine.records`);
:class:`ReplayView` shows it: the move, what it caused, the dice, every player's totals
and the public space and auction of that moment. The game is over, so every card is shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Static

from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.reseed import reseed
from biblios_kit.engine.state import GameState, new_game
from biblios_kit.i18n import _
from biblios_kit.rulebook.describe import EventDescriber, action_label, bid_text, card_currency, term
from biblios_kit.rulebook.grammar import capitalize
from biblios_kit.rules.model import CardKind
from biblios_kit.tui.dialogs.base import dice_preview
from biblios_kit.tui.render import ACCENT, MUTED, card_list, card_text, fill, phase_name


class GameReplay:
    """The positions of a finished game, after each of its moves (0 = the deal)."""

    def __init__(self, final: GameState) -> None:
        self.ruleset = final.ruleset
        self.players = final.players
        self.seed = final.seed
        self.actions: tuple[int, ...] = final.actions
        self.reseeds: dict[int, int] = dict(final.reseeds)
        """Where the game was dealt again (a continued save): the number of moves made, and the new seed."""
        self.events: list[Event] = final.events
        """The whole log, every card shown (the game is over)."""
        self.actors: list[int] = []
        """Who made each move."""
        self.marks: list[int] = []
        """Length of the log after the deal and after each move: move ``k``'s events are ``marks[k-1]:marks[k]``."""
        state = new_game(self.ruleset, self.players, self.seed)
        self.marks.append(len(state.log))
        for index, action in enumerate(self.actions):
            self._deal_again(state, index)
            actor = state.current_player
            assert actor is not None
            self.actors.append(actor)
            state.apply(action)
            self.marks.append(len(state.log))
        self._state = state
        self._step = len(self.actions)

    @property
    def moves(self) -> int:
        """Number of moves in the game."""
        return len(self.actions)

    def position(self, step: int) -> GameState:
        """The game after ``step`` moves (replayed from the deal, or onward from the last position asked)."""
        step = max(0, min(step, self.moves))
        if step < self._step:
            self._state = new_game(self.ruleset, self.players, self.seed)
            self._step = 0
        while self._step < step:
            self._deal_again(self._state, self._step)
            self._state.apply(self.actions[self._step])
            self._step += 1
        return self._state

    def _deal_again(self, state: GameState, moves: int) -> None:
        """Reseed ``state`` (``moves`` moves made) where the game was continued, as a record's replay does."""
        seed = self.reseeds.get(moves)
        if seed is not None:
            reseed(state, seed)

    def events_of(self, step: int) -> list[Event]:
        """What move ``step`` caused (for 0, the deal)."""
        if step <= 0:
            return self.events[: self.marks[0]]
        return self.events[self.marks[step - 1] : self.marks[step]]


def replay_renderable(replay: GameReplay, step: int, names: Sequence[str]) -> Group:
    """The position after ``step`` moves: the move and its effects, the dice, each player's totals, the table."""
    ruleset = replay.ruleset
    state = replay.position(step)
    parts: list[Text | Table] = []
    head = Text()
    head.append(_("Move {step} of {moves}").format(step=step, moves=replay.moves), style=ACCENT)
    head.append("  ")
    head.append(phase_name(ruleset, state.phase), style="bold")
    parts.append(head)
    if step > 0:
        actor = replay.actors[step - 1]
        parts.append(
            fill(
                _("{player}: {action}"),
                MUTED,
                player=Text(names[actor], style="bold"),
                action=Text(action_label(ruleset, replay.actions[step - 1])),
            )
        )
    describer = EventDescriber(ruleset, names)
    earlier = replay.events[: replay.marks[step - 1]] if step > 0 else []
    revealed = next((e.card for e in reversed(earlier) if e.kind is EventKind.REVEALED and e.card is not None), None)
    if revealed is not None:  # bids are counted in the currency of the card under auction
        describer.currency = card_currency(ruleset, revealed)
    for sentence in describer.describe_all(replay.events_of(step)):
        parts.append(Text("  " + sentence))
    parts.append(fill(_("Dice: {dice}"), MUTED, dice=dice_preview(ruleset, state.dice_values(), (), 0)))
    parts.append(_totals_table(state, names))
    zones = state.zones()
    public = zones["public"]
    parts.append(
        fill(
            _("{public_space}: {cards}"),
            MUTED,
            public_space=capitalize(term(ruleset, "public_space")),
            cards=card_list(ruleset, public) if public else Text(_("(empty)"), style=MUTED),
        )
    )
    observation = state.observation(state.active_player)
    if observation.auction is not None:
        auction = observation.auction
        line = fill(_("Under auction: {card}"), MUTED, card=card_text(ruleset, auction.card))
        if auction.high_bidder is not None:
            line.append(" · ", style=MUTED)
            line.append_text(
                fill(
                    _("High bid: {amount} by {player}"),
                    MUTED,
                    amount=Text(bid_text(ruleset, auction.high_bid, auction.currency), style="bold"),
                    player=names[auction.high_bidder],
                )
            )
        parts.append(line)
    return Group(*parts)


def _totals_table(state: GameState, names: Sequence[str]) -> Table:
    """One row per player: each category's total and best letter, the Gold, the number of cards."""
    ruleset = state.ruleset
    table = Table(box=None, padding=(0, 1), pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("", no_wrap=True, overflow="ellipsis", max_width=14)
    for category in ruleset.categories:
        table.add_column(Text(category.glyph, style=f"bold {category.colour}"), justify="right", no_wrap=True)
    table.add_column(Text(term(ruleset, "gold"), style="bold #f1c40f"), justify="right", no_wrap=True)
    table.add_column(Text(_("Cards")), justify="right", no_wrap=True)
    current = state.current_player
    for player, name in enumerate(names):
        hand = state.hand(player)
        label = Text("▶ " if player == current else "  ", style=ACCENT)
        label.append(name, style="bold" if player == current else "")
        cells: list[Text] = []
        for category in ruleset.categories:
            cards = [ruleset.deck[c] for c in hand if ruleset.deck[c].category == category.id]
            total = sum(c.value for c in cards)
            letters = sorted(c.letter for c in cards if c.letter)
            cell = Text(f"{total}" + (letters[0] if letters else " "), style="" if total else MUTED)
            cells.append(cell)
        gold = sum(ruleset.deck[c].value for c in hand if ruleset.deck[c].kind is CardKind.GOLD)
        cells.append(Text(str(gold), style="#f1c40f" if gold else MUTED))
        cells.append(Text(str(len(hand))))
        table.add_row(label, *cells)
    return table


class ReplayView(Static, can_focus=True):
    """The replay of a finished game; ←/→ step a move, PgUp/PgDn ten, Home/End the deal and the end."""

    BINDINGS = [
        Binding("right", "step(1)", "→", show=False),
        Binding("left", "step(-1)", "←", show=False),
        Binding("pagedown", "step(10)", show=False),
        Binding("pageup", "step(-10)", show=False),
        Binding("home", "go(0)", show=False),
        Binding("end", "go(-1)", show=False),
    ]

    step: reactive[int] = reactive(0)

    def __init__(self, replay: GameReplay, names: Sequence[str], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.replay = replay
        self.names = list(names)

    def on_mount(self) -> None:
        self.redraw()

    def watch_step(self) -> None:
        """Draw the new position."""
        self.redraw()

    def redraw(self) -> None:
        """Render the current position in the active language."""
        if self.is_attached:
            self.update(replay_renderable(self.replay, self.step, self.names))

    def action_step(self, moves: int) -> None:
        """Go ``moves`` forward (or back), within the game."""
        self.step = max(0, min(self.replay.moves, self.step + moves))

    def action_go(self, step: int) -> None:
        """Go to move ``step`` (-1: the last one)."""
        self.step = self.replay.moves if step < 0 else step
