"""Render the complete rules of any :class:`~biblios_kit.rules.model.Ruleset` in a chosen language.

Every number, name, term, card and tie-break step comes from the ruleset; every sentence
is a catalog template (``_()`` / ``ngettext`` with ``{placeholders}``), so a house-rule
variant gets a correct rulebook in each language without anyone writing it by hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from biblios_kit.i18n import N_, _, format_list, format_number, in_language, ngettext, pgettext
from biblios_kit.rulebook import claims as c
from biblios_kit.rulebook.grammar import capitalize, name_forms, term_values
from biblios_kit.rulebook.model import Block, BulletList, Paragraph, Rulebook, Section, Subheading, Table
from biblios_kit.rulebook.scoring_words import bonus_text, describe_count
from biblios_kit.rulebook.sections.auction import AuctionSections, penalty_name
from biblios_kit.rulebook.sections.base import FIXED_TITLES, TERM_TITLES, section_title
from biblios_kit.rules.model import (
    TERM_KEYS,
    AllPass,
    AwardDie,
    CardKind,
    CategoryTie,
    ChurchEffect,
    ChurchTargets,
    PointsRule,
    Removal,
    Ruleset,
    Setup,
    ShortDraw,
    TieBreak,
    TieBreakBy,
)

__all__ = ["FIXED_TITLES", "TERM_TITLES", "describe_effect", "penalty_name", "render_rulebook", "section_title"]


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
    if step.counts:
        return describe_count(step, ruleset, lang)
    terms = term_values(ruleset, lang)
    category = ruleset.category(step.category).name.get(lang) if step.category else ""
    if step.by is TieBreakBy.GOLD:
        return _("most {gold}: the total value of the {gold} cards in their {hand}").format(**terms)
    if step.by is TieBreakBy.CATEGORY_TOTAL:
        return _("highest total in {category}").format(category=category)
    if step.by is TieBreakBy.CATEGORY_LETTER:
        return _("letter closest to A in {category} (a player with no card there comes last)").format(category=category)
    return _("won the {category} category").format(category=category)


class _Renderer(AuctionSections):
    """Builds the sections of one ruleset in the active language (used inside :func:`in_language`)."""

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
            Paragraph(r.description.get(lang), note=True),
            self.p(
                _("{game} is a card game for {players} players."),
                (c.player_counts(r.player_counts),),
                game=r.title.get(lang),
                players=counts,
            ),
            self.p(
                ngettext(
                    "Each player tries to gather the strongest cards of the only category: {names}.",
                    "Each player tries to gather the strongest cards in the {count} categories: {names}.",
                    len(r.categories),
                ),
                note=True,
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
                    ),
                    self.scoring_claims(),
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "At the end of the game, the best totals in each category take its award dice on "
                        "{the_board}, each worth as many {victory_points} as it shows."
                    ),
                    self.scoring_claims(),
                )
            )
        if self.church_cards():
            blocks.append(
                self.p(
                    _("The dice move during the game: each {church} acquired by a player can shift some of them."),
                    (self.church_claim(), c.church_never_in_hand()),
                )
            )
        blocks.append(self.p(_("The game has two phases:"), note=True))
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
                claims=(c.gift_destinations(), c.picks_in_order(), c.gift_phase_ends()),
            )
        )
        blocks.append(self.p(_("The player with the most {victory_points} wins."), (c.most_points_win(),)))
        if r.extends:
            blocks.append(self.p(_("This ruleset is a variant of {parent}."), note=True, parent=r.extends[0]))
        active = [r.options[o].title.get(lang) for o in r.options if o in r.active_options]
        if active:
            blocks.append(self.p(_("Options in force: {options}."), note=True, options=format_list(active)))
        return Section("overview", self.title("overview"), tuple(blocks))

    def components(self) -> Section:
        r = self.r
        lang = self.lang
        kinds = Counter(card.kind for card in self.deck)
        blocks: list[Block] = [
            self.p(
                ngettext("The deck has {total} card in all:", "The deck has {total} cards in all:", len(self.deck)),
                (self.deck_claim(),),
                total=len(self.deck),
            ),
            Table(  # one kind per row, named in the singular: the terms have no plural form
                (_("Kind of card"), _("Number")),
                (
                    (_("Category card"), str(kinds[CardKind.CATEGORY])),
                    (self.f(_("{gold} card")), str(kinds[CardKind.GOLD])),
                    (capitalize(self.t["church"]), str(kinds[CardKind.CHURCH])),
                ),
                claims=(self.deck_claim(),),
            ),
            Subheading(_("Categories")),
            self.p(
                _(
                    "Each category card has a value and a letter that breaks ties. Categories are listed in the "
                    "order of {the_board}."
                ),
                note=True,
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
        category_claims = tuple(
            c.category_cards(
                category.id, dict(Counter(card.value for card in self.deck if card.category == category.id))
            )
            for category in r.categories
        )
        blocks.append(
            Table(
                (_("Category"), _("Symbol"), _("Colour"), _("Value"), _("Letters"), _("Cards")),
                tuple(rows),
                claims=category_claims,
            )
        )
        blocks.append(BulletList(tuple(totals), claims=category_claims))

        gold = Counter(card.value for card in self.deck if card.kind is CardKind.GOLD)
        blocks.append(Subheading(capitalize(self.t["gold"])))
        if gold:
            gold_claim = c.category_cards(None, dict(gold))
            blocks.append(
                Table(
                    (_("Value"), _("Cards")), tuple((str(v), str(gold[v])) for v in sorted(gold)), claims=(gold_claim,)
                )
            )
            gold_total = sum(v * n for v, n in gold.items())
            blocks.append(
                self.p(
                    _("The {gold} cards are worth {total} in all. They pay for auctions."),
                    (gold_claim, self.payment_claim()),
                    total=gold_total,
                )
            )
        else:
            blocks.append(self.p(_("This deck has no {gold} cards."), (self.deck_claim(),)))

        blocks.append(Subheading(capitalize(self.t["church"])))
        blocks.extend(self.church_table())

        blocks.append(Subheading(capitalize(self.t["board"])))
        blocks.extend(self.dice_blocks())
        coined = [form.text for form in (r.term_form(key, lang) for key in TERM_KEYS) if form.coined]
        if coined:
            quoted = [pgettext("quotation", "“{text}”").format(text=text) for text in coined]
            blocks.append(Subheading(_("Terms")))
            template = ngettext(
                "No published rulebook of {game} exists in this language: the term {terms} is this project's own.",
                "No published rulebook of {game} exists in this language: the terms {terms} are this project's own.",
                len(coined),
            )
            values = {**self.t, **name_forms("game", r.title.get(lang), lang), "terms": format_list(quoted)}
            blocks.append(Paragraph(capitalize(template.format(**values)), note=True))
        return Section("components", self.title("components"), tuple(blocks))

    def church_table(self) -> list[Block]:
        effects: dict[str, tuple[ChurchEffect, int]] = {}
        for card in self.church_cards():
            assert card.effect is not None
            effect, count = effects.get(card.effect.id, (card.effect, 0))
            effects[card.effect.id] = (effect, count + 1)
        if not effects:
            return [self.p(_("This deck has no {church}."), (self.deck_claim(),))]
        if any(effect_id in self.r.church_names for effect_id in effects):
            named = tuple(
                (
                    self.church_name(effect_id),
                    capitalize(describe_effect(effect)),
                    format_number(count),
                )
                for effect_id, (effect, count) in effects.items()
            )
            return [Table((_("Card"), _("Effect"), _("Cards")), named, claims=(self.church_claim(),))]
        rows = tuple((capitalize(describe_effect(effect)), format_number(count)) for effect, count in effects.values())
        return [Table((_("Effect"), _("Cards")), rows, claims=(self.church_claim(),))]

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
                    self.dice_claims(),
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
                    note=True,
                    count=len(dice),
                ),
                BulletList(tuple(capitalize(self.die_line(die)) for die in dice), claims=self.dice_claims()),
            ]
        lines = []
        for category in self.r.categories:
            described = "; ".join(self.die_line(die) for die in category.dice)
            lines.append(_("{category}: {dice}").format(category=category.name.get(self.lang), dice=described))
        return [
            self.p(_("{the_board} holds the award dice of each category:"), note=True),
            BulletList(tuple(lines), claims=self.dice_claims()),
        ]

    def setup(self) -> Section:
        r = self.r
        with_hand = any(setup.starting_hand or setup.starting_cards for setup in r.setups.values())
        with_named = any(setup.starting_cards for setup in r.setups.values())
        if with_named:  # the engine deals the named starting cards before taking the random cards out
            first = _(
                "Shuffle all the cards. Then, according to the number of players, set aside face down, without "
                "looking at them, the named cards shown below, and deal each player the named cards shown, face "
                "up. Only then set aside the cards taken at random, face down. The cards set aside take no part "
                "in the game."
            )
        else:
            first = _(
                "Shuffle all the cards. Then, according to the number of players, set aside face down, without "
                "looking at them, the cards shown below: first the named cards, then cards taken at random. "
                "They take no part in the game."
            )
        blocks: list[Block] = [self.p(first, (*self.setup_claims()[:2], c.named_dealt_openly(self.named_counts())))]
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
        blocks.append(Table(tuple(headers), tuple(rows), claims=self.setup_claims()))
        with_random = any(setup.starting_hand for setup in r.setups.values())
        if with_named:
            blocks.append(
                self.p(
                    _(
                        "Then deal each player the cards shown at random, face down. Everyone knows the named "
                        "cards of the others; all the cards dealt start in their {hand}."
                    )
                    if with_random
                    else _("Everyone knows the named cards of the others; they start in their {hand}."),
                    (c.setup_dealt(*self.dealt_counts()), c.named_dealt_openly(self.named_counts())),
                )
            )
        elif with_hand:
            blocks.append(
                self.p(
                    _("Then deal the number of cards shown to each player, face down: they start in their {hand}."),
                    (c.setup_dealt(*self.dealt_counts()),),
                )
            )
        blocks.append(
            self.p(
                _(
                    "The remaining cards, shuffled, form {the_draw_pile}, face down. Choose the first player; "
                    "play always passes clockwise, to the left."
                ),
                (c.cards_in_play({n: self.cards_in_play(n) for n in r.setups}), c.clockwise_turns()),
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
            notes.append(self.p(text, (self.draw_claim(), c.gift_destinations()), players=players, left=left))
        return notes

    def gift(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(
                _(
                    "Starting with the first player and going clockwise, each player in turn is the active player, "
                    "until {the_draw_pile} is empty."
                ),
                (c.clockwise_turns(), c.gift_phase_ends()),
            )
        ]
        standard = all(setup.gift_cards == players + 1 for players, setup in r.setups.items())
        if standard:
            blocks.append(
                self.p(
                    _("On their turn, the active player draws one card more than there are players:"),
                    (self.draw_claim(),),
                )
            )
        else:
            blocks.append(self.p(_("On their turn, the active player draws this many cards:"), note=True))
        blocks.append(
            BulletList(
                tuple(
                    ngettext(
                        "{players} players: {cards} card per turn",
                        "{players} players: {cards} cards per turn",
                        setup.gift_cards,
                    ).format(players=players, cards=setup.gift_cards)
                    for players, setup in r.setups.items()
                ),
                claims=(self.draw_claim(),),
            )
        )
        blocks.append(
            self.p(
                _(
                    "The cards are drawn one at a time: look at each card and place it before drawing the next. "
                    "A placed card stays where it is. Each turn, the active player places:"
                ),
                (c.one_at_a_time(),),
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
                ),
                claims=(c.gift_destinations(),),
            )
        )
        blocks.append(
            self.p(
                _(
                    "Once a card has been kept, or placed on {the_auction_pile}, that destination is closed for the "
                    "rest of the turn; {the_public_space} takes every other card. When the cards still to draw are "
                    "just enough for the card to keep and the card for {the_auction_pile} not yet placed, they must "
                    "go there."
                ),
                (c.gift_destinations(),),
            )
        )
        leftovers = any(setup.gift_cards > players + 1 for players, setup in r.setups.items())
        short = any(
            self.cards_in_play(n) % s.gift_cards and s.short_draw is not ShortDraw.DISCARD for n, s in r.setups.items()
        )
        if short:
            picks = _(
                "When every card is placed, the active player takes the card they kept into their {hand}. Then "
                "each other player, starting on the active player's left and going clockwise, takes one card of "
                "their choice from {the_public_space}, as long as any is left. So every player gets one card per "
                "turn, except in a short last turn."
            )
        else:
            picks = _(
                "When every card is placed, the active player takes the card they kept into their {hand}. Then "
                "each other player, starting on the active player's left and going clockwise, takes one card of "
                "their choice from {the_public_space}. So every player gets one card per turn."
            )
        blocks.append(self.p(picks, (c.kept_taken_first(), c.picks_in_order(), c.public_leftovers(leftovers))))
        if leftovers:
            blocks.append(
                self.p(
                    _(
                        "Cards still in {the_public_space} once every other player has taken one are removed from the game."
                    ),
                    (c.public_leftovers(True),),
                )
            )
        if self.church_cards():
            blocks.append(
                self.p(
                    _(
                        "A {church} never stays in a {hand}: it is used as soon as it is acquired, even in the middle "
                        "of a turn, and the turn then carries on (see the section {section})."
                    ),
                    (c.church_never_in_hand(),),
                    section=self.title("church"),
                )
            )
        blocks.append(
            self.p(
                _(
                    "Everyone sees the cards in {the_public_space}; only the active player sees the card they keep and "
                    "the one they put on {the_auction_pile}. Each player may look at their own {hand} at any time, "
                    "never at anyone else's."
                ),
                (c.gift_visibility(),),
            )
        )
        blocks.extend(self.short_draw_notes())
        blocks.append(self.p(_("{the_gift_phase} ends when {the_draw_pile} is empty."), (c.gift_phase_ends(),)))
        return Section("gift", self.title("gift"), tuple(blocks))

    def church(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(_("Each {church} moves dice on {the_board}. The deck holds these:"), (self.church_claim(),))
        ]
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
                ),
                (c.church_never_in_hand(),),
            )
        )
        if any(setup.starting_hand for setup in r.setups.values()):
            blocks.append(
                self.p(
                    _("A {church} dealt at random before play is acquired too: it is used before the first turn."),
                    (c.church_dealt_used(), c.church_never_in_hand()),
                )
            )
        if r.auction.all_pass is AllPass.ACTIVE_TAKES:
            blocks.append(
                self.p(
                    _("So is a {church} the active player takes for free because nobody bid on it."),
                    (c.all_pass(False, r.penalty.exclude_from_reauction), c.church_never_in_hand()),
                )
            )
        if r.church.optional:
            blocks.append(
                self.p(
                    _(
                        "As soon as a {church} is acquired, play stops while its owner uses it; the owner may also "
                        "decline to use it. Either way it is then discarded: it never stays in a {hand}."
                    ),
                    (c.church_mandatory(True), c.church_never_in_hand()),
                )
            )
        else:
            blocks.append(
                self.p(
                    _(
                        "As soon as a {church} is acquired, play stops while its owner uses it: it must be used "
                        "whenever a legal move exists. It is then discarded: it never stays in a {hand}."
                    ),
                    (c.church_mandatory(False), c.church_never_in_hand()),
                )
            )
        effects = [card.effect for card in self.church_cards() if card.effect is not None]
        if any(effect.dice > 1 and not effect.targets for effect in effects):
            blocks.append(
                self.p(
                    _(
                        "A card that moves several dice must move that many different dice, all by the same amount "
                        "and in the same direction; it cannot move one die twice or be used on fewer dice."
                    ),
                    (self.church_claim(),),
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
        blocks.append(Paragraph(bounds, (self.dice_claims()[1], c.church_mandatory(r.church.optional))))
        if any(effect.targets for effect in effects):
            blocks.append(
                self.p(
                    _(
                        "A card that names the place of each die it moves (see the table of cards) moves different "
                        "dice, one for each die it names, all by the same amount and in the same direction: every "
                        "die it requires, and those of the others its owner chooses. The dice may belong to the same "
                        "category or to different ones."
                    ),
                    (self.church_claim(),),
                )
            )
        if not all(effect.targets for effect in effects):  # the ruleset-wide targets apply to the other cards
            named = any(effect.targets for effect in effects)
            if r.church.targets is ChurchTargets.FIRST_PLACE:
                text = (
                    _("A {church} that names no place may move only the dice for first place.")
                    if named
                    else _("A {church} may move only the dice for first place.")
                )
            elif self.max_dice() > 1:
                text = (
                    _("A {church} that names no place may move any award die of any category.")
                    if named
                    else _("A {church} may move any award die of any category.")
                )
            else:
                text = _("A {church} may move the die of any category.")
            blocks.append(self.p(text, (self.church_claim(),)))
        return Section("church", self.title("church"), tuple(blocks))

    def scoring(self) -> Section:
        r = self.r
        blocks: list[Block] = [
            self.p(
                _(
                    "When {the_auction_phase} is over, everyone reveals their {hand}. For each category, each player "
                    "adds up the values of their cards of that category. Card values are not {victory_points}."
                ),
                self.scoring_claims(),
            )
        ]
        multi = self.max_dice() > 1
        points = r.scoring.points
        if multi and points is PointsRule.DIE_TIMES_CARDS:
            text = _(
                "Players are ranked by their total in each category. The first takes the die for first place, "
                "the second the die for second place, and so on: each die scores its face multiplied by the "
                "number of cards its taker holds in that category, in {victory_points}."
            )
        elif multi and points is PointsRule.DIE_TIMES_VALUE:
            text = _(
                "Players are ranked by their total in each category. The first takes the die for first place, "
                "the second the die for second place, and so on: each die scores its face multiplied by its "
                "taker's total in that category, in {victory_points}."
            )
        elif multi:
            text = _(
                "Players are ranked by their total in each category. The first takes the die for first place, "
                "the second the die for second place, and so on: each die is worth as many {victory_points} "
                "as its face shows."
            )
        elif points is PointsRule.DIE_TIMES_CARDS:
            text = _(
                "The player with the highest total wins the category and takes its die: they score its face "
                "multiplied by the number of cards they hold in that category, in {victory_points}."
            )
        elif points is PointsRule.DIE_TIMES_VALUE:
            text = _(
                "The player with the highest total wins the category and takes its die: they score its face "
                "multiplied by their total in that category, in {victory_points}."
            )
        else:
            text = _(
                "The player with the highest total wins the category and takes its die: it is worth as many "
                "{victory_points} as its face shows."
            )
        blocks.append(self.p(text, self.scoring_claims()))
        blocks.append(
            self.p(
                _(
                    "Only players with at least one card in a category can win it; a category nobody holds is won by nobody."
                ),
                self.scoring_claims(),
            )
        )
        if r.scoring.category_tie is CategoryTie.EARLIEST_LETTER:
            blocks.append(
                self.p(
                    _(
                        "When totals are tied, the tied player holding the letter closest to A in that category is "
                        "ahead."
                    ),
                    self.scoring_claims(),
                )
            )
        elif multi:
            blocks.append(
                self.p(
                    _("When players are tied on a total, none of them takes the die for that place."),
                    self.scoring_claims(),
                )
            )
        else:
            blocks.append(
                self.p(
                    _("If the highest total is shared, nobody wins the category and its die is not awarded."),
                    self.scoring_claims(),
                )
            )
        if r.scoring.bonus:
            if multi:
                blocks.append(
                    self.p(_("Winning a category means taking its die for first place."), self.scoring_claims())
                )
            blocks.extend(self.p(bonus_text(bonus, r, self.lang), self.scoring_claims()) for bonus in r.scoring.bonus)
        blocks.append(
            self.p(
                _(
                    "The player with the most {victory_points} wins the game. Ties are settled as described in {section}."
                ),
                (c.most_points_win(), c.ties_settled(self.r.scoring.final_tiebreak)),
                section=self.title("ties"),
            )
        )
        return Section("scoring", self.title("scoring"), tuple(blocks))

    def ties(self) -> Section:
        chain = self.r.scoring.final_tiebreak
        if not chain:
            blocks: tuple[Block, ...] = (
                self.p(_("Players tied on {victory_points} share the victory."), (c.ties_settled(()),)),
            )
        else:
            blocks = (
                self.p(
                    _(
                        "If several players have the most {victory_points}, compare only those players on the "
                        "following points, in this order; the first difference decides:"
                    ),
                    (c.ties_settled(chain),),
                ),
                BulletList(
                    tuple(capitalize(describe_tiebreak(step, self.r, self.lang)) for step in chain),
                    ordered=True,
                    claims=(c.ties_settled(chain),),
                ),
                self.p(_("Players still tied after all this share the victory."), (c.ties_settled(chain),)),
            )
            if self.refined_chain():
                blocks += (
                    self.p(
                        _(
                            "The printed English and French rules stop after the most {gold} and the winner of "
                            "{category}. The steps after the first are a refinement: whenever the printed rule "
                            "decides a tie, they decide it the same way."
                        ),
                        note=True,
                        category=self.r.categories[0].name.get(self.lang),
                    ),
                )
        return Section("ties", self.title("ties"), blocks)

    def examples(self, section_id: str) -> list[Block]:
        """The worked examples of this section, from real games of the ruleset (see :mod:`.example_text`)."""
        from biblios_kit.rulebook.example_text import section_examples

        # An example is checked by replaying the game it comes from (see .examples), not by claims.
        return [as_note(block) for block in section_examples(self.r, section_id, self.lang)]

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
        return Section("options", self.title("options"), tuple(as_note(block) for block in blocks))


def as_note(block: Block) -> Block:
    """The block marked as stating no rule of play (examples, the list of options: each is checked its own way)."""
    return block if isinstance(block, Subheading) else replace(block, note=True)


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
        title = _("{game}: the rules").format(game=ruleset.rulebook_name(code))
        subtitle = _("Version {version}; in commands: --ruleset {id}").format(id=ruleset.id, version=ruleset.version)
        return Rulebook(ruleset.id, code, title, subtitle, sections)
