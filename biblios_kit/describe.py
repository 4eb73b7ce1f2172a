"""Localized words for the game: card names, event sentences, action labels and result explanations.

Everything here turns engine data (card ids, :class:`~biblios_kit.engine.Event`,
actions, :class:`~biblios_kit.engine.GameResult`) into text in one language, with the
edition's own terms from the ruleset ("Church card" or "Bishop card", "public space" or
"common pool"). Every sentence is a catalog template. Pass ``lang`` to render in a given
language without touching the process-wide choice; by default the active language is used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

from biblios_kit.engine.actions import (
    BID,
    CHURCH,
    DECLINE,
    KEEP,
    PASS,
    PAY,
    PICK,
    REFUSE,
    TO_AUCTION,
    TO_PUBLIC,
    Action,
    church_parts,
)
from biblios_kit.engine.events import Event, EventKind
from biblios_kit.engine.scoring import DieAward, GameResult, Placing, WonBy
from biblios_kit.i18n import _, current_language, format_list, format_number, in_language, ngettext
from biblios_kit.rulebook.grammar import capitalize, counted_term, name_forms, term_values, with_article
from biblios_kit.rules.model import CardKind, Currency, Ruleset, TieBreak, TieBreakBy

E = EventKind


@contextlib.contextmanager
def _language(lang: str | None) -> Iterator[str]:
    """Render in ``lang`` (thread-local) or in the active language when ``None``."""
    if lang is None:
        yield current_language()
    else:
        with in_language(lang) as code:
            yield code


def term(ruleset: Ruleset, key: str, lang: str | None = None, article: bool = False) -> str:
    """The edition term ``key`` in ``lang`` (the active language by default), optionally with its article."""
    code = lang or current_language()
    form = ruleset.term_form(key, code)
    return with_article(form, code) if article else form.text


def term_args(ruleset: Ruleset, lang: str | None = None) -> dict[str, str]:
    """Every edition term as template values in every form (``{public_space}``, ``{the_public_space}``,
    ``{of_the_public_space}``...: see :mod:`biblios_kit.rulebook.grammar`), so a translation uses the
    one its grammar needs ("del espacio público", "de la pila de robo")."""
    return term_values(ruleset, lang or current_language())


def effect_symbol(signs: Sequence[int], dice: int) -> str:
    """A compact sign for a church effect: ``+1``, ``-1``, ``±1``, with ``×2`` when it moves two dice."""
    kinds = set(signs)
    step = "±1" if kinds == {1, -1} else ("+1" if kinds == {1} else "-1")
    return step if dice == 1 else f"{step} ×{dice}"


def card_name(ruleset: Ruleset, card: int, lang: str | None = None) -> str:
    """A card in a few words: ``† Monks 3 E``, ``Gold 2``, ``Church card +1 ×2``, ``Bishop card +2``.

    A church card is named by the edition's own name of its effect when the ruleset gives one
    (``terms.church_cards``), else by its symbol (:func:`effect_symbol`).
    """
    with _language(lang) as code:
        c = ruleset.deck[card]
        if c.kind is CardKind.GOLD:
            return _("{gold} {value}").format(value=c.value, **term_values(ruleset, code))
        if c.kind is CardKind.CHURCH:
            assert c.effect is not None
            named = ruleset.church_names.get(c.effect.id)
            effect = named.get(code) if named is not None else effect_symbol(c.effect.signs, c.effect.dice)
            return _("{church} {effect}").format(church=capitalize(ruleset.term("church", code)), effect=effect)
        assert c.category is not None
        category = ruleset.category(c.category)
        return "{glyph} {name} {value} {letter}".format(
            glyph=category.glyph, name=category.name.get(code), value=c.value, letter=c.letter or ""
        ).rstrip()


def die_name(ruleset: Ruleset, die: int, lang: str | None = None) -> str:
    """An award die: its category's glyph and name, with the place when the category has several dice."""
    with _language(lang) as code:
        index = 0
        for category in ruleset.categories:
            for award in category.dice:
                if index == die:
                    name = f"{category.glyph} {category.name.get(code)}"
                    if len(category.dice) > 1:
                        return _("{category} (place {place})").format(category=name, place=award.place)
                    return name
                index += 1
        raise IndexError(f"no die {die} in ruleset {ruleset.id!r}")


