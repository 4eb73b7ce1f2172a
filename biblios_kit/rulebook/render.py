"""Render the complete rules of any :class:`~biblios_kit.rules.model.Ruleset` in a chosen language.

Every number, name, term, card and tie-break step comes from the ruleset; every sentence
is a catalog template (``_()`` / ``ngettext`` with ``{placeholders}``), so a house-rule
variant gets a correct rulebook in each language without anyone writing it by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from biblios_kit.i18n import N_, _, format_list, format_number, in_language, ngettext, pgettext
from biblios_kit.rulebook.grammar import capitalize, name_forms, term_values
from biblios_kit.rulebook.model import Block, BulletList, Paragraph, Rulebook, Section, Subheading, Table
from biblios_kit.rules.model import (
    TERM_KEYS,
    AllPass,
    AwardDie,
    BiddingStart,
    Card,
    CardKind,
    CategoryTie,
    ChurchEffect,
    ChurchTargets,
    Currency,
    Overpay,
    PenaltyKind,
    Removal,
    Ruleset,
    Setup,
    ShortDraw,
    TieBreak,
    TieBreakBy,
)

FIXED_TITLES: dict[str, str] = {
    "overview": N_("Overview"),
    "components": N_("Components"),
    "setup": N_("Setup"),
    "penalty": N_("Penalties"),
    "scoring": N_("Scoring"),
    "ties": N_("Final ties"),
    "options": N_("Options"),
}
"""Section titles that do not depend on the edition (``gift``, ``church`` and ``auction`` use its terms)."""

TERM_TITLES: dict[str, str] = {"gift": "gift_phase", "church": "church", "auction": "auction_phase"}
"""Sections titled with an edition term (the term key for each)."""


def section_title(section_id: str, ruleset: Ruleset | None, lang: str) -> str:
    """The title of a section in ``lang`` (edition-term titles need the ruleset; without it a generic word)."""
    with in_language(lang):
        if section_id in TERM_TITLES and ruleset is not None:
            return capitalize(ruleset.term(TERM_TITLES[section_id], lang))
        generic = {"gift": N_("Gift phase"), "church": N_("Church cards"), "auction": N_("Auction phase")}
        return _(FIXED_TITLES.get(section_id) or generic[section_id])


def place_name(place: int) -> str:
    """The name of an award place in the active language ("first place")."""
    names = {1: N_("first place"), 2: N_("second place"), 3: N_("third place")}
    if place in names:
        return _(names[place])
    return _("place {number}").format(number=place)


def _target_dice(effect: ChurchEffect) -> str:
    """The dice of an effect that names them one by one ("1 die for first place and, if its owner wishes, ...")."""
    groups: Counter[tuple[int | None, bool]] = Counter((target.place, target.optional) for target in effect.targets)

    def dice(count: int, place: int | None) -> str:
        if place is None:
            return ngettext("{count} die of any place", "{count} different dice of any place", count).format(
                count=count
            )
        return ngettext("{count} die for {place}", "{count} different dice for {place}", count).format(
            count=count, place=place_name(place)
        )

    def up_to(count: int, place: int | None) -> str:
        if count == 1:
            return dice(count, place)
        if place is None:
            return _("up to {count} different dice of any place").format(count=count)
        return _("up to {count} different dice for {place}").format(count=count, place=place_name(place))

    required = [dice(count, place) for (place, optional), count in groups.items() if not optional]
    optional = [up_to(count, place) for (place, optional), count in groups.items() if optional]
    if required and optional:
        return _("{required} and, if its owner wishes, {optional}").format(
            required=format_list(required), optional=format_list(optional)
        )
    if required:
        return format_list(required)
    return _("{optional}, each as its owner wishes (at least one die)").format(optional=format_list(optional))


def describe_effect(effect: ChurchEffect) -> str:
    """What a church/bishop effect does, in words ("raise 2 different dice by 1 each")."""
    signs = set(effect.signs)
    if effect.targets:
        dice = _target_dice(effect)
        if signs == {1}:
            return _("raise by 1: {dice}").format(dice=dice)
        if signs == {-1}:
            return _("lower by 1: {dice}").format(dice=dice)
        if signs == {1, -1}:
            return _("raise or lower by 1, all in the same direction: {dice}").format(dice=dice)
        steps = format_list([f"{step:+d}" for step in effect.signs], style="or")
        return _("move by {steps}, all by the same step: {dice}").format(steps=steps, dice=dice)
    count = effect.dice
    if signs == {1}:
        text = ngettext("raise {count} die by 1", "raise {count} different dice by 1 each", count)
    elif signs == {-1}:
        text = ngettext("lower {count} die by 1", "lower {count} different dice by 1 each", count)
    elif signs == {1, -1}:
        text = ngettext(
            "raise or lower {count} die by 1",
            "raise or lower {count} different dice by 1 each, all in the same direction",
            count,
        )
    else:
        steps = format_list([f"{step:+d}" for step in effect.signs], style="or")
        text = ngettext(
            "move {count} die by {steps}", "move {count} different dice by {steps} each, all by the same step", count
        )
        return text.format(count=count, steps=steps)
    return text.format(count=count)


def describe_tiebreak(step: TieBreak, ruleset: Ruleset, lang: str) -> str:
    """One step of the final tie-break chain, in words."""
    terms = term_values(ruleset, lang)
    category = ruleset.category(step.category).name.get(lang) if step.category else ""
    if step.by is TieBreakBy.GOLD:
        return _("most {gold}: the total value of the {gold} cards in their {hand}").format(**terms)
    if step.by is TieBreakBy.CATEGORY_TOTAL:
        return _("highest total in {category}").format(category=category)
    if step.by is TieBreakBy.CATEGORY_LETTER:
        return _("earliest letter in {category} (a player with no card there comes last)").format(category=category)
    return _("won the {category} category").format(category=category)


def penalty_name(kind: PenaltyKind) -> str:
    """The name of a penalty kind in the active language."""
    names = {
        PenaltyKind.STANDARD: N_("Standard penalty"),
        PenaltyKind.MEDIEVAL_BLUFF: N_("Medieval Bluff"),
        PenaltyKind.NONE: N_("No penalty"),
    }
    return _(names[kind])


class _Renderer:
    """Builds the sections of one ruleset in the active language (used inside :func:`in_language`)."""

    def __init__(self, ruleset: Ruleset, lang: str) -> None:
        self.r = ruleset
        self.lang = lang
        self.t = term_values(ruleset, lang)
        self.deck = ruleset.deck

    # -- small helpers -------------------------------------------------------------------------

    def p(self, template: str, **values: object) -> Paragraph:
        """A paragraph from a translated template filled with the terms and ``values``."""
        return Paragraph(capitalize(template.format(**{**self.t, **values})))

    def f(self, template: str, **values: object) -> str:
        """A translated template filled with the terms and ``values`` (first letter capitalized)."""
        return capitalize(template.format(**{**self.t, **values}))

    def title(self, section_id: str) -> str:
        return section_title(section_id, self.r, self.lang)

    def category_name(self, category_id: str) -> str:
        return self.r.category(category_id).name.get(self.lang)

    def church_cards(self) -> list[Card]:
        return [card for card in self.deck if card.kind is CardKind.CHURCH]

    def uniform_dice(self) -> tuple[AwardDie, ...] | None:
        """The dice every category shares, or ``None`` when categories differ."""
        dice = {category.dice for category in self.r.categories}
        return next(iter(dice)) if len(dice) == 1 else None

    def max_dice(self) -> int:
        return max((len(category.dice) for category in self.r.categories), default=1)

    def bids_always_payable(self) -> bool:
        """Whether every bid is capped by what the bidder can pay and any covering payment is accepted."""
        a = self.r.auction
        used = set(a.currency.values())
        capped = {Currency.GOLD: a.gold_ceiling_hand, Currency.CARDS: a.cards_ceiling_hand}
        exact = Currency.GOLD in used and a.overpay is Overpay.FORBIDDEN
        return bool(used) and all(capped[currency] for currency in used) and not exact

    def cards_in_play(self, players: int) -> int:
        setup = self.r.setups[players]
        removed = sum(removal.count for removal in setup.remove) + setup.remove_random
        dealt = sum(item.count for item in setup.starting_cards) + setup.starting_hand
        return len(self.deck) - removed - dealt * players

    def dealt_text(self, setup: Setup) -> str:
        """What each player is dealt before play: the named cards, then how many at random ("2 × Gold 1, then 3 at random")."""
        if not setup.starting_cards:
            return str(setup.starting_hand)
        named = format_list([self.describe_removal(item) for item in setup.starting_cards])
        if not setup.starting_hand:
            return named
        return _("{named}, then {count} at random").format(named=named, count=setup.starting_hand)

    def describe_removal(self, removal: Removal) -> str:
        count = removal.count
        if removal.kind is CardKind.CHURCH:
            effect = next(
                (c.effect for c in self.church_cards() if c.effect is not None and c.effect.id == removal.effect), None
            )
            if effect is not None:
                return _("{count} × {church} ({effect})").format(count=count, effect=describe_effect(effect), **self.t)
            return _("{count} × {cards}").format(count=count, cards=self.t["church"])
        if removal.kind is CardKind.GOLD:
            what = self.t["gold"]
        elif removal.category:
            what = self.category_name(removal.category)
        else:
            what = _("category card")
        if removal.value is not None:
            return _("{count} × {cards} {value}").format(count=count, cards=what, value=removal.value)
        return _("{count} × {cards}").format(count=count, cards=what)

    # -- sections -------------------------------------------------------------------------------

    def overview(self) -> Section:
        r = self.r
        lang = self.lang
        names = format_list([category.name.get(lang) for category in r.categories])
        counts = format_list([str(n) for n in r.player_counts], style="or")
        blocks: list[Block] = [
            Paragraph(r.description.get(lang)),
            self.p(_("{game} is a card game for {players} players."), game=r.title.get(lang), players=counts),
            self.p(
                ngettext(
                    "Each player tries to gather the strongest cards of the only category: {names}.",
                    "Each player tries to gather the strongest cards in the {count} categories: {names}.",
                    len(r.categories),
                ),
                count=len(r.categories),
                names=names,
            ),
        ]
        if self.max_dice() == 1:
            blocks.append(
                self.p(
                    _(
                        "At the end of the game, the player with the highest total in a category wins it and scores "
                        "as many {victory_points} as its die shows on {the_board}."
                    )
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "At the end of the game, the best totals in each category take its award dice on "
                        "{the_board}, each worth as many {victory_points} as it shows."
                    )
                )
            )
        if self.church_cards():
            blocks.append(
                self.p(_("The dice move during the game: each {church} acquired by a player shifts some of them."))
            )
        blocks.append(self.p(_("The game has two phases:")))
        blocks.append(
            BulletList(
                (
                    self.f(
                        _(
                            "{gift_phase}: in turn, each player draws cards and shares them out: one for themself, "
                            "one for {the_auction_pile}, the rest for the other players;"
                        )
                    ),
                    self.f(_("{auction_phase}: the cards of {the_auction_pile} are auctioned one by one.")),
                ),
                ordered=True,
            )
        )
        blocks.append(self.p(_("The player with the most {victory_points} wins.")))
        if r.extends:
            blocks.append(self.p(_("This ruleset is a variant of {parent}."), parent=r.extends[0]))
        active = [r.options[o].title.get(lang) for o in r.options if o in r.active_options]
        if active:
            blocks.append(self.p(_("Options in force: {options}."), options=format_list(active)))
        return Section("overview", self.title("overview"), tuple(blocks))

    def components(self) -> Section:
        r = self.r
        lang = self.lang
        kinds = Counter(card.kind for card in self.deck)
        blocks: list[Block] = [
            self.p(
                ngettext("The deck has {total} card in all:", "The deck has {total} cards in all:", len(self.deck)),
                total=len(self.deck),
            ),
            Table(  # one kind per row, named in the singular: the terms have no plural form
                (_("Kind of card"), _("Number")),
                (
                    (_("Category card"), str(kinds[CardKind.CATEGORY])),
                    (self.f(_("{gold} card")), str(kinds[CardKind.GOLD])),
                    (capitalize(self.t["church"]), str(kinds[CardKind.CHURCH])),
                ),
            ),
            Subheading(_("Categories")),
            self.p(
                _(
                    "Each category card has a value and a tie-break letter (A is the earliest). "
                    "Categories are listed in the order of {the_board}."
                )
            ),
        ]
        rows: list[tuple[str, ...]] = []
        totals: list[str] = []
        for category in r.categories:
            cards = [card for card in self.deck if card.category == category.id]
            by_value: dict[int, list[str]] = {}
            for card in cards:
                by_value.setdefault(card.value, []).append(card.letter or "")
            for value in sorted(by_value):
                letters = " ".join(sorted(by_value[value]))
                rows.append(
                    (
                        category.name.get(lang),
                        category.glyph,
                        category.colour_name.get(lang),
                        str(value),
                        letters,
                        str(len(by_value[value])),
                    )
                )
            total = sum(card.value for card in cards)
            totals.append(
                ngettext(
                    "{category}: {count} card worth {total} in all",
                    "{category}: {count} cards worth {total} in all",
                    len(cards),
                ).format(category=category.name.get(lang), count=len(cards), total=total)
            )
        blocks.append(
            Table((_("Category"), _("Symbol"), _("Colour"), _("Value"), _("Letters"), _("Cards")), tuple(rows))
        )
        blocks.append(BulletList(tuple(totals)))

        gold = Counter(card.value for card in self.deck if card.kind is CardKind.GOLD)
        blocks.append(Subheading(capitalize(self.t["gold"])))
        if gold:
            blocks.append(Table((_("Value"), _("Cards")), tuple((str(v), str(gold[v])) for v in sorted(gold))))
            gold_total = sum(v * n for v, n in gold.items())
            blocks.append(
                self.p(_("The {gold} cards are worth {total} in all. They pay for auctions."), total=gold_total)
            )
        else:
            blocks.append(self.p(_("This deck has no {gold} cards.")))

        blocks.append(Subheading(capitalize(self.t["church"])))
        blocks.extend(self.church_table())

        blocks.append(Subheading(capitalize(self.t["board"])))
        blocks.extend(self.dice_blocks())
        coined = [form.text for form in (r.term_form(key, lang) for key in TERM_KEYS) if form.coined]
        if coined:
            quoted = [pgettext("quotation", "“{text}”").format(text=text) for text in coined]
            blocks.append(Subheading(_("Terms")))
            blocks.append(
                self.p(
                    ngettext(
                        "No published rulebook of {game} exists in this language: the term {terms} is this "
                        "project's own.",
                        "No published rulebook of {game} exists in this language: the terms {terms} are this "
                        "project's own.",
                        len(coined),
                    ),
                    **name_forms("game", r.title.get(lang), lang),
                    terms=format_list(quoted),
                )
            )
        return Section("components", self.title("components"), tuple(blocks))

    def church_table(self) -> list[Block]:
        effects: dict[str, tuple[ChurchEffect, int]] = {}
        for card in self.church_cards():
            assert card.effect is not None
            effect, count = effects.get(card.effect.id, (card.effect, 0))
            effects[card.effect.id] = (effect, count + 1)
        if not effects:
            return [self.p(_("This deck has no {church}."))]
        if any(effect_id in self.r.church_names for effect_id in effects):
            named = tuple(
                (
                    self.church_name(effect_id),
                    capitalize(describe_effect(effect)),
                    format_number(count),
                )
                for effect_id, (effect, count) in effects.items()
            )
            return [Table((_("Card"), _("Effect"), _("Cards")), named)]
        rows = tuple((capitalize(describe_effect(effect)), format_number(count)) for effect, count in effects.values())
        return [Table((_("Effect"), _("Cards")), rows)]

    def church_name(self, effect_id: str) -> str:
        """The edition's name of a church/bishop card ("+2"), or its effect's symbol when it has none."""
        named = self.r.church_names.get(effect_id)
        if named is not None:
            return named.get(self.lang)
        effect = next(c.effect for c in self.church_cards() if c.effect is not None and c.effect.id == effect_id)
        signs = set(effect.signs)
        step = "±1" if signs == {1, -1} else ("+1" if signs == {1} else "-1")
        return step if effect.dice == 1 else f"{step} ×{effect.dice}"

    def die_line(self, die: AwardDie) -> str:
        return _("die for {place}: starts at {start}, always stays between {min} and {max}").format(
            place=place_name(die.place), start=die.start, min=die.min, max=die.max
        )

    def dice_blocks(self) -> list[Block]:
        dice = self.uniform_dice()
        if dice is not None and len(dice) == 1:
            die = dice[0]
            return [
                self.p(
                    _(
                        "{the_board} holds one die for each category. Each die starts at {start} and always stays "
                        "between {min} and {max}."
                    ),
                    start=die.start,
                    min=die.min,
                    max=die.max,
                )
            ]
        if dice is not None:
            return [
                self.p(
                    ngettext(
                        "{the_board} holds {count} die for each category:",
                        "{the_board} holds {count} dice for each category:",
                        len(dice),
                    ),
                    count=len(dice),
                ),
                BulletList(tuple(capitalize(self.die_line(die)) for die in dice)),
            ]
        lines = []
        for category in self.r.categories:
            described = "; ".join(self.die_line(die) for die in category.dice)
            lines.append(_("{category}: {dice}").format(category=category.name.get(self.lang), dice=described))
        return [self.p(_("{the_board} holds the award dice of each category:")), BulletList(tuple(lines))]

    def setup(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(
                _(
                    "Shuffle all the cards. Then, according to the number of players, set aside face down, without "
                    "looking at them, the cards shown below: first the named cards, then cards taken at random. "
                    "They take no part in the game."
                )
            )
        ]
        with_hand = any(setup.starting_hand or setup.starting_cards for setup in r.setups.values())
        with_named = any(setup.starting_cards for setup in r.setups.values())
        headers = [_("Players"), _("Removed first"), _("Then at random")]
        if with_hand:
            headers.append(_("Dealt to each player"))
        headers += [_("Cards in play"), _("Cards per turn"), _("Turns")]
        rows = []
        for players, setup in r.setups.items():
            named = format_list([self.describe_removal(removal) for removal in setup.remove]) or "—"
            in_play = self.cards_in_play(players)
            turns, left = divmod(in_play, setup.gift_cards)
            turns_text = str(turns) if not left else _("{turns} + 1 short").format(turns=turns)
            if left and setup.short_draw is ShortDraw.DISCARD:
                turns_text = str(turns)
            row = [str(players), named, str(setup.remove_random)]
            if with_hand:
                row.append(self.dealt_text(setup))
            row += [str(in_play), str(setup.gift_cards), turns_text]
            rows.append(tuple(row))
        blocks.append(Table(tuple(headers), tuple(rows)))
        if with_named:
            blocks.append(
                self.p(
                    _(
                        "Then deal each player the cards shown: the named cards face up, so that everyone knows "
                        "them, and any cards dealt at random face down. They all start in their {hand}."
                    )
                )
            )
        elif with_hand:
            blocks.append(
                self.p(_("Then deal the number of cards shown to each player, face down: they start in their {hand}."))
            )
        blocks.append(
            self.p(
                _(
                    "The remaining cards, shuffled, form {the_draw_pile}, face down. Choose the first player; "
                    "play always passes clockwise, to the left."
                )
            )
        )
        blocks.extend(self.short_draw_notes())
        return Section("setup", self.title("setup"), tuple(blocks))

    def short_draw_notes(self) -> list[Block]:
        notes: list[Block] = []
        for players, setup in self.r.setups.items():
            left = self.cards_in_play(players) % setup.gift_cards
            if not left:
                continue
            if setup.short_draw is ShortDraw.DISCARD:
                text = ngettext(
                    "With {players} players the cards do not divide evenly: the last {left} card is removed from "
                    "the game and {the_gift_phase} ends.",
                    "With {players} players the cards do not divide evenly: the last {left} cards are removed from "
                    "the game and {the_gift_phase} ends.",
                    left,
                )
            else:
                text = ngettext(
                    "With {players} players the cards do not divide evenly: the last turn is played with the {left} "
                    "card left, which the active player keeps.",
                    "With {players} players the cards do not divide evenly: the last turn is played with the {left} "
                    "cards left. Destinations are dropped in this order: {the_public_space} first, then "
                    "{the_auction_pile}.",
                    left,
                )
            notes.append(self.p(text, players=players, left=left))
        return notes

    def gift(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(
                _(
                    "Starting with the first player and going clockwise, each player in turn is the active player, "
                    "until {the_draw_pile} is empty."
                )
            )
        ]
        standard = all(setup.gift_cards == players + 1 for players, setup in r.setups.items())
        if standard:
            blocks.append(self.p(_("On their turn, the active player draws one card more than there are players:")))
        else:
            blocks.append(self.p(_("On their turn, the active player draws this many cards:")))
        blocks.append(
            BulletList(
                tuple(
                    ngettext(
                        "{players} players: {cards} card per turn",
                        "{players} players: {cards} cards per turn",
                        setup.gift_cards,
                    ).format(players=players, cards=setup.gift_cards)
                    for players, setup in r.setups.items()
                )
            )
        )
        blocks.append(
            self.p(
                _(
                    "The cards are drawn one at a time: look at each card and place it before drawing the next. "
                    "A placed card stays where it is. Each turn, the active player places:"
                )
            )
        )
        blocks.append(
            BulletList(
                (
                    self.f(
                        _(
                            "exactly one card face down in front of themself, which joins their {hand} at the end of the turn;"
                        )
                    ),
                    self.f(
                        _("exactly one card face down on {the_auction_pile}, to be sold during {the_auction_phase};")
                    ),
                    self.f(_("every other card face up in {the_public_space}.")),
                )
            )
        )
        blocks.append(
            self.p(
                _(
                    "Once a destination has been used, it is closed for the rest of the turn. When the cards still to "
                    "draw are just enough for the destinations not yet used, the choice is forced."
                )
            )
        )
        blocks.append(
            self.p(
                _(
                    "When every card is placed, the active player takes the card they kept into their {hand}. Then "
                    "each other player, starting on the active player's left and going clockwise, takes one card of "
                    "their choice from {the_public_space}. So every player gets one card per turn."
                )
            )
        )
        if any(setup.gift_cards > players + 1 for players, setup in r.setups.items()):
            blocks.append(
                self.p(
                    _(
                        "Cards still in {the_public_space} once every other player has taken one are removed from the game."
                    )
                )
            )
        if self.church_cards():
            blocks.append(
                self.p(
                    _(
                        "A {church} never stays in a {hand}: it is used as soon as it is acquired, even in the middle "
                        "of a turn, and the turn then carries on (see the section {section})."
                    ),
                    section=self.title("church"),
                )
            )
        blocks.append(
            self.p(
                _(
                    "Everyone sees the cards in {the_public_space}; only the active player sees the card they keep and "
                    "the one they put on {the_auction_pile}. Each player may look at their own {hand} at any time, "
                    "never at anyone else's."
                )
            )
        )
        blocks.extend(self.short_draw_notes())
        blocks.append(self.p(_("{the_gift_phase} ends when {the_draw_pile} is empty.")))
        return Section("gift", self.title("gift"), tuple(blocks))

    def church(self) -> Section:
        r = self.r
        blocks: list[Block] = [self.p(_("Each {church} moves dice on {the_board}. The deck holds these:"))]
        blocks.extend(self.church_table())
        if not self.church_cards():
            return Section("church", self.title("church"), tuple(blocks))
        blocks.append(
            self.p(
                _(
                    "A {church} is acquired when the active player keeps it during {the_gift_phase}, when a player "
                    "takes it from {the_public_space}, or when a player wins it at auction (after paying for it). "
                    "Drawing it, placing it in {the_public_space} or putting it on {the_auction_pile} is not "
                    "acquiring it."
                )
            )
        )
        if r.church.optional:
            blocks.append(
                self.p(
                    _(
                        "As soon as a {church} is acquired, play stops while its owner uses it; the owner may also "
                        "decline to use it. Either way it is then discarded: it never stays in a {hand}."
                    )
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "As soon as a {church} is acquired, play stops while its owner uses it: it must be used "
                        "whenever a legal move exists. It is then discarded: it never stays in a {hand}."
                    )
                )
            )
        effects = [card.effect for card in self.church_cards() if card.effect is not None]
        if any(effect.dice > 1 and not effect.targets for effect in effects):
            blocks.append(
                self.p(
                    _(
                        "A card that moves several dice must move that many different dice, each by the same step; "
                        "it cannot move one die twice or be used on fewer dice."
                    )
                )
            )
        dice = self.uniform_dice()
        if dice is not None and len({(d.min, d.max) for d in dice}) == 1:
            bounds = _(
                "A die never leaves the range {min} to {max}: a move that would take it out is not allowed."
            ).format(min=dice[0].min, max=dice[0].max)
        else:
            bounds = _("A die never leaves its range: a move that would take it out is not allowed.")
        if r.church.optional:
            bounds += " " + _("When no legal move is left, the card can only be declined.")
        else:
            bounds += " " + _("When no legal move is left, the card is discarded without effect.")
        blocks.append(Paragraph(bounds))
        if any(effect.targets for effect in effects):
            blocks.append(
                self.p(
                    _(
                        "A card that names the place of each die it moves (see the table of cards) moves different "
                        "dice, one for each die it names, all by the same step: every die it requires, and those of "
                        "the others its owner chooses. The dice may belong to the same category or to different ones."
                    )
                )
            )
        if not all(effect.targets for effect in effects):  # the ruleset-wide targets apply to the other cards
            if r.church.targets is ChurchTargets.FIRST_PLACE:
                blocks.append(self.p(_("It may move only the dice for first place.")))
            elif self.max_dice() > 1:
                blocks.append(self.p(_("It may move any award die of any category.")))
            else:
                blocks.append(self.p(_("It may move the die of any category.")))
        return Section("church", self.title("church"), tuple(blocks))

    def kinds_phrase(self, kinds: list[CardKind]) -> str:
        nouns = {
            CardKind.CATEGORY: _("a category card"),
            CardKind.CHURCH: _("a {church}"),
            CardKind.GOLD: _("a {gold} card"),
        }
        return format_list([nouns[kind].format(**self.t) for kind in kinds], style="or")

    def auction(self) -> Section:
        a = self.r.auction
        blocks: list[Block] = [
            self.p(
                _(
                    "When {the_gift_phase} is over, {the_auction_pile} is shuffled and placed face down. The first "
                    "player of the game is the first active player; after each card, the next player clockwise "
                    "becomes the active player."
                )
            ),
            self.p(_("The active player turns up the top card, and the bidding begins.")),
        ]
        if a.bidding_starts is BiddingStart.LEFT_OF_ACTIVE:
            blocks.append(
                self.p(
                    _(
                        "The player on the active player's left bids first, then bidding goes clockwise, round the "
                        "table as many times as needed; the active player bids too."
                    )
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "The active player bids first, then bidding goes clockwise, round the table as many times as needed."
                    )
                )
            )
        blocks.append(
            self.p(
                _(
                    "Each bid must be higher than the current highest bid, and the first bid must be at least "
                    "{opening}. A player who passes is out of the bidding for this card. The bidding ends when only "
                    "one bidder is left: they win the card."
                ),
                opening=a.opening_bid,
            )
        )
        order = [CardKind.CATEGORY, CardKind.CHURCH, CardKind.GOLD]
        present = {card.kind for card in self.r.deck}
        for currency in (Currency.GOLD, Currency.CARDS):
            kinds = [k for k in order if k in present and a.currency.get(k) is currency]
            if not kinds:
                continue
            what = self.kinds_phrase(kinds)
            if currency is Currency.GOLD:
                text = _(
                    "For {cards}, bids are amounts of {gold}, from {opening} to {ceiling}. The winner pays with {gold} "
                    "cards from their {hand} whose values add up to at least the bid. No change is given: anything "
                    "paid above the bid is lost, but a payment may not include a card that could be left out while "
                    "still covering the bid."
                )
                if a.overpay is Overpay.FORBIDDEN:
                    text = _(
                        "For {cards}, bids are amounts of {gold}, from {opening} to {ceiling}. The winner pays with "
                        "{gold} cards from their {hand} whose values add up to exactly the bid; a winner who cannot "
                        "make the exact amount cannot pay."
                    )
                if a.gold_ceiling_hand:
                    text = _(
                        "For {cards}, bids are amounts of {gold}, from {opening} up to what the bidder can pay: no "
                        "one may bid more than the total value of the {gold} cards in their own {hand}. The winner "
                        "pays with {gold} cards from their {hand} whose values add up to at least the bid. No change "
                        "is given: anything paid above the bid is lost, but a payment may not include a card that "
                        "could be left out while still covering the bid."
                    )
                    if a.overpay is Overpay.FORBIDDEN:
                        text = _(
                            "For {cards}, bids are amounts of {gold}, from {opening} up to the total value of the "
                            "{gold} cards in the bidder's own {hand}. The winner pays with {gold} cards from their "
                            "{hand} whose values add up to exactly the bid; a winner who cannot make the exact amount "
                            "cannot pay."
                        )
                blocks.append(self.p(text, cards=what, opening=a.opening_bid, ceiling=a.gold_ceiling))
                blocks.append(self.p(_("The {gold} cards paid are shown to everyone, then discarded.")))
            elif a.cards_ceiling_hand:
                blocks.append(
                    self.p(
                        _(
                            "For {cards}, bids are numbers of cards, from {opening} up to what the bidder can pay: "
                            "no one may bid more cards than their own {hand} holds. The winner discards that many "
                            "cards of any kind from their {hand}, face down: the others only learn how many. The card "
                            "being auctioned cannot pay for itself."
                        ),
                        cards=what,
                        opening=a.opening_bid,
                    )
                )
            else:
                blocks.append(
                    self.p(
                        _(
                            "For {cards}, bids are numbers of cards, from {opening} to {ceiling}. The winner discards "
                            "that many cards of any kind from their {hand}, face down: the others only learn how "
                            "many. The card being auctioned cannot pay for itself."
                        ),
                        cards=what,
                        opening=a.opening_bid,
                        ceiling=a.cards_ceiling,
                    )
                )
        if self.church_cards():
            blocks.append(self.p(_("The winner adds the card to their {hand}; a {church} is used at once instead.")))
        else:
            blocks.append(self.p(_("The winner adds the card to their {hand}.")))
        if a.all_pass is AllPass.DISCARD:
            blocks.append(self.p(_("If nobody bids, the card is removed from the game and the turn ends.")))
        else:
            blocks.append(self.p(_("If nobody bids, the active player takes the card for free.")))
        blocks.append(
            self.p(
                _(
                    "Players may bid more than they can pay: that is the bluff. A winner who cannot pay is penalized (see {section})."
                ),
                section=self.title("penalty"),
            )
        )
        if a.refuse_to_pay:
            blocks.append(self.p(_("A winner who could pay may also refuse to pay and take the penalty instead.")))
        else:
            refusal = [
                option
                for option in self.r.options.values()
                if isinstance(auction_changes := option.changes.get("auction"), dict)
                and auction_changes.get("refuse_to_pay") is True
            ]
            if refusal:
                blocks.append(
                    self.p(
                        _(
                            "A winner who can pay must pay, unless the option {option} is on (see {section}): "
                            "then they may refuse and take the penalty."
                        ),
                        option=pgettext("quotation", "“{text}”").format(text=refusal[0].title.get(self.lang)),
                        section=self.title("options"),
                    )
                )
            else:
                blocks.append(self.p(_("A winner who can pay must pay.")))
        blocks.append(
            self.p(
                _(
                    "{the_auction_phase} ends when the last card of {the_auction_pile} has been auctioned; scoring follows."
                )
            )
        )
        return Section("auction", self.title("auction"), tuple(blocks))

    def penalty(self) -> Section:
        r = self.r
        kind = r.penalty.kind
        if r.auction.refuse_to_pay:
            intro = _(
                "A player who wins an auction but does not pay, whether they cannot or they refuse, is penalized."
            )
        else:
            intro = _("A player who wins an auction but cannot pay is penalized.")
        blocks: list[Block] = [self.p(intro)]
        if self.bids_always_payable():
            if r.auction.refuse_to_pay:
                blocks.append(
                    self.p(
                        _(
                            "Since nobody may bid more than they can pay, a winner can always pay: only a winner who "
                            "refuses to pay is penalized."
                        )
                    )
                )
            else:
                blocks.append(
                    self.p(
                        _(
                            "Since nobody may bid more than they can pay, a winner can always pay, so this penalty "
                            "never arises."
                        )
                    )
                )
        blocks.append(Subheading(penalty_name(kind)))
        if kind is PenaltyKind.STANDARD:
            blocks.append(
                self.p(
                    _(
                        "Each other player in turn, clockwise starting on the penalized player's left, draws one card "
                        "at random from the penalized player's {hand} and adds it to their own. If that {hand} runs "
                        "out, the remaining players get nothing."
                    )
                )
            )
        elif kind is PenaltyKind.MEDIEVAL_BLUFF:
            blocks.append(
                self.p(
                    _(
                        "The player on the penalized player's left draws one card at random from the penalized "
                        "player's {hand}. That card is removed from the game: nobody gets it."
                    )
                )
            )
        else:
            blocks.append(self.p(_("The penalized player loses no card.")))
        if kind is not PenaltyKind.NONE:
            blocks.append(self.p(_("A player whose {hand} is empty loses nothing.")))
        from_options = [
            option.title.get(self.lang)
            for option_id, option in r.options.items()
            if option_id in r.active_options and "penalty" in option.changes
        ]
        if from_options:
            blocks.append(
                self.p(_("This penalty comes from the option in force: {option}."), option=format_list(from_options))
            )
        if r.penalty.exclude_from_reauction:
            blocks.append(
                self.p(
                    _(
                        "Then the same card is auctioned again, with the same active player. The penalized player may "
                        "not bid on it again, nor may anyone already penalized on this card. If nobody bids, the card "
                        "is handled like any card nobody bids on."
                    )
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "Then the same card is auctioned again, with the same active player; the penalized player "
                        "may bid on it again."
                    )
                )
            )
        return Section("penalty", self.title("penalty"), tuple(blocks))

    def scoring(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(
                _(
                    "When {the_auction_phase} is over, everyone reveals their {hand}. For each category, each player "
                    "adds up the values of their cards of that category. Card values are not {victory_points}."
                )
            )
        ]
        multi = self.max_dice() > 1
        if multi:
            blocks.append(
                self.p(
                    _(
                        "Players are ranked by their total in each category. The first takes the die for first place, "
                        "the second the die for second place, and so on: each die is worth as many {victory_points} "
                        "as its face shows."
                    )
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "The player with the highest total wins the category and takes its die: it is worth as many "
                        "{victory_points} as its face shows."
                    )
                )
            )
        blocks.append(
            self.p(
                _(
                    "Only players with at least one card in a category can win it; a category nobody holds is won by nobody."
                )
            )
        )
        if r.scoring.category_tie is CategoryTie.EARLIEST_LETTER:
            blocks.append(
                self.p(
                    _(
                        "When totals are tied, the tied player holding the earliest letter in that category (A before "
                        "B, and so on) is ahead."
                    )
                )
            )
        elif multi:
            blocks.append(self.p(_("When players are tied on a total, none of them takes the die for that place.")))
        else:
            blocks.append(
                self.p(_("If the highest total is shared, nobody wins the category and its die is not awarded."))
            )
        blocks.append(
            self.p(
                _(
                    "The player with the most {victory_points} wins the game. Ties are settled as described in {section}."
                ),
                section=self.title("ties"),
            )
        )
        return Section("scoring", self.title("scoring"), tuple(blocks))

    def ties(self) -> Section:
        chain = self.r.scoring.final_tiebreak
        if not chain:
            blocks: tuple[Block, ...] = (self.p(_("Players tied on {victory_points} share the victory.")),)
        else:
            blocks = (
                self.p(
                    _(
                        "If several players have the most {victory_points}, compare only those players on the "
                        "following points, in this order; the first difference decides:"
                    )
                ),
                BulletList(
                    tuple(capitalize(describe_tiebreak(step, self.r, self.lang)) for step in chain), ordered=True
                ),
                self.p(_("Players still tied after all this share the victory.")),
            )
            if self.refined_chain():
                blocks += (
                    self.p(
                        _(
                            "The printed English and French rules stop after the most {gold} and the winner of "
                            "{category}. The steps after the first are a refinement: whenever the printed rule "
                            "decides a tie, they decide it the same way."
                        ),
                        category=self.r.categories[0].name.get(self.lang),
                    ),
                )
        return Section("ties", self.title("ties"), blocks)

    def examples(self, section_id: str) -> list[Block]:
        """The worked examples of this section, from real games of the ruleset (see :mod:`.example_text`)."""
        from biblios_kit.rulebook.example_text import section_examples

        return section_examples(self.r, section_id, self.lang)

    def refined_chain(self) -> bool:
        """Whether the tie-break chain is the refined one: Gold, then each category's total and letter in board order."""
        chain = self.r.scoring.final_tiebreak
        expected = [TieBreak(TieBreakBy.GOLD)]
        for category in self.r.categories:
            expected += [
                TieBreak(TieBreakBy.CATEGORY_TOTAL, category.id),
                TieBreak(TieBreakBy.CATEGORY_LETTER, category.id),
            ]
        return list(chain) == expected

    def options(self) -> Section:
        r = self.r
        lang = self.lang

        def line(option_id: str) -> str:
            option = r.options[option_id]
            return _("{title} ({id}): {description}").format(
                title=option.title.get(lang), id=option_id, description=option.description.get(lang)
            )

        active = [o for o in r.options if o in r.active_options]
        others = [o for o in r.options if o not in r.active_options]
        blocks: list[Block] = [Subheading(_("Options in force"))]
        if active:
            blocks.append(BulletList(tuple(line(o) for o in active)))
        else:
            blocks.append(self.p(_("None: these are the rules without options.")))
        blocks.append(Subheading(_("Other options")))
        if others:
            blocks.append(BulletList(tuple(line(o) for o in others)))
        else:
            blocks.append(self.p(_("This ruleset has no other option.")))
        return Section("options", self.title("options"), tuple(blocks))


