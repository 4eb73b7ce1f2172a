"""The worked examples of a rulebook told as prose in its language, from the games :mod:`.examples` finds.

Each kind of example gets an opening sentence, the game's own events as sentences (see
:meth:`biblios_kit.rulebook.describe.EventDescriber.narrate`) and a closing sentence stating the
facts :func:`~biblios_kit.rulebook.examples.verify` checks. English is in the present tense.
"""

from __future__ import annotations

from biblios_kit.i18n import _, format_list, format_number, in_language, ngettext, pgettext
from biblios_kit.rulebook.examples import NAMES, SECTION_OF, Example, example_lines, find_examples
from biblios_kit.rulebook.grammar import capitalize, counted_term, term_values
from biblios_kit.rulebook.model import Block, BulletList, Paragraph, Subheading
from biblios_kit.rulebook.scoring_words import describe_count
from biblios_kit.rules.model import Ruleset, TieBreak, TieBreakBy


def section_examples(ruleset: Ruleset, section_id: str, lang: str) -> list[Block]:
    """The worked examples of section ``section_id`` of ``ruleset``'s rulebook in ``lang``, each under a subheading."""
    with in_language(lang):
        blocks: list[Block] = []
        for example in find_examples(ruleset):
            if SECTION_OF[example.kind] == section_id:
                blocks.append(Subheading(_("Example")))
                blocks.extend(_Teller(ruleset, lang).tell(example))
        return blocks