def die_category(ruleset: Ruleset, die: int) -> str:
    """The category id of award die ``die``."""
    index = 0
    for category in ruleset.categories:
        for _award in category.dice:
            if index == die:
                return category.id
            index += 1
    raise IndexError(f"no die {die} in ruleset {ruleset.id!r}")


def card_currency(ruleset: Ruleset, card: int) -> str:
    """The currency of an auction of ``card``: ``"gold"`` or ``"cards"`` (as in the engine's views)."""
    return ruleset.auction.currency.get(ruleset.deck[card].kind, Currency.GOLD).value


def bid_text(ruleset: Ruleset, amount: int, currency: str, lang: str | None = None) -> str:
    """An amount in an auction's currency: ``3 Gold`` or ``2 cards``."""
    with _language(lang) as code:
        if currency == "gold":
            return _("{amount} {gold}").format(amount=format_number(amount), **term_values(ruleset, code))
        return ngettext("{amount} card", "{amount} cards", amount).format(amount=amount)


def action_label(
    ruleset: Ruleset,
    action: Action,
    dice: Sequence[int] = (),
    currency: str = "gold",
    lang: str | None = None,
) -> str:
    """A short label for a button or menu entry offering ``action``.

    ``dice`` (the current faces) lets a church action say where each die goes
    ("† Monks 3 → 4"); ``currency`` is that of the card under auction, for bids.
    """
    with _language(lang) as code:
        if action == KEEP:
            return _("Keep it")
        if action == TO_AUCTION:
            return capitalize(ruleset.term("auction_pile", code))
        if action == TO_PUBLIC:
            return capitalize(ruleset.term("public_space", code))
        if action == PASS:
            return _("Pass")
        if action == REFUSE:
            return _("Refuse to pay")
        if action == DECLINE:
            return _("Do not use it")
        if PICK <= action < PAY:
            return _("Take {card}").format(card=card_name(ruleset, action - PICK, code))
        if PAY <= action < PAY + 1_000:
            return _("Pay with {card}").format(card=card_name(ruleset, action - PAY, code))
        if BID <= action < CHURCH:
            return _("Bid {amount}").format(amount=bid_text(ruleset, action - BID, currency, code))
        moved, sign = church_parts(action)
        parts = []
        for die in moved:
            name = die_name(ruleset, die, code)
            if dice:
                parts.append(f"{name} {dice[die]} → {dice[die] + sign}")
            else:
                parts.append(f"{name} {sign:+d}")
        return format_list(parts)


def _name(names: Sequence[str], player: int) -> str:
    return names[player] if 0 <= player < len(names) else "?"


