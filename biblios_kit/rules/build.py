"""Turn a merged, schema-valid ruleset document into the frozen :class:`Ruleset`."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from biblios_kit.rules.model import (
    LANGUAGES,
    TERM_KEYS,
    AllPass,
    AuctionRules,
    AwardDie,
    BiddingStart,
    Card,
    CardKind,
    Category,
    CategoryTie,
    ChurchEffect,
    ChurchRules,
    ChurchTargets,
    Currency,
    DieTarget,
    Option,
    Overpay,
    PenaltyKind,
    PenaltyRules,
    PointsRule,
    Removal,
    Ruleset,
    ScoringRules,
    SetBonus,
    Setup,
    ShortDraw,
    Text,
    TieBreak,
    TieBreakBy,
    build_term,
)

PRESENTATION_KEYS: frozenset[str] = frozenset(
    {"format", "aliases", "version", "title", "rulebook_title", "description", "provenance", "terms"}
)
"""Top-level fields that name and describe a ruleset without changing how a game plays."""
CATEGORY_PRESENTATION_KEYS: frozenset[str] = frozenset({"name", "colour", "colour_name", "glyph"})
"""Fields of a category that only say how it is named and drawn."""
OPTION_PRESENTATION_KEYS: frozenset[str] = frozenset({"title", "description"})
"""Fields of an option that only describe it."""
SCORING_DEFAULTS: dict[str, Any] = {"points": "die", "bonus": []}
"""The scoring fields a ruleset may leave out, at their default: a die worth its face, no set bonus."""
SCORING_DEFAULTS_UNHASHED: tuple[tuple[str, Any], ...] = tuple(SCORING_DEFAULTS.items())
"""Scoring fields at their default, left out of :func:`rules_content` (records made before they existed still replay)."""


def rules_content(document: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a merged document that decides how a game plays: the document without its
    names, titles, descriptions, terms and colours (see :data:`PRESENTATION_KEYS`)."""
    content = {key: value for key, value in document.items() if key not in PRESENTATION_KEYS}
    categories = content.get("categories")
    if isinstance(categories, Mapping):
        content["categories"] = {
            cid: {k: v for k, v in body.items() if k not in CATEGORY_PRESENTATION_KEYS}
            if isinstance(body, Mapping)
            else body
            for cid, body in categories.items()
        }
    scoring = content.get("scoring")
    if isinstance(scoring, Mapping):
        # Written or left out, the default scoring is one rule: it hashes as before these keys existed.
        content["scoring"] = {
            key: value for key, value in scoring.items() if (key, value) not in SCORING_DEFAULTS_UNHASHED
        }
    options = content.get("options")
    if isinstance(options, Mapping):
        content["options"] = {
            oid: {k: v for k, v in body.items() if k not in OPTION_PRESENTATION_KEYS}
            if isinstance(body, Mapping)
            else body
            for oid, body in options.items()
        }
    return content


