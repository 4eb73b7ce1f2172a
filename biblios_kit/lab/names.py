"""The lab's metric and arm names in the active language (every metric is described in ``docs/lab.md``)."""

from __future__ import annotations

from biblios_kit.i18n import _, current_language
from biblios_kit.rules.model import Ruleset


def arm_label(arm: str) -> str:
    """The name of an arm (``main``, ``skill:STRONG>WEAK``, ``restrict:NAME``) for reports."""
    from biblios_kit.lab.restrict import RESTRICTIONS

    kind, _sep, rest = arm.partition(":")
    if kind == "restrict":
        known = RESTRICTIONS.get(rest)
        if known is None:
            return _("restricted play: {restriction}").format(restriction=rest)
        return _("restricted play: {restriction} ({description})").format(
            restriction=rest, description=_(known.description)
        )
    if kind == "skill":
        strong, _sep, weak = rest.partition(">")
        return _("skill gradient: {strong} against {weak}").format(strong=strong, weak=weak)
    return _("all seats")


CATEGORY_METRICS = ("category_nobody", "category_by_winner", "die")
"""The metrics about one category (by its board position, ``category_nobody.3``, ``die.3:2``)."""


def category_name(ruleset: Ruleset | None, position: str) -> str:
    """The name, in the active language, of the category at board ``position`` (from 1) of ``ruleset``."""
    index = int(position) - 1
    if ruleset is None or not 0 <= index < len(ruleset.categories):
        return _("category {number}").format(number=position)
    return ruleset.categories[index].name.get(current_language())


def _gift_phase(ruleset: Ruleset | None) -> dict[str, str]:
    """The edition's name of the first phase in every grammatical form (``{the_gift_phase}``,
    ``{of_the_gift_phase}`` ...: "de la phase de Dons", "del turno de regalos")."""
    from biblios_kit.rulebook.grammar import term_values
    from biblios_kit.rules import load_ruleset

    values = term_values(ruleset if ruleset is not None else load_ruleset("biblios"), current_language())
    return {key: text for key, text in values.items() if key.endswith("gift_phase")}


def metric_label(key: str, ruleset: Ruleset | None = None, arm: str = "main") -> str:
    """The name of metric ``key`` (see :func:`biblios_kit.lab.stats.metric_values`) in the active language.

    Categories are named as ``ruleset`` names them (in board order) when it is given.
    """
    name, _sep, param = key.partition(".")
    if name == "seat_win":
        return _("Win rate, seat {seat}").format(seat=param)
    if name == "focus_win":
        if arm.startswith("skill:"):
            return _("Win rate of the stronger bot")
        return _("Win rate of the restricted bot")
    if name == "category_nobody":
        return _("{category}: won by nobody").format(category=category_name(ruleset, param))
    if name == "category_by_winner":
        return _("{category}: won by the game's winner").format(category=category_name(ruleset, param))
    if name == "die":
        position, _sep, place = param.partition(":")
        if place:
            return _("{category} die for place {place}: final value").format(
                category=category_name(ruleset, position), place=place
            )
        return _("{category} die: final value").format(category=category_name(ruleset, position))
    fixed = {
        "decisions": _("Decisions per game"),
        "auctions": _("Cards auctioned per game"),
        "unsold": _("Cards left unsold per game"),
        "vp_mean": _("Victory points, mean per player"),
        "vp_spread": _("Victory points, spread within a game"),
        "margin": _("Winning margin in victory points"),
        "shared": _("Shared first place"),
        "tiebreak": _("Winner decided by the final tie-break"),
        "tiebreak_depth": _("Depth of the final tie-break"),
        "penalties": _("Penalties per game"),
        "comeback": _("Comeback: the leader at the end of {the_gift_phase} does not win").format(
            **_gift_phase(ruleset)
        ),
        "lead_changes": _("Lead changes per game"),
        "decided_at": _("Share of the game after which the winner leads to the end"),
        "changed": _("Games the restriction changed"),
    }
    return fixed.get(key, key)


def metric_category(key: str, ruleset: Ruleset | None) -> str | None:
    """The name of the category metric ``key`` is about, as ``ruleset`` names it (``None``: not a category metric)."""
    name, _sep, param = key.partition(".")
    if name not in CATEGORY_METRICS:
        return None
    return category_name(ruleset, param.partition(":")[0])
