"""Scoring as data, in words: count steps of the tie-break chain, what a die is worth, set bonuses.

Call these inside :func:`biblios_kit.i18n.in_language` (the rulebook, ``rules diff``) or with the
active language: they use the catalogs of the process, like the rest of :mod:`biblios_kit.rulebook`.
"""

from __future__ import annotations

from biblios_kit.i18n import _, format_list, format_number
from biblios_kit.rulebook.grammar import counted_term, term_values
from biblios_kit.rules.model import CardKind, PointsRule, Ruleset, SetBonus, TieBreak, TieBreakBy


def counted_cards(step: TieBreak, ruleset: Ruleset, lang: str) -> str:
    """The cards a count step counts, as a noun phrase ("Gold cards", "Monks cards of value 2", "cards in their hand")."""
    terms = term_values(ruleset, lang)
    if step.category is not None:
        cards = _("{category} cards").format(category=ruleset.category(step.category).name.get(lang))
    elif step.kind is CardKind.GOLD:
        cards = _("{gold} cards").format(**terms)
    elif step.kind is CardKind.CATEGORY:
        cards = _("category cards")
    elif step.value is None:
        return _("cards in {their_hand}").format(**terms)
    else:
        cards = _("cards")
    if step.value is None:
        return cards
    return _("{cards} of value {value}").format(cards=cards, value=step.value)


def describe_count(step: TieBreak, ruleset: Ruleset, lang: str) -> str:
    """A count step in words, lower case ("most Gold cards", "fewest cards in their hand")."""
    cards = counted_cards(step, ruleset, lang)
    if step.by is TieBreakBy.CARDS:
        return (_("fewest {cards}") if step.fewest else _("most {cards}")).format(cards=cards)
    if step.fewest:
        return _("lowest total value of the {cards}").format(cards=cards)
    return _("highest total value of the {cards}").format(cards=cards)


def points_rule_text(rule: PointsRule) -> str:
    """What an award die is worth, in a few words (for ``rules diff``)."""
    if rule is PointsRule.DIE_TIMES_CARDS:
        return _("its face × the taker's cards in the category")
    if rule is PointsRule.DIE_TIMES_VALUE:
        return _("its face × the taker's total in the category")
    return _("its face")


def bonus_text(bonus: SetBonus, ruleset: Ruleset, lang: str) -> str:
    """One set bonus as a sentence of the rulebook ("Set bonus: a player who wins each of ... scores an extra 3 ...")."""
    names = format_list([ruleset.category(c).name.get(lang) for c in bonus.categories])
    points = format_number(bonus.points)
    victory_points = counted_term(ruleset, "victory_points", bonus.points, lang)
    if bonus.at_least >= len(bonus.categories):
        if len(bonus.categories) == 1:
            return _(
                "Bonus: a player who wins the category {categories} scores an extra {points} {victory_points}."
            ).format(categories=names, points=points, victory_points=victory_points)
        return _(
            "Set bonus: a player who wins each of the categories {categories} scores an extra {points} {victory_points}."
        ).format(categories=names, points=points, victory_points=victory_points)
    return _(
        "Set bonus: a player who wins at least {count} of the categories {categories} scores an extra {points} {victory_points}."
    ).format(count=bonus.at_least, categories=names, points=points, victory_points=victory_points)


def bonus_short(bonus: SetBonus, ruleset: Ruleset, lang: str) -> str:
    """One set bonus in a few words, for ``rules diff`` ("Monks + Pigments: 2")."""
    names = " + ".join(ruleset.category(c).name.get(lang) for c in bonus.categories)
    if bonus.at_least < len(bonus.categories):
        return _("{count} of {categories}: {points}").format(
            count=bonus.at_least, categories=names, points=bonus.points
        )
    return _("{categories}: {points}").format(categories=names, points=bonus.points)


__all__ = ["bonus_short", "bonus_text", "counted_cards", "describe_count", "points_rule_text"]
