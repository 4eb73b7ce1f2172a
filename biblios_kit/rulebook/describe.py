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
from biblios_kit.engine.scoring import BonusAward, DieAward, GameResult, Placing, WonBy
from biblios_kit.i18n import _, current_language, format_list, format_number, in_language, ngettext, pgettext
from biblios_kit.rulebook.grammar import capitalize, counted_term, name_forms, term_forms, term_values, with_article
from biblios_kit.rulebook.scoring_words import describe_count
from biblios_kit.rules.model import (
    CardKind,
    Currency,
    DieTarget,
    Gender,
    GrammaticalNumber,
    Ruleset,
    TermForm,
    TieBreak,
    TieBreakBy,
)

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


def effect_symbol(signs: Sequence[int], dice: int, targets: Sequence[DieTarget] = ()) -> str:
    """A compact sign for a church effect: ``+1``, ``-1``, ``±1``, with ``×2`` when it moves two dice.

    With ``targets`` (a card naming its dice one by one), only the dice it must move are counted:
    a "+1" that may also move an optional second-place die is ``+1``, not the two-dice ``+1 ×2``.
    """
    kinds = set(signs)
    step = "±1" if kinds == {1, -1} else ("+1" if kinds == {1} else "-1")
    moved = sum(not target.optional for target in targets) if targets else dice
    return step if moved <= 1 else f"{step} ×{moved}"


def _church_effect(ruleset: Ruleset, card: int, code: str) -> str:
    """A church card's effect: the edition's own name for it (``terms.church_cards``), else its symbol,
    followed by how many more dice it may move when some of its targets are optional."""
    effect = ruleset.deck[card].effect
    assert effect is not None
    named = ruleset.church_names.get(effect.id)
    if named is not None:
        return named.get(code)
    symbol = effect_symbol(effect.signs, effect.dice, effect.targets)
    optional = sum(target.optional for target in effect.targets)
    if not optional:
        return symbol
    return ngettext("{symbol} (and {count} optional die)", "{symbol} (and {count} optional dice)", optional).format(
        symbol=symbol, count=optional
    )


def _short_label(ruleset: Ruleset, card: int, code: str) -> str:
    """A Gold or category card's name without its glyph: ``Gold 2``, ``Monks 3 E``."""
    c = ruleset.deck[card]
    if c.kind is CardKind.GOLD:
        return _("{gold} {value}").format(value=c.value, **term_values(ruleset, code))
    assert c.category is not None
    name = ruleset.category(c.category).name.get(code)
    return f"{name} {c.value} {c.letter or ''}".rstrip()


def card_name(ruleset: Ruleset, card: int, lang: str | None = None) -> str:
    """A card as a label (lists, tables, buttons): ``† Monks 3 E``, ``Gold 2``, ``Church card +1 ×2``, ``Bishop card +2``.

    A church card is named by the edition's own name of its effect when the ruleset gives one
    (``terms.church_cards``), else by its symbol (:func:`effect_symbol`). Inside a sentence,
    use :func:`card_values` instead.
    """
    with _language(lang) as code:
        c = ruleset.deck[card]
        if c.kind is CardKind.CHURCH:
            effect = _church_effect(ruleset, card, code)
            return _("{church} {effect}").format(church=capitalize(ruleset.term("church", code)), effect=effect)
        if c.kind is CardKind.GOLD:
            return _short_label(ruleset, card, code)
        assert c.category is not None
        return f"{ruleset.category(c.category).glyph} {_short_label(ruleset, card, code)}"


def card_form(ruleset: Ruleset, card: int, lang: str | None = None) -> TermForm:
    """A card as a noun inside a sentence, with its grammar, so articles agree with it.

    A church card is the edition's term and its effect ("Church card +1", "carte Église +1",
    "carta de Iglesia +1"); other cards are named the way the catalog puts a name in a
    sentence ("Gold 2", "carte Or 2", "carta de Oro 2"), with the gender the catalog gives
    the word for card.
    """
    with _language(lang) as code:
        if ruleset.deck[card].kind is CardKind.CHURCH:
            church = ruleset.term_form("church", code)
            text = f"{church.text} {_church_effect(ruleset, card, code)}"
            return TermForm(text, gender=church.gender, elision=church.elision)
        # Translators: how a card's name ("Gold 2", "Monks 3 E") sits in a sentence: French
        # "carte {name}", Spanish "carta de {name}"; the article comes from the grammar.
        text = pgettext("a card in a sentence", "{name}").format(name=_short_label(ruleset, card, code))
        # Translators: the grammatical gender of the word for card in the line above:
        # "masculine" or "feminine" (written in English).
        gender = pgettext("gender of the word card", "masculine").strip()
        return TermForm(
            text,
            gender=Gender.FEMININE if gender == "feminine" else Gender.MASCULINE,
            number=GrammaticalNumber.SINGULAR,
        )


