"""Compare two rulesets rule by rule and describe every difference in words, in a chosen language.

Rules are compared as data (so the same rule under different edition terms is not a
difference); the sentences describing each side are the rulebook's own phrases.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from biblios_kit.i18n import N_, _, format_list, in_language, pgettext
from biblios_kit.rulebook.grammar import capitalize, term_values
from biblios_kit.rulebook.render import _Renderer, describe_effect, penalty_name
from biblios_kit.rulebook.scoring_words import bonus_short, describe_count, points_rule_text
from biblios_kit.rules.model import (
    TERM_KEYS,
    AllPass,
    BiddingStart,
    CardKind,
    CategoryTie,
    ChurchTargets,
    Currency,
    DieTarget,
    Overpay,
    Ruleset,
    ShortDraw,
    TieBreak,
    TieBreakBy,
)

TERM_TOPICS: dict[str, str] = {
    "board": N_("Name of the board"),
    "gold": N_("Name of the money"),
    "church": N_("Name of the die-changing card"),
    "gift_phase": N_("Name of the first phase"),
    "auction_phase": N_("Name of the second phase"),
    "public_space": N_("Name of the shared cards"),
    "auction_pile": N_("Name of the auction pile"),
    "draw_pile": N_("Name of the draw pile"),
    "hand": N_("Name of a player's cards"),
    "victory_points": N_("Name of the points"),
}
"""The topic label of each edition term."""

_Value = TypeVar("_Value")


@dataclass(frozen=True, slots=True)
class Difference:
    """One rule that differs: ``key`` is stable (English), the rest is in the diff's language."""

    key: str
    topic: str
    left: str
    right: str

    def text(self, left_label: str, right_label: str) -> str:
        """The difference as one line: "topic — A: left; B: right"."""
        return _("{topic} — {a}: {left}; {b}: {right}").format(
            topic=self.topic, a=left_label, left=self.left, b=right_label, right=self.right
        )


def _composition(ruleset: Ruleset, category_id: str) -> str:
    by_value: dict[int, list[str]] = {}
    for card in ruleset.deck:
        if card.category == category_id:
            by_value.setdefault(card.value, []).append(card.letter or "")
    return ", ".join(f"{value} ({' '.join(sorted(letters))})" for value, letters in sorted(by_value.items()))


def _gold(ruleset: Ruleset) -> str:
    gold = Counter(card.value for card in ruleset.deck if card.kind is CardKind.GOLD)
    parts = [_("{count} × {value}").format(count=gold[value], value=value) for value in sorted(gold)]
    return format_list(parts) if parts else pgettext("no cards", "none")


_EffectKey = tuple[tuple[int, ...], int, tuple[DieTarget, ...]]


def _church_cards(ruleset: Ruleset) -> Counter[_EffectKey]:
    return Counter(
        (card.effect.signs, card.effect.dice, card.effect.targets)
        for card in ruleset.deck
        if card.kind is CardKind.CHURCH and card.effect
    )


def _church_text(ruleset: Ruleset) -> str:
    effects: dict[_EffectKey, tuple[str, int]] = {}
    for card in ruleset.deck:
        if card.kind is CardKind.CHURCH and card.effect is not None:
            key = (card.effect.signs, card.effect.dice, card.effect.targets)
            text, count = effects.get(key, (describe_effect(card.effect), 0))
            effects[key] = (text, count + 1)
    parts = [_("{count} × {cards}").format(count=count, cards=text) for text, count in effects.values()]
    return format_list(parts) if parts else pgettext("no cards", "none")


def short_tiebreak(step: TieBreak, ruleset: Ruleset, lang: str) -> str:
    """A tie-break step in a few words ("Monks total", "most Gold cards"), for compact listings."""
    if step.counts:
        return describe_count(step, ruleset, lang)
    category = ruleset.category(step.category).name.get(lang) if step.category else ""
    if step.by is TieBreakBy.GOLD:
        return ruleset.term("gold", lang)
    if step.by is TieBreakBy.CATEGORY_TOTAL:
        return _("{category} total").format(category=category)
    if step.by is TieBreakBy.CATEGORY_LETTER:
        return _("{category} letter").format(category=category)
    return _("{category} won").format(category=category)