SECTION_BUILDERS: dict[str, Callable[[_Renderer], Section]] = {
    "overview": _Renderer.overview,
    "components": _Renderer.components,
    "setup": _Renderer.setup,
    "gift": _Renderer.gift,
    "church": _Renderer.church,
    "auction": _Renderer.auction,
    "penalty": _Renderer.penalty,
    "scoring": _Renderer.scoring,
    "ties": _Renderer.ties,
    "options": _Renderer.options,
}


def render_rulebook(ruleset: Ruleset, lang: str) -> Rulebook:
    """The complete rules of ``ruleset`` (options applied) in ``lang``, as named sections.

    The process-wide language is not changed (see :func:`biblios_kit.i18n.in_language`).
    """
    with in_language(lang) as code:
        renderer = _Renderer(ruleset, code)
        sections = tuple(build(renderer) for build in SECTION_BUILDERS.values())
        sections = tuple(
            Section(section.id, section.title, section.blocks + tuple(renderer.examples(section.id)))
            for section in sections
        )
        title = _("{game}: the rules").format(game=ruleset.title.get(code))
        subtitle = _("Version {version}; in commands: --ruleset {id}").format(id=ruleset.id, version=ruleset.version)
        return Rulebook(ruleset.id, code, title, subtitle, sections)