class _Teller:
    """Tells one example in one language (the language is already active)."""

    def __init__(self, ruleset: Ruleset, lang: str) -> None:
        self.r = ruleset
        self.lang = lang
        self.t = term_values(ruleset, lang)

    def p(self, template: str, **values: object) -> Paragraph:
        return Paragraph(capitalize(template.format(**{**self.t, **values})))

    def gold(self, amount: object) -> str:
        return _("{amount} {gold}").format(amount=amount, **self.t)

    def category(self, category_id: str) -> str:
        return self.r.category(category_id).name.get(self.lang)

    def tell(self, example: Example) -> list[Block]:
        lines = BulletList(tuple(example_lines(self.r, example, self.lang)))
        teller = getattr(self, "_" + example.kind.replace("-", "_"))
        blocks: list[Block] = teller(example, lines)
        return blocks

    def _gift(self, example: Example, lines: BulletList) -> list[Block]:
        player = NAMES[example.viewer or 0]
        intro = ngettext(
            "A turn from a game of these rules with {count} player, as {player}, the active player, sees it:",
            "A turn from a game of these rules with {count} players, as {player}, the active player, sees it:",
            example.players,
        )
        forced = {
            "public_space": _(
                "The last card has nowhere else to go: only {the_public_space} still has room, so {player} must put it there."
            ),
            "auction_pile": _(
                "The last card has nowhere else to go: only {the_auction_pile} still has room, so {player} must put it there."
            ),
            "keep": _(
                "The last card has nowhere else to go: {player} has kept no card yet this turn, so must keep it."
            ),
        }[str(example.fact("forced"))]
        return [
            self.p(intro, count=example.players, player=player),
            lines,
            self.p(forced, player=player),
            self.p(_("Each player gets exactly one card during the turn.")),
        ]

    def _church(self, example: Example, lines: BulletList) -> list[Block]:
        return [
            self.p(
                _("In a game of these rules, {player} acquires {a_church}, and play stops while it is used:"),
                player=example.fact("player"),
            ),
            lines,
            self.p(_("The card is then discarded, and play goes on where it stopped.")),
        ]

    def _overpay(self, example: Example, lines: BulletList) -> list[Block]:
        fact = example.fact
        return [
            self.p(_("An auction from a game of these rules:")),
            lines,
            self.p(
                ngettext(
                    "{player} pays {paid} for a bid of {bid}: no change is given, so {lost} is lost.",
                    "{player} pays {paid} for a bid of {bid}: no change is given, so {lost} are lost.",
                    int(str(fact("lost"))),
                ),
                player=fact("player"),
                paid=self.gold(fact("paid")),
                bid=self.gold(fact("bid")),
                lost=self.gold(fact("lost")),
            ),
        ]

    def _penalty(self, example: Example, lines: BulletList) -> list[Block]:
        blocks: list[Block] = [self.p(_("An auction from a game of these rules:")), lines]
        if self.r.penalty.exclude_from_reauction:
            blocks.append(
                self.p(_("{player} may not bid when the same card is auctioned again."), player=example.fact("player"))
            )
        return blocks

    def _holding(self, player: object, cards: object, category: str, total: object) -> str:
        assert isinstance(cards, tuple)
        deck = self.r.deck
        held = format_list([f"{deck[card].value} {deck[card].letter or ''}".rstrip() for card in cards])
        return ngettext(
            "{player} holds {count} {category} card ({cards}): {total} in all.",
            "{player} holds {count} {category} cards ({cards}): {total} in all.",
            len(cards),
        ).format(player=player, count=len(cards), category=category, cards=held, total=total)

    def _category_tie(self, example: Example, lines: BulletList) -> list[Block]:
        fact = example.fact
        value = int(str(fact("value")))
        category = self.category(str(fact("category")))
        return [
            self.p(_("At the end of a game of these rules:")),
            BulletList(
                (
                    self._holding(fact("winner"), fact("winner_cards"), category, fact("total")),
                    self._holding(fact("other"), fact("other_cards"), category, fact("total")),
                )
            ),
            self.p(
                ngettext(
                    "Both total {total} in {category}, so the letter closest to A settles the tie: {winner} holds "
                    "{winner_letter}, {other} only {other_letter}. {winner} wins {category} and scores its die, "
                    "{value} {victory_points}.",
                    "Both total {total} in {category}, so the letter closest to A settles the tie: {winner} holds "
                    "{winner_letter}, {other} only {other_letter}. {winner} wins {category} and scores its die, "
                    "{value} {victory_points}.",
                    value,
                ),
                winner=fact("winner"),
                other=fact("other"),
                total=fact("total"),
                category=category,
                winner_letter=fact("winner_letter"),
                other_letter=fact("other_letter"),
                value=value,
                victory_points=counted_term(self.r, "victory_points", value, self.lang),
            ),
        ]

    def _gold_tie(self, example: Example, lines: BulletList) -> list[Block]:
        fact = example.fact
        values = fact("values")
        assert isinstance(values, tuple)
        mine, theirs = values[0]
        return [
            self.p(
                _(
                    "At the end of a game of these rules, {winner} and {other} both have {vp} {victory_points}. "
                    "{winner} holds {mine} and {other} {theirs}: the player with the most {gold} ranks ahead, "
                    "so {winner} wins the tie."
                ),
                winner=fact("winner"),
                other=fact("other"),
                vp=fact("vp"),
                victory_points=counted_term(self.r, "victory_points", int(str(fact("vp"))), self.lang),
                mine=self.gold(format_number(int(str(mine)))),
                theirs=self.gold(format_number(int(str(theirs)))),
            )
        ]

    def _final_tie(self, example: Example, lines: BulletList) -> list[Block]:
        fact = example.fact
        chain = self.r.scoring.final_tiebreak
        values = fact("values")
        assert isinstance(values, tuple)
        steps = []
        for step, (mine, theirs) in zip(chain, values):
            steps.append(
                _("{step}: {winner} {mine}, {other} {theirs}").format(
                    step=capitalize(self.short_tiebreak(step)),
                    winner=fact("winner"),
                    other=fact("other"),
                    mine=self.step_value(mine),
                    theirs=self.step_value(theirs),
                )
            )
        return [
            self.p(
                _(
                    "At the end of a game of these rules, {winner} and {other} both have {vp} {victory_points}. "
                    "The chain compares them, step by step:"
                ),
                winner=fact("winner"),
                other=fact("other"),
                vp=fact("vp"),
                victory_points=counted_term(self.r, "victory_points", int(str(fact("vp"))), self.lang),
            ),
            BulletList(tuple(steps)),
            self.p(
                _("Step {number} of the chain ({step}) settles the tie: {winner} ranks ahead of {other}."),
                number=int(str(fact("deciding"))) + 1,
                step=self.short_tiebreak(chain[int(str(fact("deciding")))]),
                winner=fact("winner"),
                other=fact("other"),
            ),
        ]

    def short_tiebreak(self, step: TieBreak) -> str:
        """A tie-break step in a few words ("most Gold", "highest Monks total", "most Gold cards")."""
        if step.counts:
            return describe_count(step, self.r, self.lang)
        category = self.category(step.category) if step.category else ""
        if step.by is TieBreakBy.GOLD:
            return _("most {gold}").format(**self.t)
        if step.by is TieBreakBy.CATEGORY_TOTAL:
            return _("highest {category} total").format(category=category)
        if step.by is TieBreakBy.CATEGORY_LETTER:
            return _("{category} letter closest to A").format(category=category)
        return _("winning {category}").format(category=category)

    @staticmethod
    def step_value(value: object) -> str:
        """A player's value on a tie-break step: a number, a letter, or yes/no."""
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if isinstance(value, int):
            return format_number(value)
        return pgettext("no letter", "none") if value == "-" else str(value)
