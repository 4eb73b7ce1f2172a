"""Rich renderables for the table: pure functions of a ruleset, an observation and the seat names.

Nothing here reads the engine state: everything comes from the viewer's
:class:`~biblios_kit.engine.Observation` (or is public), so a panel can never show a
card its viewer may not know.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.observation import Observation
from biblios_kit.engine.state import Phase
from biblios_kit.i18n import _, current_language, format_list, format_number, ngettext
from biblios_kit.rulebook.describe import (
    EventDescriber,
    bid_text,
    bot_note,
    card_name,
    card_values,
    die_category,
    effect_symbol,
    term,
)
from biblios_kit.rulebook.describe import term_args as describe_term_args
from biblios_kit.rulebook.grammar import capitalize, name_forms
from biblios_kit.rules.model import CardKind, PenaltyKind, Ruleset
from biblios_kit.tui.localize import contrast
from biblios_kit.tui.public_cards import Collection

MUTED = "grey62"
ACCENT = "bold #e0b050"
FRESH = "bold reverse"
"""What just changed (a card, a die, a log line), for a few seconds; always with a sign besides the style."""

_TERM_ARGS: dict[tuple[int, str], tuple[Ruleset, dict[str, str]]] = {}


def term_args(ruleset: Ruleset) -> dict[str, str]:
    """:func:`~biblios_kit.rulebook.describe.term_args` in the active language, worked out once per ruleset and
    language (every term in every form: some 350 strings, a sixth of the "Now" panel's time at each key).
    The values are shared: pass them as ``**term_args(ruleset)``, do not change them."""
    lang = current_language()
    key = (id(ruleset), lang)
    cached = _TERM_ARGS.get(key)
    if cached is None or cached[0] is not ruleset:
        if len(_TERM_ARGS) > 16:
            _TERM_ARGS.clear()
        cached = _TERM_ARGS[key] = (ruleset, describe_term_args(ruleset, lang))
    return cached[1]


WARNING = "bold #e74c3c"
PUBLIC_MARK = "°"
"""After a card of your hand that everybody saw going into it."""
FRESH_MARK = "+"
"""Before a card that just joined a collection."""


def fill(template: str, style: str = "", **values: str | Text) -> Text:
    """A translated ``template`` as rich text: its own words in ``style``, each ``{name}`` replaced by ``values[name]``.

    A label and its punctuation stay one message ("You drew: {card}", « Vous avez pioché : … »)
    that a translator can reorder, while the values keep their own styles.
    """
    text = Text()
    for index, part in enumerate(re.split(r"\{(\w+)\}", template)):
        if index % 2:
            value = values[part]
            if isinstance(value, Text):
                text.append_text(value)
            else:
                text.append(value)
        elif part:
            text.append(part, style=style)
    return text


def card_list(ruleset: Ruleset, cards: Sequence[int]) -> Text:
    """Coloured card names joined as a list in the active language ("A, B et C")."""
    marks = [f"\x00{index}\x00" for index in range(len(cards))]
    joined = format_list(marks)
    text = Text()
    for index, part in enumerate(joined.split("\x00")):
        if index % 2:
            text.append_text(card_text(ruleset, cards[int(part)]))
        elif part:
            text.append(part)
    return text


def card_text(ruleset: Ruleset, card: int) -> Text:
    """A card name coloured by its category (Gold in gold, church cards in white on purple)."""
    c = ruleset.deck[card]
    name = card_name(ruleset, card)
    if c.kind is CardKind.CATEGORY and c.category is not None:
        return Text(name, style=f"bold {ruleset.category(c.category).colour}")
    if c.kind is CardKind.GOLD:
        return Text(name, style="bold #f1c40f")
    return Text(name, style="bold #ecf0f1 on #5b2c6f")


def card_phrases(ruleset: Ruleset, card: int) -> dict[str, Text]:
    """A card in every sentence form (``{a_card}``, ``{the_card}``, ...: see
    :func:`biblios_kit.rulebook.describe.card_values`), coloured like :func:`card_text`, for :func:`fill`."""
    style = card_text(ruleset, card).style
    return {key: Text(value, style=style) for key, value in card_values(ruleset, card).items() if "agree" not in key}


def phase_name(ruleset: Ruleset, phase: Phase) -> str:
    """The phase in the edition's words (Gift phase / Donation stage ...)."""
    if phase in (Phase.GIFT, Phase.PICK):
        return capitalize(term(ruleset, "gift_phase"))
    if phase in (Phase.BIDDING, Phase.PAYMENT):
        return capitalize(term(ruleset, "auction_phase"))
    if phase is Phase.CHURCH:
        return capitalize(term(ruleset, "church"))
    return _("Game over")


def die_chip(ruleset: Ruleset, die: int, value: int, width: int = 16, previous: int | None = None) -> Text:
    """One award die in ``width`` cells: category colour as background, glyph and name, then the face.

    ``previous`` (the face before a move that just happened) adds an arrow ▲ or ▼ after the face.
    """
    category = ruleset.category(die_category(ruleset, die))
    style = f"bold {contrast(category.colour)} on {category.colour}"
    suffix = ""
    if len(category.dice) > 1:  # several dice per category: the place stays visible however narrow
        first = next(i for i in range(die + 1) if die_category(ruleset, i) == category.id)
        suffix = f" #{category.dice[die - first].place}"
    name = Text(f"{category.glyph} {category.name.get(current_language())}", style=style, justify="center")
    name.truncate(max(1, width - len(suffix)), overflow="ellipsis")
    name.append(suffix, style=style)
    arrow = "" if previous is None or previous == value else (" ▲" if value > previous else " ▼")
    face = Text(f"{'■' * value}{'□' * max(0, 6 - value)} {value}{arrow}", style=style, justify="center")
    if arrow:
        face.stylize("reverse", len(face) - 1)
    return Text("\n", justify="center").join([name, face])


def hand_table(ruleset: Ruleset, hand: Sequence[int], public: Collection | None = None) -> Table:
    """The hand grouped by category (values with letters, total), then the Gold cards and their total.

    Cards of ``public`` (what everybody saw going into this hand) carry :data:`PUBLIC_MARK`.
    """
    seen = frozenset(public.cards) if public is not None else frozenset()
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(no_wrap=True, overflow="ellipsis")
    table.add_column(ratio=1, overflow="fold")
    table.add_column(justify="right", no_wrap=True)
    by_category: dict[str, list[int]] = defaultdict(list)
    gold: list[int] = []
    for card in hand:
        c = ruleset.deck[card]
        if c.kind is CardKind.GOLD:
            gold.append(card)
        elif c.category is not None:
            by_category[c.category].append(card)
    lang = current_language()
    for category in ruleset.categories:
        cards = sorted(
            by_category.get(category.id, ()), key=lambda k: (ruleset.deck[k].value, ruleset.deck[k].letter or "")
        )
        colour = category.colour
        label = Text(f"{category.glyph} {category.name.get(lang)}", style=f"bold {colour}")
        if not cards:
            table.add_row(label, Text("·", style=MUTED), Text("0", style=MUTED))
            continue
        items = Text()
        for index, card in enumerate(cards):
            c = ruleset.deck[card]
            if index:
                items.append(" ")
            items.append(f"{c.value}{c.letter or ''}", style=colour)
            if card in seen:
                items.append(PUBLIC_MARK, style=MUTED)
        total = sum(ruleset.deck[card].value for card in cards)
        table.add_row(label, items, Text(str(total), style="bold"))
    gold_label = Text(term(ruleset, "gold"), style="bold #f1c40f")
    gold_items = Text("" if gold else "·", style="#f1c40f" if gold else MUTED)
    for index, card in enumerate(sorted(gold, key=lambda k: (ruleset.deck[k].value, k))):
        gold_items.append((" " if index else "") + str(ruleset.deck[card].value))
        if card in seen:
            gold_items.append(PUBLIC_MARK, style=MUTED)
    total = sum(ruleset.deck[card].value for card in gold)
    table.add_row(gold_label, gold_items, Text(str(total), style="bold #f1c40f"))
    return table


def short_card(ruleset: Ruleset, card: int) -> str:
    """A card in a few cells for a narrow button: ``†4I``, ``Gold 2``, ``+1 ×2``."""
    c = ruleset.deck[card]
    if c.kind is CardKind.CATEGORY and c.category is not None:
        return f"{ruleset.category(c.category).glyph}{c.value}{c.letter or ''}"
    if c.kind is CardKind.CHURCH and c.effect is not None:
        return effect_symbol(c.effect.signs, c.effect.dice, c.effect.targets)
    return card_name(ruleset, card)


def collection_text(ruleset: Ruleset, collection: Collection, fresh: frozenset[int] = frozenset()) -> Text:
    """A public collection by category: glyph, then values with letters (``†2A 3E ◆3F Gold 1 2``).

    Cards in ``fresh`` just joined it: they show :data:`FRESH_MARK` and :data:`FRESH`. When cards
    left the hand unseen since, a note says how many (any card shown may be gone). Empty when no card
    was seen going into the hand.
    """
    by_category: dict[str, list[int]] = defaultdict(list)
    gold: list[int] = []
    for card in collection.cards:
        c = ruleset.deck[card]
        if c.kind is CardKind.GOLD:
            gold.append(card)
        elif c.category is not None:
            by_category[c.category].append(card)
    text = Text()

    def item(card: int, label: str, style: str, first: bool) -> None:
        if not first:
            text.append(" ")
        if card in fresh:
            text.append(FRESH_MARK + label, style=f"{style} {FRESH}")
        else:
            text.append(label, style=style)

    for category in ruleset.categories:
        cards = sorted(by_category.get(category.id, ()), key=lambda k: (ruleset.deck[k].value, ruleset.deck[k].letter))
        if not cards:
            continue
        if text:
            text.append(" ")
        text.append(category.glyph, style=f"bold {category.colour}")
        for index, card in enumerate(cards):
            c = ruleset.deck[card]
            item(card, f"{c.value}{c.letter or ''}", category.colour, index == 0)
    if gold:
        if text:
            text.append(" ")
        text.append(term(ruleset, "gold") + " ", style="bold #f1c40f")
        for index, card in enumerate(sorted(gold, key=lambda k: (ruleset.deck[k].value, k))):
            item(card, str(ruleset.deck[card].value), "#f1c40f", index == 0)
    if collection.unseen_losses:
        count = collection.unseen_losses
        text.append(" · ", style=MUTED)
        text.append(
            ngettext("{count} card gone unseen", "{count} cards gone unseen", count).format(count=count),
            style=f"italic {MUTED}",
        )
    return text


def public_text(ruleset: Ruleset, public: Sequence[int], numbered: dict[int, int] | None = None) -> Text:
    """The public space; cards that can be taken now carry their key number ``[1]``."""
    if not public:
        return Text(_("({agree_public_space:empty})").format(**term_args(ruleset)), style=MUTED)
    text = Text()
    for index, card in enumerate(public):
        if index:
            text.append("\n")
        key = (numbered or {}).get(card)
        text.append(f"[{key}] " if key is not None else "    ", style=ACCENT)
        text.append_text(card_text(ruleset, card))
    return text


def players_table(names: Sequence[str], seats: Sequence[str], hand_sizes: Sequence[int], current: int | None,
                  active: int, viewer: int | None, ruleset: Ruleset | None = None,
                  known: Sequence[Collection] = (), fresh: Sequence[frozenset[int]] = ()) -> Table:  # fmt: skip
    """Every seat: a marker for whose decision it is, the name, person or bot, and the hand size; with
    ``known``, the seat's public collection (:func:`collection_text`) follows the name, wrapped under it."""
    table = Table.grid(padding=(0, 1), expand=True)
    table.add_column(width=1)
    table.add_column(ratio=1, overflow="fold")
    table.add_column(justify="right", no_wrap=True)
    for seat, name in enumerate(names):
        marker = Text("▶", style=ACCENT) if seat == current else Text("•" if seat == active else " ", style=MUTED)
        label = Text(name, style="bold" if seat == viewer else "")
        if seats[seat] != "human":
            label.append(" " + bot_note(seats[seat]), style=MUTED)
        elif seat == viewer:
            label.append(" " + _("(you)"), style=MUTED)
        if ruleset is not None and seat < len(known):
            seat_fresh = fresh[seat] if seat < len(fresh) else frozenset()
            collection = collection_text(ruleset, known[seat], seat_fresh)
            if collection:
                label.append(" ")
                label.append_text(collection)
        size = hand_sizes[seat]
        table.add_row(marker, label, Text(ngettext("{count} card", "{count} cards", size).format(count=size)))
    return table


def piles_text(ruleset: Ruleset, obs: Observation) -> Text:
    """Sizes of the draw pile and the auction pile, and the cards out of the game."""
    return pile_counts_text(ruleset, obs.draw_pile, obs.auction_pile, obs.removed + len(obs.discard))


def pile_count(count: int) -> str:
    """A number of cards: under 1,000 it is written with plain digits in every language, without asking Babel
    (about 0.2 ms a number, three numbers at every key)."""
    return str(count) if 0 <= count < 1000 else format_number(count)


def pile_counts_text(ruleset: Ruleset, draw: int, auction: int, out: int) -> Text:
    """:func:`piles_text` from the three numbers: draw pile, auction pile, cards out of the game."""
    terms = dict(term_args(ruleset))  # the shared values are not changed
    terms.update(draw_pile=capitalize(terms["draw_pile"]), auction_pile=capitalize(terms["auction_pile"]))
    return fill(
        _("{draw_pile}: {draw} · {auction_pile}: {auction} · out of the game: {out}"),
        MUTED,
        **terms,
        draw=Text(pile_count(draw), style="bold"),
        auction=Text(pile_count(auction), style="bold"),
        out=Text(pile_count(out), style="bold"),
    )


def focus_text(ruleset: Ruleset, obs: Observation, names: Sequence[str], viewer: int | None,
               bid_choice: int | None = None) -> Text:  # fmt: skip
    """What is happening now: the drawn card and what is still owed, the card under auction and the
    high bid, the payment in progress, or the church card being resolved."""
    text = Text()
    phase = obs.phase
    me = viewer is not None and obs.current_player == viewer
    who = names[obs.current_player] if obs.current_player is not None else ""
    if phase is Phase.GIFT:
        if obs.drawn is not None and viewer == obs.active_player:
            text.append_text(fill(_("You drew: {card}"), MUTED, card=card_text(ruleset, obs.drawn)))
            text.append("\n")
            keep, to_auction, public = obs.owed
            terms = term_args(ruleset)
            parts = []
            if keep:
                parts.append(ngettext("{count} card to keep", "{count} cards to keep", keep).format(count=keep))
            if to_auction:
                parts.append(
                    ngettext(
                        "{count} card for {the_auction_pile}", "{count} cards for {the_auction_pile}", to_auction
                    ).format(count=to_auction, **terms)
                )
            if public:
                parts.append(
                    ngettext(
                        "{count} card for {the_public_space}", "{count} cards for {the_public_space}", public
                    ).format(count=public, **terms)
                )
            text.append_text(fill(_("Still to place: {destinations}"), MUTED, destinations=" · ".join(parts)))
            if obs.kept is not None:
                text.append("\n")
                text.append_text(fill(_("Kept this turn: {card}"), MUTED, card=card_text(ruleset, obs.kept)))
        else:
            text.append(_("{player} is placing the cards drawn.").format(player=names[obs.active_player]))
    elif phase is Phase.PICK:
        if me:
            text.append(_("Take one card from {the_public_space}.").format(**term_args(ruleset)), style=ACCENT)
        else:
            text.append(_("{player} takes a card from {the_public_space}.").format(player=who, **term_args(ruleset)))
    elif phase is Phase.CHURCH and obs.church is not None:
        owner, card = obs.church
        text.append_text(
            fill(_("{player} resolves {the_card}"), MUTED, player=names[owner], **card_phrases(ruleset, card))
        )
    if obs.auction is not None:
        auction = obs.auction
        if text:
            text.append("\n")
        text.append_text(fill(_("Under auction: {card}"), MUTED, card=card_text(ruleset, auction.card)))
        text.append("\n")
        if auction.high_bidder is not None:
            text.append_text(
                fill(
                    _("High bid: {amount} by {player}"),
                    MUTED,
                    amount=Text(bid_text(ruleset, auction.high_bid, auction.currency), style="bold"),
                    player=names[auction.high_bidder],
                )
            )
        else:
            text.append(_("No bid yet."), style=MUTED)
        passed = [names[p] for p, amount in auction.bids if amount == 0]
        if passed:
            passers = ngettext("Passed: {players}", "Passed: {players}", len(passed))  # "A passé" / "Ont passé"
            text.append("\n" + passers.format(players=format_list(passed)), style=MUTED)
        if phase is Phase.BIDDING:
            text.append("\n")
            if me:
                amount = bid_choice or auction.min_bid
                capacity = bid_capacity(ruleset, obs.hand, auction.currency)
                shown = Text(bid_text(ruleset, amount, auction.currency), style=ACCENT)
                text.append_text(fill(_("Your bid: {amount}"), MUTED, amount=shown))
                text.append("  (+/−)", style=MUTED)
                text.append(" · ", style=MUTED)
                can = Text(bid_text(ruleset, capacity, auction.currency), style="bold")
                text.append_text(fill(_("You can pay: {amount}"), MUTED, amount=can))
                if amount > capacity:
                    text.append("\n")
                    text.append_text(bluff_text(ruleset, obs, names, amount))
            else:
                text.append(_("{player} to bid.").format(player=who))
    if obs.auction is not None and viewer is not None and obs.my_auction_cards:
        text.append("\n")
        text.append_text(
            fill(
                ngettext(
                    "Your card still in {the_auction_pile}: {cards}",
                    "Your cards still in {the_auction_pile}: {cards}",
                    len(obs.my_auction_cards),
                ),
                MUTED,
                cards=card_list(ruleset, obs.my_auction_cards),
                **term_args(ruleset),
            )
        )
    if obs.payment is not None:
        payment = obs.payment
        text.append("\n")
        text.append(
            _("{player} pays {amount}").format(
                player=names[payment.payer], amount=bid_text(ruleset, payment.bid, payment.currency)
            ),
            style="bold",
        )
        if payment.paid_count:
            text.append(
                " · "
                + ngettext("{count} card paid", "{count} cards paid", payment.paid_count).format(
                    count=payment.paid_count
                ),
                style=MUTED,
            )
    return text


def bid_capacity(ruleset: Ruleset, hand: Sequence[int], currency: str) -> int:
    """The most a hand can pay: the total of its Gold (a Gold auction), or its number of cards."""
    if currency == "cards":
        return len(hand)
    return sum(ruleset.deck[card].value for card in hand if ruleset.deck[card].kind is CardKind.GOLD)


def bluff_text(ruleset: Ruleset, obs: Observation, names: Sequence[str], amount: int) -> Text:
    """Bidding ``amount`` is beyond the viewer's hand: say it is a bluff and what the penalty in force costs."""
    assert obs.auction is not None
    lang = current_language()
    head = _("Bluff: you cannot pay {amount}.").format(amount=bid_text(ruleset, amount, obs.auction.currency))
    kind = ruleset.penalty.kind
    hand = len(obs.hand)
    if kind is PenaltyKind.STANDARD:
        lose = min(obs.players - 1, hand)
        cost = ngettext(
            "If you win, each other player takes a card at random from your {hand}: you lose {count} card.",
            "If you win, each other player takes a card at random from your {hand}: you lose {count} cards.",
            lose,
        ).format(count=lose, **term_args(ruleset))
    elif kind is PenaltyKind.MEDIEVAL_BLUFF:
        left = names[(obs.player + 1) % obs.players]
        lose = min(1, hand)
        cost = ngettext(
            "If you win, {player} draws a card at random from your {hand} and it leaves the game: you lose {count} card.",
            "If you win, {player} draws a card at random from your {hand} and it leaves the game: you lose {count} cards.",
            lose,
        ).format(count=lose, **name_forms("player", left, lang), **term_args(ruleset))
    else:
        cost = _("If you win, no card changes hands.")
    text = Text("⚠ ", style=WARNING)
    text.append(head + " " + cost, style=WARNING)
    if ruleset.penalty.exclude_from_reauction:
        text.append(" " + _("The card is then auctioned again without you."), style=WARNING)
    return text


LOG_HEADINGS = frozenset({EventKind.GIFT_TURN, EventKind.AUCTION_PHASE, EventKind.REVEALED, EventKind.GAME_OVER})
"""Events that open a part of the game: shown as headings of the log (``▸``, accent colour)."""
LOG_MAJOR = frozenset({EventKind.WON, EventKind.CANNOT_PAY, EventKind.REFUSED, EventKind.DIE_MOVED, EventKind.TOOK})
"""Events shown in bold in the log."""


def log_line(describer: EventDescriber, event: Event) -> Text | None:
    """One event as a styled log line (``None`` for an event the log does not show)."""
    line = describer.describe(event)
    if line is None:
        return None
    if event.kind in LOG_HEADINGS:
        return Text("▸ " + line, style=ACCENT)
    return Text(line, style="bold" if event.kind in LOG_MAJOR else "")