def card_values(ruleset: Ruleset, card: int, lang: str | None = None) -> dict[str, str]:
    """A card in every sentence form, for templates: ``{a_card}`` "a Gold 2" / "une carte Or 2" /
    "una carta de Oro 2", ``{the_card}`` "the Church card +1" / "la carte Église +1" /
    "la carta de Iglesia +1", ``{of_the_card}``, ``{to_the_card}``, ``{card}`` (no article) and
    ``{agree_card:…}`` (see :mod:`biblios_kit.rulebook.grammar`)."""
    code = lang or current_language()
    return term_forms("card", card_form(ruleset, card, code), code)


def die_name(ruleset: Ruleset, die: int, lang: str | None = None, glyph: bool = True) -> str:
    """An award die: its category's glyph (unless ``glyph`` is false) and name, with the place when
    the category has several dice."""
    with _language(lang) as code:
        index = 0
        for category in ruleset.categories:
            for award in category.dice:
                if index == die:
                    name = f"{category.glyph} {category.name.get(code)}" if glyph else category.name.get(code)
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
    arrive as ``None`` and are never named. English sentences are in the present tense.
    """

    def __init__(self, ruleset: Ruleset, names: Sequence[str], lang: str | None = None) -> None:
        self.ruleset = ruleset
        self.names = list(names)
        self.lang = lang
        self.currency = "gold"

    def describe_all(self, events: Sequence[Event]) -> list[str]:
        """The sentences of ``events``, one per event as a log shows them (skipping the silent ones)."""
        lines = []
        for event in events:
            line = self.describe(event)
            if line is not None:
                lines.append(line)
        return lines

    def narrate(self, events: Sequence[Event]) -> list[str]:
        """The sentences of ``events`` as prose, for a reader rather than a log: a payment made with
        several Gold cards in a row is one sentence with its total, and a church card is used
        before the dice it moves."""
        lines = []
        index = 0
        while index < len(events):
            event = events[index]
            end = index + 1
            if event.kind is E.PAID_GOLD and event.card is not None:
                while (
                    end < len(events)
                    and events[end].kind is E.PAID_GOLD
                    and events[end].player == event.player
                    and events[end].card is not None
                ):
                    end += 1
            if event.kind is E.DIE_MOVED:
                while end < len(events) and events[end].kind is E.DIE_MOVED:
                    end += 1
                if end < len(events) and events[end].kind is E.CHURCH_USED:
                    # the engine logs the dice a church card moves before the card: a reader wants the card first
                    used = self.describe(events[end])
                    lines.extend([used] if used is not None else [])
                    lines.extend(self.die_sentence(e) for e in events[index:end])
                    index = end + 1
                    continue
                lines.extend(self.die_sentence(e) for e in events[index:end])
                index = end
                continue
            if event.kind is E.GIFT_TURN:
                with _language(self.lang) as code:
                    lines.append(
                        capitalize(
                            ngettext(
                                "It is {player}'s turn: {player} draws {count} card.",
                                "It is {player}'s turn: {player} draws {count} cards, one at a time.",
                                event.args[0],
                            ).format(**name_forms("player", _name(self.names, event.player), code), count=event.args[0])
                        )
                    )
                index = end
                continue
            if end - index > 1:
                line: str | None = self.payment(event.player, [e.card for e in events[index:end] if e.card is not None])
            else:
                line = self.describe(event)
            if line is not None:
                lines.append(line)
            index = end
        return lines

    def die_sentence(self, event: Event) -> str:
        """A die moved, as prose: "The Holy Books die goes from 3 to 2."."""
        with _language(self.lang) as code:
            die, old, new = event.args[0], event.args[1], event.args[2]
            return capitalize(
                _("The {die} die goes from {old} to {new}.").format(
                    die=die_name(self.ruleset, die, code, glyph=False), old=old, new=new
                )
            )

    def payment(self, player: int, cards: Sequence[int]) -> str:
        """One sentence for a payment with several Gold cards: "Ana pays 5 Gold with a Gold 2 and a Gold 3."."""
        with _language(self.lang) as code:
            rs = self.ruleset
            total = sum(rs.deck[card].value for card in cards)
            return capitalize(
                _("{player} pays {amount} with {cards}.").format(
                    **name_forms("player", _name(self.names, player), code),
                    amount=bid_text(rs, total, "gold", code),
                    cards=format_list([card_values(rs, card, code)["a_card"] for card in cards]),
                )
            )

    def describe(self, event: Event) -> str | None:
        """One event as a sentence in the describer's language (``None`` for a silent step)."""
        with _language(self.lang) as code:
            line = self._sentence(event, code)
            return None if line is None else capitalize(line)

    def _sentence(self, event: Event, code: str) -> str | None:
        rs = self.ruleset
        kind, card, args = event.kind, event.card, event.args
        who = _name(self.names, event.player)
        cards = card_values(rs, card, code) if card is not None else None
        c = cards or {}
        terms = term_args(rs, code)
        people = name_forms("player", who, code)
        if kind == E.SETUP_REMOVED:
            return ngettext(
                "{count} card is removed face down.", "{count} cards are removed face down.", args[0]
            ).format(count=args[0])
        if kind == E.DEALT:
            if cards is None:
                return _("{player} is dealt a card.").format(**people)
            return _("{player} is dealt {a_card}.").format(**people, **c)
        if kind == E.GIFT_TURN:
            return ngettext(
                "{player}'s turn: {count} card to draw.", "{player}'s turn: {count} cards to draw.", args[0]
            ).format(**people, count=args[0])
        if kind == E.DREW:
            if cards is None:
                return None
            return _("{player} draws {a_card}.").format(**people, **c)
        if kind == E.KEPT:
            if cards is None:
                return _("{player} keeps a card face down.").format(**people)
            return _("{player} keeps {the_card}.").format(**people, **c)
        if kind == E.TO_AUCTION_PILE:
            if cards is None:
                return _("{player} puts a card face down on {the_auction_pile}.").format(**people, **terms)
            return _("{player} puts {the_card} on {the_auction_pile}.").format(**people, **c, **terms)
        if kind == E.TO_PUBLIC:
            return _("{player} puts {the_card} in {the_public_space}.").format(**people, **c, **terms)
        if kind == E.TOOK_KEPT:
            return None
        if kind == E.PICKED:
            return _("{player} takes {the_card} from {the_public_space}.").format(**people, **c, **terms)
        if kind == E.CHURCH_USED:
            return _("{player} uses {the_card}.").format(**people, **c)
        if kind == E.CHURCH_DECLINED:
            return _("{player} does not use {the_card}.").format(**people, **c)
        if kind == E.DIE_MOVED:
            return _("{die} die: {old} → {new}.").format(die=die_name(rs, args[0], code), old=args[1], new=args[2])
        if kind == E.PUBLIC_DISCARDED:
            return _("Nobody takes {the_card} from {the_public_space}: it is discarded.").format(**c, **terms)
        if kind == E.SHORT_DRAW_DISCARDED:
            return ngettext(
                "The last {count} card of {the_draw_pile} is discarded.",
                "The last {count} cards of {the_draw_pile} are discarded.",
                args[0],
            ).format(count=args[0], **terms)
        if kind == E.AUCTION_PHASE:
            return ngettext("{phase}: {count} card to auction.", "{phase}: {count} cards to auction.", args[0]).format(
                phase=capitalize(rs.term("auction_phase", code)), count=args[0]
            )
        if kind == E.REVEALED:
            if card is not None:
                self.currency = card_currency(rs, card)
            return _("{player} puts {a_card} up for auction.").format(**people, **c)
        if kind == E.BID:
            return _("{player} bids {amount}.").format(**people, amount=bid_text(rs, args[0], self.currency, code))
        if kind == E.PASSED:
            return _("{player} passes.").format(**people)
        if kind == E.WON:
            return _("{player} wins {the_card} for {amount}.").format(
                **people, **c, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.ALL_PASSED:
            return _("Nobody bids on {the_card}.").format(**c)
        if kind == E.NO_BIDDERS:
            return _("Nobody is left to bid on {the_card}.").format(**c)
        if kind == E.CANNOT_PAY:
            return _("{player} cannot pay {amount} and is penalized.").format(
                **people, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.REFUSED:
            return _("{player} refuses to pay {amount} and is penalized.").format(
                **people, amount=bid_text(rs, args[0], self.currency, code)
            )
        if kind == E.PAID_GOLD:
            return _("{player} pays with {a_card}.").format(**people, **c)
        if kind == E.PAID_CARD:
            if cards is None:
                return _("{player} discards a card face down to pay.").format(**people)
            return _("{player} discards {a_card} face down to pay.").format(**people, **c)
        if kind == E.TOOK:
            return _("{player} takes {the_card}.").format(**people, **c)
        if kind == E.DISCARDED:
            return _("{the_card} leaves the game.").format(**c)
        if kind == E.PENALTY_TAKEN:
            victim = _name(self.names, args[0])
            if cards is None:
                return _("{player} takes a random card from {penalized}.").format(
                    **people, **name_forms("penalized", victim, code)
                )
            return _("{player} takes {a_card} at random from {penalized}.").format(
                **people, **c, **name_forms("penalized", victim, code)
            )
        if kind == E.PENALTY_REMOVED:
            victim = _name(self.names, args[0])
            if cards is None:
                return _("{player} removes a random card of {penalized} from the game.").format(
                    **people, **name_forms("penalized", victim, code)
                )
            return _("{player} draws {a_card} at random from {penalized}; it leaves the game.").format(
                **people, **c, **name_forms("penalized", victim, code)
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
    """Who won an award die and why: ``Ann (total 9)``, ``Bob (letter B)`` or ``nobody``; where the ruleset
    multiplies the die's face, what it gave: ``Ann (total 9); 3 × 4 = 12 Victory Points``."""
    with _language(lang) as code:
        if award.winner is None or award.by is WonBy.NOBODY:
            return _("nobody")
        who = _name(names, award.winner)
        if award.by is WonBy.LETTER:
            reason = _("{player} (tie on {total}, letter {letter})").format(
                player=who, total=totals[award.winner], letter=letters[award.winner] or "?"
            )
        else:
            reason = _("{player} (total {total})").format(player=who, total=totals[award.winner])
        if award.multiplier == 1:
            return reason
        return _("{reason}; {face} × {multiplier} = {points} {victory_points}").format(
            reason=reason,
            face=award.value,
            multiplier=award.multiplier,
            points=award.points,
            victory_points=counted_term(ruleset, "victory_points", award.points, code),
        )


def bonus_award_text(ruleset: Ruleset, award: BonusAward, names: Sequence[str], lang: str | None = None) -> str:
    """One set bonus at the end of a game and who scored it: ``Set bonus (Holy Books, Manuscripts and Forbidden
    Tomes): Ann, +3 Victory Points`` (``nobody`` when no player won enough categories of the set)."""
    with _language(lang) as code:
        bonus = ruleset.scoring.bonus[award.bonus]
        categories = format_list([ruleset.category(c).name.get(code) for c in bonus.categories])
        if bonus.at_least < len(bonus.categories):
            categories = _("at least {count} of {categories}").format(count=bonus.at_least, categories=categories)
        if not award.players:
            return _("Set bonus ({categories}): nobody").format(categories=categories)
        return _("Set bonus ({categories}): {players}, +{points} {victory_points}").format(
            categories=categories,
            players=format_list([_name(names, p) for p in award.players]),
            points=award.points,
            victory_points=counted_term(ruleset, "victory_points", award.points, code),
        )


def tiebreak_text(ruleset: Ruleset, step: TieBreak | None, lang: str | None = None) -> str:
    """What separated a place from the next: victory points or a named tie-break step."""
    with _language(lang) as code:
        if step is None:
            return capitalize(ruleset.term("victory_points", code))
        if step.counts:
            return _("tie-break: {step}").format(step=describe_count(step, ruleset, code))
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


def ruleset_label(ruleset: Ruleset, lang: str | None = None) -> str:
    """A ruleset as readers name it: its title in ``lang``, with the options it switches on by their
    titles ("Biblios (Bluff médiéval)"); never its id."""
    with _language(lang) as code:
        title = ruleset.title.get(code)
        switched = [
            option.title.get(code)
            for option_id, option in ruleset.options.items()
            if option_id in ruleset.active_options and not option.default
        ]
        if not switched:
            return title
        return _("{game} ({options})").format(game=title, options=format_list(switched))


def player_name(name: str, seat: int, lang: str | None = None) -> str:
    """A seat's name as shown: the name its player gave, else the default name of seat ``seat``
    (from 0) in ``lang``: "Player 2", "Joueur 2", "Jugador 2".

    A default name is not data: a server stores an empty name and every viewer reads it in
    their own language.
    """
    if name.strip():
        return name
    with _language(lang):
        return _("Player {number}").format(number=seat + 1)


def bot_note(spec: str, lang: str | None = None) -> str:
    """The note after a bot's name: "(easy bot)", "(bot facile)", "(bot fácil)"; a spec with parameters as it is."""
    with _language(lang):
        notes = {
            "random": _("(random bot)"),
            "easy": _("(easy bot)"),
            "medium": _("(medium bot)"),
            "hard": _("(hard bot)"),
        }
        return notes.get(spec) or _("(bot: {spec})").format(spec=spec)
