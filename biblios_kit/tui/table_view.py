"""The table as one seat may see it: a frozen :class:`TableView`, computed once per change, with no Textual.

:func:`table_view` reads a :class:`~biblios_kit.tui.table_session.TableSession` from a
:class:`Perspective` (whose cards are on screen, who decides in view of everyone, the bid being
chosen) and returns one part per panel of the table screen. Each widget of
:mod:`biblios_kit.tui.widgets.table_panels` holds its part in a reactive attribute and draws
again only when its part changes. Everything private comes from the viewer's observation and
redacted events; with no viewer (hot-seat, between two people) the view holds only what
everybody sees. What just changed (:class:`Highlights`) is worked out by comparing with the
previous view.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from biblios_kit.engine.actions import BID, KEEP, PASS, PAY, PICK, TO_AUCTION, TO_PUBLIC
from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import _, current_language
from biblios_kit.rulebook.describe import action_label, term
from biblios_kit.rulebook.grammar import capitalize, name_forms
from biblios_kit.rules.model import CardKind
from biblios_kit.tui.localize import LANGUAGE_NAMES
from biblios_kit.tui.public_cards import Collection, collections, penalties
from biblios_kit.tui.render import bid_capacity, phase_name, short_card
from biblios_kit.tui.table_session import TableSession

Variant = Literal["default", "primary", "success", "warning", "error"]
"""The colour of an action button (Textual's button variants)."""

GIFT_KEYS: dict[int, str] = {KEEP: "k", TO_AUCTION: "a", TO_PUBLIC: "p"}
"""The key of each gift destination."""

PHASE_SECTIONS: dict[Phase, str] = {
    Phase.GIFT: "gift",
    Phase.PICK: "gift",
    Phase.CHURCH: "church",
    Phase.BIDDING: "auction",
    Phase.PAYMENT: "auction",
    Phase.GAME_OVER: "scoring",
}
"""The rulebook section F1 opens in each phase."""


@dataclass(frozen=True, slots=True)
class Perspective:
    """Who looks at the table and what they are doing, as the screen keeps it."""

    viewer: int | None = None
    """The person whose private information is shown (``None``: only what everybody sees)."""
    actor: int | None = None
    """A person deciding without their private cards on screen (hot-seat: a pick, a church card)."""
    busy: bool = False
    """A dialog or the curtain is open: no table action is offered."""
    bid_choice: int = 0
    """The amount the person is about to bid."""
    dismissed: frozenset[int] = frozenset()
    """Penalty notices closed (by the index of their first event)."""


def legal_for(session: TableSession, seen: Perspective) -> tuple[int, ...]:
    """The legal actions of the person at the keyboard now (empty when it is not their decision)."""
    current = session.current
    if seen.busy or current is None or current not in (seen.viewer, seen.actor) or not session.is_human(current):
        return ()
    return session.legal_actions()


def observed(session: TableSession, seen: Perspective) -> Observation:
    """The viewer's observation; with no viewer, its public fields only (a person's, with their cards taken out)."""
    seat = seen.viewer if seen.viewer is not None else seen.actor
    obs = session.observation(seat if seat is not None else (session.humans or (0,))[0])
    if seen.viewer is not None:
        return obs
    return replace(obs, hand=(), drawn=None, kept=None, my_kept=(), my_auction_cards=(), my_buried=(),
                   cards_paid=(), legal_actions=(), unpaid=())  # fmt: skip


@dataclass(frozen=True, slots=True)
class Known:
    """What a viewer knows from the events so far: the events, every collection, the penalties."""

    events: tuple[Event, ...]
    collections: tuple[Collection, ...]
    """Every player's collection as the viewer knows it; the viewer's own as everybody knows it."""
    mine_public: Collection | None
    """The viewer's own collection as everybody knows it (the marks in their hand)."""
    penalties: tuple[tuple[int, tuple[Event, ...]], ...]


class EventFeed:
    """The events one viewer has seen, read from the session as they come, and what follows from them.

    Worked out once per change of the log: a key that changes only the bid reuses them
    (measured at 80x24, 4 players, late auction: 23 ms of CPU per key without this, 12 with).
    """

    def __init__(self, session: TableSession) -> None:
        self.session = session
        self.viewer: int | None = -1
        self.events: list[Event] = []
        self.known: Known | None = None
        self.is_church = [card.kind is CardKind.CHURCH for card in session.ruleset.deck]

    def read(self, viewer: int | None) -> Known:
        """The events as ``viewer`` sees them now (read from the start for another viewer)."""
        if viewer != self.viewer:
            self.viewer, self.events, self.known = viewer, self.session.events_since(viewer, 0), None
        else:
            new = self.session.events_since(viewer, len(self.events))
            if new:
                self.events.extend(new)
                self.known = None
        if self.known is None:
            players, events = self.session.players, self.events
            known = collections(events, players, self.is_church)
            mine = None
            if viewer is not None:
                mine = collections(events, players, self.is_church, public=True)[viewer]
                known = tuple(mine if seat == viewer else c for seat, c in enumerate(known))
            found = tuple((index, tuple(group)) for index, group in penalties(events))
            self.known = Known(tuple(events), known, mine, found)
        return self.known


@dataclass(frozen=True, slots=True)
class Highlights:
    """What just changed, shown for a few seconds (always with a sign besides the colour)."""

    cards: tuple[frozenset[int], ...] = ()
    """Per seat, the cards that just joined their collection."""
    dice: tuple[tuple[int, int], ...] = ()
    """(die, its face before) for the dice that just moved."""
    log_from: int | None = None
    """The index of the first event whose log line is new."""


@dataclass(frozen=True, slots=True)
class StatusPart:
    """The top line: the edition, the phase, who plays, the language."""

    lang: str
    title: str
    phase: str
    player: str | None
    language: str


@dataclass(frozen=True, slots=True)
class DicePart:
    """The award dice's faces and, for those that just moved, the face before."""

    lang: str
    values: tuple[int, ...]
    previous: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class HandPart:
    """The viewer's hand, or a note saying why none is shown."""

    lang: str
    title: str
    subtitle: str
    cards: tuple[int, ...] | None
    """``None``: nobody's cards are on screen (:attr:`note` says why)."""
    seen: Collection | None
    """The viewer's cards everybody saw going into the hand (marked)."""
    note: str


@dataclass(frozen=True, slots=True)
class PublicPart:
    """The public space, the cards the person may take numbered."""

    lang: str
    cards: tuple[int, ...]
    numbered: tuple[tuple[int, int], ...]
    """(card, its key number) for the cards that can be taken now."""
    shown: bool
    """False during an auction with an empty public space: its room goes to the "Now" panel."""


@dataclass(frozen=True, slots=True)
class FocusPart:
    """The "Now" panel: what is being decided (drawn card, auction, payment, church card)."""

    lang: str
    obs: Observation
    names: tuple[str, ...]
    viewer: int | None
    bid_choice: int


@dataclass(frozen=True, slots=True)
class PlayersPart:
    """Every seat, its hand size and its collection, then the piles."""

    lang: str
    names: tuple[str, ...]
    seats: tuple[str, ...]
    hand_sizes: tuple[int, ...]
    current: int | None
    active: int
    viewer: int | None
    collections: tuple[Collection, ...]
    fresh: tuple[frozenset[int], ...]
    piles: tuple[int, int, int]
    """Draw pile, auction pile, cards out of the game."""


@dataclass(frozen=True, slots=True)
class LogPart:
    """The viewer's events, the newest from :attr:`fresh_from` highlighted."""

    lang: str
    viewer: int | None
    names: tuple[str, ...]
    events: tuple[Event, ...]
    fresh_from: int | None


@dataclass(frozen=True, slots=True)
class NoticePart:
    """The newest penalty not dismissed: its events as the viewer saw them."""

    lang: str
    names: tuple[str, ...]
    index: int
    """The index of its first event (what dismissing it remembers)."""
    group: tuple[Event, ...]
    revealed: Event | None
    """The auction's reveal before it (the currency of the bids)."""


@dataclass(frozen=True, slots=True)
class Offer:
    """One button of the action bar."""

    key: str
    """The key shown in front of the label (empty: none)."""
    label: str
    command: str
    """What it does: ``act-<action>``, ``bid-go``, ``bid-more``, ``bid-less``, ``open-church``, ``open-payment``."""
    variant: Variant
    short: str | None = None
    """A shorter label, for a bar too narrow for the long ones (the cards to pick)."""


@dataclass(frozen=True, slots=True)
class ActionsPart:
    """The action bar: the person's choices, or who the table waits for."""

    lang: str
    offers: tuple[Offer, ...]
    waiting: str | None


@dataclass(frozen=True, slots=True)
class KeysPart:
    """What the screen's keys depend on: they are offered again when it changes."""

    phase: Phase
    legal: tuple[int, ...]
    busy: bool
    notice: int | None
    show_hand: bool
    """Hot-seat, deciding in view of everyone: ``h`` shows the actor's cards after the curtain."""


@dataclass(frozen=True, slots=True)
class TableView:
    """Everything the table shows now, one part per panel (compared part by part by the widgets)."""

    seen: Perspective
    """The perspective it was made from, with the bid within the legal range."""
    lang: str
    phase: Phase
    legal: tuple[int, ...]
    status: StatusPart
    dice: DicePart
    hand: HandPart
    public: PublicPart
    focus: FocusPart
    players: PlayersPart
    log: LogPart
    notice: NoticePart | None
    actions: ActionsPart
    keys: KeysPart
    highlights: Highlights = field(default_factory=Highlights)
    news: bool = False
    """Something was highlighted that was not in the previous view (the highlight timer starts again)."""
    bid_context: tuple[int, int, int] | None = None
    """(cards revealed, high bid, bids): a new one brings the bid back to the lowest."""

    def faded(self) -> TableView:
        """This view with nothing highlighted (the next view compares with it)."""
        return replace(self, highlights=Highlights(), news=False)


def _highlights(previous: TableView | None, viewer: int | None, lang: str, known: Known,
                dice: tuple[int, ...], players: int) -> tuple[Highlights, bool]:  # fmt: skip
    """The highlights after ``previous``, and whether anything was added (the timer then starts again)."""
    if previous is None:
        return Highlights(cards=(frozenset(),) * players), False
    before = previous.highlights
    same_eyes = previous.seen.viewer == viewer and previous.lang == lang
    cards = before.cards if same_eyes and before.cards else (frozenset(),) * players
    if same_eyes and known.collections != previous.players.collections:
        cards = tuple(fresh | (frozenset(now.cards) - frozenset(then.cards))
                      for fresh, then, now in zip(cards, previous.players.collections, known.collections, strict=True))  # fmt: skip
    moved = dict(before.dice)
    for die, (old, new) in enumerate(zip(previous.dice.values, dice, strict=True)):
        if old != new:
            moved.setdefault(die, old)
    count = len(previous.log.events)
    new_events = same_eyes and len(known.events) > count
    log_from = None if not same_eyes else count if new_events and before.log_from is None else before.log_from
    news = new_events or previous.dice.values != dice or (same_eyes and cards != before.cards and any(cards))
    return Highlights(cards, tuple(sorted(moved.items())), log_from), news


def table_view(session: TableSession, seen: Perspective, feed: EventFeed,
               previous: TableView | None = None) -> TableView:  # fmt: skip
    """The table as ``seen.viewer`` may see it now; ``previous`` (the view shown until now) gives the highlights."""
    ruleset, names = session.ruleset, session.names
    lang = current_language()
    obs = observed(session, seen)
    viewer = seen.viewer
    legal = legal_for(session, seen)
    known = feed.read(viewer)
    lit, news = _highlights(previous, viewer, lang, known, obs.dice, session.players)
    # the bid: back to the lowest when the auction moves on, always within the legal range
    bid_choice, context = seen.bid_choice, None
    if obs.auction is not None:
        auction = obs.auction
        context = (len(obs.revealed), auction.high_bid, len(auction.bids))
        before = previous.bid_context if previous is not None else None
        if context != before or not auction.min_bid <= bid_choice <= auction.max_bid:
            bid_choice = auction.min_bid
    seen = replace(seen, bid_choice=bid_choice)
    current = obs.current_player
    status = StatusPart(lang, ruleset.title.get(lang), phase_name(ruleset, obs.phase),
                        _("{player} to play").format(player=names[current]) if current is not None else None,
                        LANGUAGE_NAMES.get(lang, lang))  # fmt: skip
    moved = dict(lit.dice)
    dice = DicePart(lang, obs.dice, tuple(None if moved.get(d, v) == v else moved[d] for d, v in enumerate(obs.dice)))
    picks = [a for a in legal if PICK <= a < PAY]
    numbered = tuple((a - PICK, index + 1) for index, a in enumerate(picks))
    pending = [(index, group) for index, group in known.penalties if index not in seen.dismissed]
    notice = None
    if pending:
        index, group = pending[-1]
        revealed = next((e for e in reversed(known.events[:index]) if e.kind is EventKind.REVEALED), None)
        notice = NoticePart(lang, names, index, group, revealed)
    return TableView(
        seen=seen,
        lang=lang,
        phase=obs.phase,
        legal=legal,
        status=status,
        dice=dice,
        hand=_hand(session, seen, obs, known, lang),
        public=PublicPart(lang, obs.public, numbered, shown=not (obs.auction is not None and not obs.public)),
        focus=FocusPart(lang, obs, names, viewer, bid_choice),
        players=PlayersPart(
            lang,
            names,
            session.seats,
            obs.hand_sizes,
            current,
            obs.active_player,
            viewer,
            known.collections,
            lit.cards,
            (obs.draw_pile, obs.auction_pile, obs.removed + len(obs.discard)),
        ),
        log=LogPart(lang, viewer, names, known.events, lit.log_from),
        notice=notice,
        actions=_actions(session, seen, obs, legal, lang),
        keys=keys_for(session, seen, legal, notice.index if notice is not None else None),
        highlights=lit,
        news=news,
        bid_context=context,
    )


def _hand(session: TableSession, seen: Perspective, obs: Observation, known: Known, lang: str) -> HandPart:
    ruleset, viewer, actor = session.ruleset, seen.viewer, seen.actor
    title = capitalize(term(ruleset, "hand"))
    if viewer is not None:
        return HandPart(lang, f"{title} — {session.names[viewer]}", _("° seen by all"), obs.hand, known.mine_public, "")
    if actor is not None and session.current == actor:
        note = _("{player} decides in view of everyone: h shows their cards (after the curtain).").format(
            player=session.names[actor]
        )
    else:
        note = _("Hidden until the next player is ready.")
    return HandPart(lang, title, "", None, None, note)


def _actions(session: TableSession, seen: Perspective, obs: Observation, legal: tuple[int, ...],
             lang: str) -> ActionsPart:  # fmt: skip
    ruleset, phase = session.ruleset, obs.phase
    offers: list[Offer] = []
    if legal:
        if phase is Phase.GIFT:
            offers = [Offer(GIFT_KEYS[a], action_label(ruleset, a), f"act-{a}", "primary")
                      for a in (KEEP, TO_AUCTION, TO_PUBLIC) if a in legal]  # fmt: skip
        elif phase is Phase.PICK:
            offers = [Offer(str(index + 1), action_label(ruleset, a), f"act-{a}", "primary", short_card(ruleset, a - PICK))
                      for index, a in enumerate(a for a in legal if PICK <= a < PAY)]  # fmt: skip
        elif phase is Phase.BIDDING and obs.auction is not None:
            currency = obs.auction.currency
            bid = action_label(ruleset, BID + seen.bid_choice, currency=currency)
            # only with the bidder's hand on screen: in view of everyone it would tell their Gold
            bluff = seen.viewer is not None and seen.bid_choice > bid_capacity(ruleset, obs.hand, currency)
            offers = [
                Offer("x", action_label(ruleset, PASS), f"act-{PASS}", "error"),
                Offer("", "−", "bid-less", "default"),
                Offer("b", bid + " " + _("(bluff)"), "bid-go", "warning") if bluff else Offer("b", bid, "bid-go", "success"),
                Offer("", "+", "bid-more", "default"),
            ]  # fmt: skip
        elif phase is Phase.CHURCH:
            offers = [Offer("c", _("Use the card…"), "open-church", "primary")]
        elif phase is Phase.PAYMENT:
            offers = [Offer("y", _("Pay…"), "open-payment", "primary")]
    return ActionsPart(lang, tuple(offers), None if offers else _waiting(session, obs, lang))


def _waiting(session: TableSession, obs: Observation, lang: str) -> str:
    if obs.current_player is None:
        return _("The game is over.")
    name = session.names[obs.current_player]
    if session.seats[obs.current_player] != "human":
        return _("{player} is thinking…").format(player=name)
    return _("Waiting for {player}.").format(**name_forms("player", name, lang))


def keys_for(session: TableSession, seen: Perspective, legal: tuple[int, ...], notice: int | None) -> KeysPart:
    """What the screen's keys depend on now: the phase, ``legal`` (:func:`legal_for`), the penalty ``notice``."""
    show_hand = not seen.busy and seen.actor is not None and seen.viewer != seen.actor
    return KeysPart(session.phase, legal, seen.busy, notice, show_hand)


TABLE_ACTIONS = frozenset({"place", "pick", "pass_bid", "bid", "bid_step", "open_church", "open_payment", "hint"})
"""The screen's actions that play or prepare a move: offered only when it is the person's decision."""


def key_allowed(keys: KeysPart, action: str, parameters: tuple[object, ...]) -> bool:
    """Whether the screen's ``action`` (with ``parameters``) does something legal in the view ``keys``."""
    if action == "quit_game":
        return True
    if action == "dismiss_notice":
        return keys.notice is not None
    if action == "show_hand":
        return keys.show_hand
    legal, phase = keys.legal, keys.phase
    if not legal:
        return action not in TABLE_ACTIONS
    if action == "place":
        return parameters[0] in legal
    if action == "pick":
        number = parameters[0]
        return phase is Phase.PICK and isinstance(number, int) and number <= len(legal)
    if action in ("pass_bid", "bid", "bid_step"):
        return phase is Phase.BIDDING
    if action == "open_church":
        return phase is Phase.CHURCH
    if action == "open_payment":
        return phase is Phase.PAYMENT
    return True