def content_hash(document: Mapping[str, Any]) -> str:
    """SHA-256 of a document's rules (:func:`rules_content`) in canonical JSON (sorted keys).

    Stable across runs and key order; a changed rule changes it, while a reworded title,
    term or description does not, so records of a game still replay after a translation fix.
    """
    canonical = json.dumps(
        rules_content(document), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def text(raw: Mapping[str, str]) -> Text:
    """Build a :class:`Text` from a ``{en, fr, es}`` mapping."""
    return Text(en=raw["en"], fr=raw["fr"], es=raw["es"])


def ordered_categories(document: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The ``categories`` mapping as (id, body) pairs in board order (``order``, then id)."""
    return sorted(document["categories"].items(), key=lambda item: (item[1]["order"], item[0]))


def expand_deck(document: Mapping[str, Any]) -> tuple[Card, ...]:
    """Every card of the deck: categories in board order (by value, then letter), Gold, church cards."""
    cards: list[Card] = []
    for category_id, body in ordered_categories(document):
        for value in sorted(body["cards"], key=int):
            for letter in body["cards"][value]:
                cards.append(Card(len(cards), CardKind.CATEGORY, int(value), category=category_id, letter=letter))
    for value in sorted(document["gold"], key=int):
        for _ in range(document["gold"][value]):
            cards.append(Card(len(cards), CardKind.GOLD, int(value)))
    # Church cards in a canonical order (two-dice effects first, single signs first, raising
    # first, then by id) so card ids never depend on the key order of the YAML mapping.
    church_cards = sorted(
        document["church"]["cards"].items(),
        key=lambda item: (-item[1]["dice"], len(item[1]["signs"]), -max(item[1]["signs"], default=0), item[0]),
    )
    for effect_id, body in church_cards:
        targets = tuple(
            DieTarget(None if t["place"] == "any" else t["place"], t.get("optional", False))
            for t in body.get("targets", ())
        )
        effect = ChurchEffect(effect_id, tuple(body["signs"]), body["dice"], targets)
        for _ in range(body["count"]):
            cards.append(Card(len(cards), CardKind.CHURCH, 0, effect=effect))
    return tuple(cards)


def _dice(raw: Iterable[Mapping[str, int]]) -> tuple[AwardDie, ...]:
    dice = [AwardDie(d["place"], d["start"], d["min"], d["max"]) for d in raw]
    return tuple(sorted(dice, key=lambda die: die.place))


def _count_step(item: Mapping[str, Any], category: str | None) -> TieBreak:
    """A count step (``{most: cards, kind: gold}``, ``{fewest: value}``) as a :class:`TieBreak`."""
    fewest = "fewest" in item
    kind = item.get("kind")
    return TieBreak(
        TieBreakBy(item["fewest"] if fewest else item["most"]),
        category,
        fewest=fewest,
        kind=CardKind.CATEGORY if category is not None else CardKind(kind) if kind is not None else None,
        value=item.get("value"),
    )


def _tiebreaks(raw: Iterable[Mapping[str, Any]], category_ids: list[str]) -> tuple[TieBreak, ...]:
    chain: list[TieBreak] = []
    for item in raw:
        if "each_category" in item:
            for category_id in category_ids:
                chain.extend(
                    TieBreak(TieBreakBy(by), category_id) if isinstance(by, str) else _count_step(by, category_id)
                    for by in item["each_category"]
                )
        elif "most" in item or "fewest" in item:
            chain.append(_count_step(item, item.get("category")))
        else:
            chain.append(TieBreak(TieBreakBy(item["by"]), item.get("category")))
    return tuple(chain)


def _bonuses(raw: Iterable[Mapping[str, Any]], category_ids: list[str]) -> tuple[SetBonus, ...]:
    """The set bonuses, their categories in board order."""
    return tuple(
        SetBonus(
            categories=tuple(c for c in category_ids if c in item["categories"]),
            points=item["points"],
            at_least=item.get("at_least", len(item["categories"])),
        )
        for item in raw
    )


def _removals(raw: Iterable[Mapping[str, Any]]) -> tuple[Removal, ...]:
    return tuple(
        Removal(
            kind=CardKind(r["kind"]),
            count=r.get("count", 1),  # required in removals; a starting card item defaults to one
            value=r.get("value"),
            category=r.get("category"),
            effect=r.get("effect"),
        )
        for r in raw
    )


def ceiling(value: int | str, deck: tuple[Card, ...], currency: Currency) -> int:
    """Resolve a bid ceiling: a number, or ``"deck"`` for all the Gold / all the cards of the deck.

    ``"hand"`` (each bidder's own means) resolves like ``"deck"``: the most anyone could pay.
    """
    if value not in ("deck", "hand"):
        return int(value)
    if currency is Currency.GOLD:
        return sum(card.value for card in deck if card.kind is CardKind.GOLD)
    return len(deck)


def build_ruleset(
    document: Mapping[str, Any],
    *,
    active_options: Iterable[str] = (),
    source: str = "",
    extends: tuple[str, ...] = (),
) -> Ruleset:
    """Build the frozen :class:`Ruleset` from a merged, validated document with options applied."""
    default_dice = document["dice"]
    categories = tuple(
        Category(
            id=category_id,
            index=index,
            name=text(body["name"]),
            colour=body["colour"],
            colour_name=text(body["colour_name"]),
            glyph=body["glyph"],
            dice=_dice(body.get("dice", default_dice)),
        )
        for index, (category_id, body) in enumerate(ordered_categories(document))
    )
    deck = expand_deck(document)
    setups = {
        int(count): Setup(
            players=int(count),
            remove=_removals(body.get("remove", ())),
            remove_random=body.get("remove_random", 0),
            starting_hand=body.get("starting_hand", 0),
            gift_cards=body.get("gift_cards", int(count) + 1),
            short_draw=ShortDraw(body.get("short_draw", "play-out")),
            starting_cards=_removals(body.get("starting_cards", ())),
        )
        for count, body in document["setup"].items()
    }
    auction = document["auction"]
    currency = {CardKind(kind): Currency(value) for kind, value in auction["currency"].items()}
    church = document["church"]
    penalty = document["penalty"]
    scoring = document["scoring"]
    options = {
        option_id: Option(
            id=option_id,
            title=text(body["title"]),
            description=text(body["description"]),
            default=body.get("default", False),
            changes=MappingProxyType(dict(body.get("changes", {}))),
        )
        for option_id, body in document.get("options", {}).items()
    }
    return Ruleset(
        id=document["id"],
        aliases=tuple(document.get("aliases", ())),
        version=str(document["version"]),
        title=text(document["title"]),
        rulebook_title=MappingProxyType(dict(document.get("rulebook_title", {}))),
        description=text(document["description"]),
        provenance=tuple(document.get("provenance", ())),
        terms=MappingProxyType(
            {key: build_term(value) for key, value in document["terms"].items() if key in TERM_KEYS}
        ),
        categories=categories,
        deck=deck,
        setups=MappingProxyType(dict(sorted(setups.items()))),
        church=ChurchRules(optional=church["optional"], targets=ChurchTargets(church["targets"])),
        auction=AuctionRules(
            bidding_starts=BiddingStart(auction["bidding_starts"]),
            opening_bid=auction["opening_bid"],
            currency=MappingProxyType(currency),
            gold_ceiling=ceiling(auction["ceiling"]["gold"], deck, Currency.GOLD),
            cards_ceiling=ceiling(auction["ceiling"]["cards"], deck, Currency.CARDS),
            overpay=Overpay(auction["overpay"]),
            all_pass=AllPass(auction["all_pass"]),
            refuse_to_pay=auction["refuse_to_pay"],
            gold_ceiling_hand=auction["ceiling"]["gold"] == "hand",
            cards_ceiling_hand=auction["ceiling"]["cards"] == "hand",
        ),
        penalty=PenaltyRules(
            kind=PenaltyKind(penalty["kind"]), exclude_from_reauction=penalty["exclude_from_reauction"]
        ),
        scoring=ScoringRules(
            category_tie=CategoryTie(scoring["category_tie"]),
            final_tiebreak=_tiebreaks(scoring["final_tiebreak"], [c.id for c in categories]),
            points=PointsRule(scoring.get("points", SCORING_DEFAULTS["points"])),
            bonus=_bonuses(scoring.get("bonus", ()), [c.id for c in categories]),
        ),
        options=MappingProxyType(options),
        active_options=frozenset(active_options),
        content_hash=content_hash(document),
        source=source,
        extends=extends,
        document=MappingProxyType(dict(document)),
        church_names=MappingProxyType(
            {
                effect: build_term(value if isinstance(value, dict) else dict.fromkeys(LANGUAGES, value))
                for effect, value in document["terms"].get("church_cards", {}).items()
            }
        ),
    )