class EventDescriber:
    """Turns a stream of events into sentences, remembering the card under auction for bid currencies.

    Feed events in log order to :meth:`describe`; it returns ``None`` for steps not worth a
    line (a card drawn, a kept card joining its owner's hand). Cards hidden from the viewer
    arrive as ``None`` and are never named.
    """

    def __init__(self, ruleset: Ruleset, names: Sequence[str], lang: str | None = None) -> None:
        self.ruleset = ruleset
        self.names = list(names)
        self.lang = lang
        self.currency = "gold"

    def describe_all(self, events: Sequence[Event]) -> list[str]:
        """The sentences of ``events`` (skipping the silent ones)."""
        lines = []
        for event in events:
            line = self.describe(event)
            if line is not None:
                lines.append(line)
        return lines

    def describe(self, event: Event) -> str | None:
        """One event as a sentence in the describer's language (``None`` for a silent step)."""
        with _language(self.lang) as code:
            return self._sentence(event, code)

    def _sentence(self, event: Event, code: str) -> str | None:
        rs = self.ruleset
        kind, card, args = event.kind, event.card, event.args
        who = _name(self.names, event.player)
        name = card_name(rs, card, code) if card is not None else None
        terms = term_args(rs, code)
        people = name_forms("player", who, code)
        if kind == E.SETUP_REMOVED:
            return ngettext(
                "{count} card was removed face down.", "{count} cards were removed face down.", args[0]
            ).format(count=args[0])
        if kind == E.DEALT:
            if name is None:
                return _("{player} was dealt a card.").format(**people)
            return _("{player} was dealt {card}.").format(**people, card=name)
        if kind == E.GIFT_TURN:
            return ngettext(
                "{player}'s turn: {count} card to draw.", "{player}'s turn: {count} cards to draw.", args[0]
            ).format(**people, count=args[0])
        if kind == E.DREW:
            if name is None:
                return None
            return _("{player} drew {card}.").format(**people, card=name)
        if kind == E.KEPT:
            if name is None:
                return _("{player} kept a card face down.").format(**people)
            return _("{player} kept {card}.").format(**people, card=name)
        if kind == E.TO_AUCTION_PILE:
            if name is None:
                return _("{player} put a card face down on {the_auction_pile}.").format(**people, **terms)
            return _("{player} put {card} on {the_auction_pile}.").format(**people, card=name, **terms)
        if kind == E.TO_PUBLIC:
            return _("{player} put {card} in {the_public_space}.").format(**people, card=name, **terms)
        if kind == E.TOOK_KEPT:
            return None
        if kind == E.PICKED:
            return _("{player} took {card} from {the_public_space}.").format(**people, card=name, **terms)
        if kind == E.CHURCH_USED:
            return _("{player} used {card}.").format(**people, card=name)
        if kind == E.CHURCH_DECLINED:
            return _("{player} did not use {card}.").format(**people, card=name)
        if kind == E.DIE_MOVED:
            return _("{die} die: {old} → {new}.").format(die=die_name(rs, args[0], code), old=args[1], new=args[2])
        if kind == E.PUBLIC_DISCARDED:
            return _("{card} was left in {the_public_space} and discarded.").format(card=name, **terms)
        if kind == E.SHORT_DRAW_DISCARDED:
            return ngettext(
                "The last {count} card of {the_draw_pile} was discarded.",
                "The last {count} cards of {the_draw_pile} were discarded.",
                args[0],
            ).format(count=args[0], **terms)
        if kind == E.AUCTION_PHASE:
            return ngettext("{phase}: {count} card to auction.", "{phase}: {count} cards to auction.", args[0]).format(
                phase=capitalize(rs.term("auction_phase", code)), count=args[0]
            )
        if kind == E.REVEALED:
            if card is not None:
                self.currency = card_currency(rs, card)
            return _("{player} put {card} up for auction.").format(**people, card=name)
        if kind == E.BID:
            return _("{player} bids {amount}.").format(**people, amount=bid_text(rs, args[0], self.currency, code))
        if kind == E.PASSED:
            return _("{player} passes.").format(**people)
        if kind == E.WON:
            return _("{player} wins {card} for {amount}.").format(
                **people, card=name, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.ALL_PASSED:
            return _("Nobody bid on {card}.").format(card=name)
        if kind == E.NO_BIDDERS:
            return _("Nobody is left to bid on {card}.").format(card=name)
        if kind == E.CANNOT_PAY:
            return _("{player} cannot pay {amount} and is penalized.").format(
                **people, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.REFUSED:
            return _("{player} refuses to pay {amount} and is penalized.").format(
                **people, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.PAID_GOLD:
            return _("{player} paid with {card}.").format(**people, card=name)
        if kind == E.PAID_CARD:
            if name is None:
                return _("{player} discarded a card face down to pay.").format(**people)
            return _("{player} discarded {card} face down to pay.").format(**people, card=name)
        if kind == E.TOOK:
            return _("{player} took {card}.").format(**people, card=name)
        if kind == E.DISCARDED:
            return _("{card} was removed from the game.").format(card=name)
        if kind == E.PENALTY_TAKEN:
            victim = _name(self.names, args[0])
            if name is None:
                return _("{player} took a random card from {penalized}.").format(
                    **people, **name_forms("penalized", victim, code)
                )
            return _("{player} took {card} at random from {penalized}.").format(
                **people, card=name, **name_forms("penalized", victim, code)
            )
        if kind == E.PENALTY_REMOVED:
            victim = _name(self.names, args[0])
            if name is None:
                return _("{player} removed a random card of {penalized} from the game.").format(
                    **people, **name_forms("penalized", victim, code)
                )
            return _("{player} drew {card} at random from {penalized}; it leaves the game.").format(
                **people, card=name, **name_forms("penalized", victim, code)
            )
        if kind == E.PENALTY_EMPTY:
            return _("{player} has no card left to take.").format(**people)
        if kind == E.GAME_OVER:
            return _("The game is over.")
        return None  # pragma: no cover - every kind is handled above


def describe_events(
    ruleset: Ruleset, events: Sequence[Event], names: Sequence[str], lang: str | None = None
) -> list[str]:
    """The sentences of a whole event log (use the viewer's redacted log: ``state.events_for(p)``)."""
    return EventDescriber(ruleset, names, lang).describe_all(events)


def award_reason(ruleset: Ruleset, award: DieAward, totals: Sequence[int], letters: Sequence[str | None],
                 names: Sequence[str], lang: str | None = None) -> str:  # fmt: skip
    """Who won an award die and why: ``Ann (total 9)``, ``Bob (letter B)`` or ``nobody``."""
    with _language(lang):
        if award.winner is None or award.by is WonBy.NOBODY:
            return _("nobody")
        who = _name(names, award.winner)
        if award.by is WonBy.LETTER:
            return _("{player} (tie on {total}, letter {letter})").format(
                player=who, total=totals[award.winner], letter=letters[award.winner] or "?"
            )
        return _("{player} (total {total})").format(player=who, total=totals[award.winner])


def tiebreak_text(ruleset: Ruleset, step: TieBreak | None, lang: str | None = None) -> str:
    """What separated a place from the next: victory points or a named tie-break step."""
    with _language(lang) as code:
        if step is None:
            return capitalize(ruleset.term("victory_points", code))
        category = ruleset.category(step.category).name.get(code) if step.category else ""
        if step.by is TieBreakBy.GOLD:
            return _("tie-break: most {gold}").format(**term_values(ruleset, code))
        if step.by is TieBreakBy.CATEGORY_TOTAL:
            return _("tie-break: {category} total").format(category=category)
        if step.by is TieBreakBy.CATEGORY_LETTER:
            return _("tie-break: {category} letter").format(category=category)
        return _("tie-break: won {category}").format(category=category)


def placing_text(ruleset: Ruleset, placing: Placing, names: Sequence[str], lang: str | None = None) -> str:
    """One place of the ranking: ``1. Ann`` or ``1. Ann, Bob (shared)``."""
    with _language(lang):
        who = format_list([_name(names, p) for p in placing.players])
        if placing.shared:
            return _("{place}. {players} (shared)").format(place=placing.place, players=who)
        return _("{place}. {players}").format(place=placing.place, players=who)


def result_summary(ruleset: Ruleset, result: GameResult, names: Sequence[str], lang: str | None = None) -> str:
    """One sentence naming the winner(s) and their victory points."""
    with _language(lang) as code:
        winners = result.winners
        vp = result.victory_points[winners[0]]
        points = capitalize(counted_term(ruleset, "victory_points", vp, code))
        if len(winners) > 1:
            return _("{players} share the win with {points} {vp}.").format(
                players=format_list([_name(names, p) for p in winners]), points=vp, vp=points
            )
        return _("{player} wins with {points} {vp}.").format(player=_name(names, winners[0]), points=vp, vp=points)