class _Differ:
    """Collects the differences between two rulesets in the active language."""

    def __init__(self, a: Ruleset, b: Ruleset, lang: str) -> None:
        self.a, self.b, self.lang = a, b, lang
        self.ra, self.rb = _Renderer(a, lang), _Renderer(b, lang)
        self.found: list[Difference] = []

    def add(self, key: str, topic: str, left: str, right: str) -> None:
        self.found.append(Difference(key, capitalize(topic), left, right))

    def compare(self, key: str, topic: str, get: Callable[[Ruleset], object], say: Callable[[Ruleset], str]) -> None:
        if get(self.a) != get(self.b):
            self.add(key, topic, say(self.a), say(self.b))

    def compare_choice(
        self, key: str, topic: str, get: Callable[[Ruleset], _Value], names: Mapping[_Value, str]
    ) -> None:
        """Compare a rule with a few possible values, each side said by the name of its value in ``names``."""
        self.compare(key, topic, get, lambda r: names[get(r)])

    def run(self) -> list[Difference]:
        a, b, lang = self.a, self.b, self.lang
        self.compare("title", _("Game"), lambda r: r.title.get(lang), lambda r: r.title.get(lang))
        for key in TERM_KEYS:

            def term(r: Ruleset, k: str = key) -> str:
                return r.term(k, lang)

            self.compare(f"term:{key}", _(TERM_TOPICS[key]), term, term)
        self.compare(
            "categories",
            _("Categories"),
            lambda r: [c.name.get(lang) for c in r.categories],
            lambda r: format_list([c.name.get(lang) for c in r.categories]),
        )
        for index in range(min(len(a.categories), len(b.categories))):
            ca, cb = a.categories[index], b.categories[index]
            names = dict.fromkeys((ca.name.get(lang), cb.name.get(lang)))  # one name, or the two in order
            category = " / ".join(names)
            if _composition(a, ca.id) != _composition(b, cb.id):
                topic = _("Cards of {category} (value and letters)").format(category=category)
                self.add(f"deck:{index}", topic, _composition(a, ca.id), _composition(b, cb.id))
            if ca.dice != cb.dice:
                topic = _("Award dice of {category}").format(category=category)
                self.add(
                    f"dice:{index}",
                    topic,
                    "; ".join(self.ra.die_line(d) for d in ca.dice),
                    "; ".join(self.rb.die_line(d) for d in cb.dice),
                )
        self.compare("gold", _("{gold} cards").format(**term_values(a, lang)), _gold, _gold)
        self.compare("church-cards", _("Die-changing cards in the deck"), _church_cards, _church_text)
        self.compare(
            "players",
            _("Player counts"),
            lambda r: r.player_counts,
            lambda r: format_list([str(n) for n in r.player_counts]),
        )
        for players in sorted(set(a.setups) | set(b.setups)):
            self.compare_setup(players)
        self.compare_rules()
        return self.found

    def setup_text(self, ruleset: Ruleset, renderer: _Renderer, players: int) -> str:
        setup = ruleset.setups[players]
        named = format_list([renderer.describe_removal(r) for r in setup.remove]) or _("nothing")
        short = _("last short turn played out") if setup.short_draw is ShortDraw.PLAY_OUT else _("last cards removed")
        return _(
            "removed first: {named}; then at random: {random}; dealt to each player: {dealt}; cards per turn: "
            "{cards}; uneven end: {short}"
        ).format(
            named=named,
            random=setup.remove_random,
            dealt=renderer.dealt_text(setup),
            cards=setup.gift_cards,
            short=short,
        )

    def compare_setup(self, players: int) -> None:
        """The setup for ``players`` players, when it differs or only one side has it ("not available")."""
        sa, sb = self.a.setups.get(players), self.b.setups.get(players)
        if sa != sb:
            self.add(
                f"setup:{players}",
                _("Setup for {players} players").format(players=players),
                self.setup_text(self.a, self.ra, players) if sa is not None else _("not available"),
                self.setup_text(self.b, self.rb, players) if sb is not None else _("not available"),
            )

    def compare_rules(self) -> None:
        lang = self.lang
        yes_no = {True: _("allowed"), False: _("not allowed")}
        self.compare_choice(
            "church:optional", _("Declining to use a die-changing card"), lambda r: r.church.optional, yes_no
        )
        targets = {ChurchTargets.ANY: _("any die"), ChurchTargets.FIRST_PLACE: _("first-place dice only")}
        self.compare_choice(
            "church:targets", _("Dice a die-changing card may move"), lambda r: r.church.targets, targets
        )
        starts = {
            BiddingStart.LEFT_OF_ACTIVE: _("the player on the active player's left"),
            BiddingStart.ACTIVE: _("the active player"),
        }
        self.compare_choice("auction:start", _("Who bids first"), lambda r: r.auction.bidding_starts, starts)
        self.compare(
            "auction:opening",
            _("Lowest first bid"),
            lambda r: r.auction.opening_bid,
            lambda r: str(r.auction.opening_bid),
        )
        currency = {Currency.GOLD: _("amounts of {gold}"), Currency.CARDS: _("numbers of cards")}
        kinds = {
            CardKind.CATEGORY: N_("Bids on a category card"),
            CardKind.CHURCH: N_("Bids on a die-changing card"),
            CardKind.GOLD: N_("Bids on a {gold} card"),
        }
        for kind, topic in kinds.items():

            def bid_currency(r: Ruleset, k: CardKind = kind) -> Currency | None:
                return r.auction.currency.get(k)

            def bid_text(r: Ruleset, k: CardKind = kind) -> str:
                if k in r.auction.currency:
                    return currency[r.auction.currency[k]].format(**term_values(r, lang))
                return pgettext("no currency", "none")

            self.compare(
                f"auction:currency:{kind.value}",
                _(topic).format(**term_values(self.a, lang)),
                bid_currency,
                bid_text,
            )
        self.compare(
            "auction:gold-ceiling",
            _("Highest bid in {gold}").format(**term_values(self.a, lang)),
            lambda r: (r.auction.gold_ceiling_hand, r.auction.gold_ceiling),
            lambda r: (
                _("what the bidder can pay: the {gold} in their {hand}").format(**term_values(r, lang))
                if r.auction.gold_ceiling_hand
                else _("{ceiling} (all the {gold} of the deck: no limit in play)").format(
                    ceiling=r.auction.gold_ceiling, **term_values(r, lang)
                )
                if r.auction.gold_ceiling >= sum(card.value for card in r.deck if card.kind is CardKind.GOLD)
                else str(r.auction.gold_ceiling)
            ),
        )
        self.compare(
            "auction:cards-ceiling",
            _("Highest bid in cards"),
            lambda r: (r.auction.cards_ceiling_hand, r.auction.cards_ceiling),
            lambda r: (
                _("what the bidder can pay: the cards in their {hand}").format(**term_values(r, lang))
                if r.auction.cards_ceiling_hand
                else _("{ceiling} (every card of the deck: no limit in play)").format(ceiling=r.auction.cards_ceiling)
                if r.auction.cards_ceiling >= len(r.deck)
                else str(r.auction.cards_ceiling)
            ),
        )
        overpay = {
            Overpay.LOST: _("allowed, the surplus is lost"),
            Overpay.FORBIDDEN: _("forbidden: the exact amount only"),
        }
        self.compare_choice("auction:overpay", _("Paying more than the bid"), lambda r: r.auction.overpay, overpay)
        all_pass = {
            AllPass.DISCARD: _("removed from the game"),
            AllPass.ACTIVE_TAKES: _("taken for free by the active player"),
        }
        self.compare_choice("auction:all-pass", _("A card nobody bids on"), lambda r: r.auction.all_pass, all_pass)
        self.compare_choice(
            "auction:refuse", _("Refusing to pay when able to"), lambda r: r.auction.refuse_to_pay, yes_no
        )
        self.compare("penalty:kind", _("Penalty"), lambda r: r.penalty.kind, lambda r: penalty_name(r.penalty.kind))
        exclude = {True: _("excluded"), False: _("may bid again")}
        self.compare_choice(
            "penalty:exclude",
            _("Penalized player in the re-auction"),
            lambda r: r.penalty.exclude_from_reauction,
            exclude,
        )
        ties = {
            CategoryTie.EARLIEST_LETTER: _("the letter closest to A wins"),
            CategoryTie.NOBODY: _("nobody wins the category"),
        }
        self.compare_choice(
            "scoring:category-tie", _("Tie on a category total"), lambda r: r.scoring.category_tie, ties
        )
        self.compare(
            "scoring:points",
            _("What an award die is worth"),
            lambda r: r.scoring.points,
            lambda r: points_rule_text(r.scoring.points),
        )
        self.compare(
            "scoring:bonus",
            _("Set bonuses"),
            lambda r: list(r.scoring.bonus),
            lambda r: "; ".join(bonus_short(b, r, lang) for b in r.scoring.bonus) or pgettext("no bonus", "none"),
        )
        self.compare(
            "scoring:tiebreak",
            _("Final tie-break"),
            lambda r: list(r.scoring.final_tiebreak),
            lambda r: (
                " → ".join(short_tiebreak(s, r, lang) for s in r.scoring.final_tiebreak) or _("none: a shared victory")
            ),
        )
        self.compare_options()

    def compare_options(self) -> None:
        a, b, lang = self.a, self.b, self.lang
        for option_id in list(dict.fromkeys([*a.options, *b.options])):
            oa, ob = a.options.get(option_id), b.options.get(option_id)
            title = (oa or ob).title.get(lang)  # type: ignore[union-attr]
            topic = _("Option {title} ({id})").format(title=title, id=option_id)
            if oa is None or ob is None:
                left = oa.description.get(lang).rstrip(".") if oa else _("not available")
                right = ob.description.get(lang).rstrip(".") if ob else _("not available")
                self.add(f"option:{option_id}", topic, left, right)
            elif dict(oa.changes) != dict(ob.changes) or oa.default != ob.default:
                self.add(
                    f"option:{option_id}",
                    topic,
                    oa.description.get(lang).rstrip("."),
                    ob.description.get(lang).rstrip("."),
                )

        def in_force(r: Ruleset) -> str:
            titles = [r.options[o].title.get(lang) for o in r.options if o in r.active_options]
            return format_list(titles) if titles else pgettext("no options", "none")

        self.compare("options:active", _("Options in force"), lambda r: sorted(r.active_options), in_force)


def diff_rulesets(a: Ruleset, b: Ruleset, lang: str) -> list[Difference]:
    """Every rule that differs between ``a`` and ``b``, described in ``lang`` (empty when none)."""
    with in_language(lang) as code:
        return _Differ(a, b, code).run()
