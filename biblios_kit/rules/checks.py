"""Semantic checks of a schema-valid ruleset document: every inconsistency, not just the first.

Each inconsistency is an :class:`~biblios_kit.rules.source.Issue` with a code and fields;
the sentence, with the edition's own terms where it names them, is made by
:mod:`biblios_kit.messages`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from biblios_kit.rules.church import MAX_CHURCH_USES, church_uses
from biblios_kit.rules.schema import unknown_name
from biblios_kit.rules.source import FieldPath, Issue

MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_DECK_CARDS = 300
"""Most cards a deck may hold (Biblios has 87): bounds the size and length of every game."""
MAX_CEILING = 1000
"""Highest bid ceiling, also when ``deck`` stands for the deck's Gold or cards (Biblios: 66 Gold)."""
CATEGORY_CRITERIA = ("category-total", "category-letter", "category-won")
"""Final tie-break criteria that look at one category."""
OPTION_FORBIDDEN_CHANGES = ("format", "id", "aliases", "extends", "options")
"""Top-level fields an option may not change (they identify the ruleset or declare options)."""

_DECK: tuple[FieldPath, ...] = (("categories",), ("gold",), ("church", "cards"))
"""Where the deck is set: a count that does not fit may come from a change to any of them."""


def _deck_paths(removal: Mapping[str, Any]) -> tuple[FieldPath, ...]:
    """Where the cards a removal takes are set (for locating it where a variant changed them)."""
    if removal["kind"] == "gold":
        return (("gold", str(removal["value"])),) if "value" in removal else (("gold",),)
    if removal["kind"] == "church":
        return (("church", "cards", removal["effect"]),) if "effect" in removal else (("church", "cards"),)
    return (("categories", removal["category"]),) if "category" in removal else (("categories",),)


# A card as the checks see it: (kind, value, category, effect).
_Card = tuple[str, int, "str | None", "str | None"]


def deck_cards(document: Mapping[str, Any]) -> list[_Card]:
    """Every card of a schema-valid document as ``(kind, value, category, effect)``."""
    cards: list[_Card] = []
    for category_id, body in document["categories"].items():
        for value, letters in body["cards"].items():
            cards.extend(("category", int(value), category_id, None) for _letter in letters)
    for value, count in document["gold"].items():
        cards.extend(("gold", int(value), None, None) for _n in range(count))
    for effect_id, body in document["church"]["cards"].items():
        cards.extend(("church", 0, None, effect_id) for _n in range(body["count"]))
    return cards


def _terms(document: Mapping[str, Any], *keys: str) -> dict[str, object]:
    """The document's own terms ``keys`` as written: a message names them in the reader's language."""
    return {key: document["terms"][key] for key in keys}


def semantic_issues(document: Mapping[str, Any], broken: Iterable[str] = ()) -> list[Issue]:
    """Check references and arithmetic of a merged document; return every issue.

    ``broken`` names the top-level fields that failed the schema: the checks that read one
    of them are skipped (they need a schema-valid part), the others still run, so one run
    reports schema and semantic problems together where it can.
    """
    skip = set(broken)
    issues: list[Issue] = []

    def ready(*fields: str) -> bool:
        return not skip.intersection(fields)

    if ready("id", "aliases"):
        _check_identity(document, issues)
    if ready("categories"):
        _check_categories(document, issues)
    if ready("dice"):
        _check_dice(document["dice"], ("dice",), issues)
    if not ready("categories", "gold", "church"):  # every later check walks the deck
        if ready("scoring", "categories"):
            _check_scoring(document, issues, terms=ready("terms"))
        if ready("options"):
            _check_options(document, issues)
        return issues
    cards = deck_cards(document)
    if len(cards) > MAX_DECK_CARDS:
        issues.append(Issue((), "deck-too-large", {"count": len(cards), "limit": MAX_DECK_CARDS}))
        return issues  # every later check walks the deck
    if ready("dice"):
        _check_church(document, issues)
    if ready("terms"):
        _check_church_names(document, issues)
    if ready("setup", "terms"):
        _check_setups(document, cards, issues)
    if ready("auction"):
        _check_auction(document, cards, issues)
    if ready("scoring"):
        _check_scoring(document, issues, cards, terms=ready("terms"))
    if ready("options"):
        _check_options(document, issues)
    return issues


def _check_identity(document: Mapping[str, Any], issues: list[Issue]) -> None:
    for index, alias in enumerate(document.get("aliases", ())):
        if alias == document["id"]:
            issues.append(Issue(("aliases", index), "alias-repeats-id", {"alias": alias}))


def _check_categories(document: Mapping[str, Any], issues: list[Issue]) -> None:
    orders: dict[int, str] = {}
    for category_id, body in document["categories"].items():
        path: FieldPath = ("categories", category_id)
        other = orders.setdefault(body["order"], category_id)
        if other != category_id:
            issues.append(
                Issue(
                    (*path, "order"),
                    "order-taken",
                    {"order": body["order"], "other": other},
                    mirror=(("categories", other, "order"), {"order": body["order"], "other": category_id}),
                )
            )
        letters = Counter(letter for value in body["cards"].values() for letter in value)
        if not letters:
            issues.append(Issue((*path, "cards"), "no-cards"))
        reported: set[str] = set()
        for value, run in body["cards"].items():
            for letter in run:
                if letters[letter] > 1 and letter not in reported:
                    reported.add(letter)
                    fields = {"letter": letter, "count": letters[letter]}
                    last = next(key for key, run in reversed(body["cards"].items()) if letter in run)
                    issues.append(
                        Issue(
                            (*path, "cards", value),
                            "letter-repeated",
                            fields,
                            mirror=((*path, "cards", last), fields) if last != value else None,
                        )
                    )
        if "dice" in body:
            _check_dice(body["dice"], (*path, "dice"), issues)


def _check_dice(dice: list[Mapping[str, int]], path: FieldPath, issues: list[Issue]) -> None:
    places: dict[int, int] = {}
    for index, die in enumerate(dice):
        if die["place"] in places:
            issues.append(
                Issue(
                    (*path, index, "place"), "place-taken", {"place": die["place"], "first": places[die["place"]] + 1}
                )
            )
        places.setdefault(die["place"], index)
        if die["min"] > die["max"]:
            issues.append(Issue((*path, index, "min"), "min-above-max", {"low": die["min"], "high": die["max"]}))
        elif not die["min"] <= die["start"] <= die["max"]:
            issues.append(
                Issue(
                    (*path, index, "start"),
                    "start-out-of-bounds",
                    {"start": die["start"], "low": die["min"], "high": die["max"]},
                )
            )
    missing = [place for place in range(1, max(places, default=0) + 1) if place not in places]
    if missing:
        issues.append(Issue(path, "places-gap", {"places": missing}))


def _movable_dice(document: Mapping[str, Any]) -> int:
    if document["church"]["targets"] == "first-place":
        return len(document["categories"])
    return sum(len(body.get("dice", document["dice"])) for body in document["categories"].values())


def _die_places(document: Mapping[str, Any]) -> list[int]:
    """The award place of every die of the board (each category's own dice, or the shared ``dice``)."""
    return [die["place"] for body in document["categories"].values() for die in body.get("dice", document["dice"])]


def _check_die_targets(
    document: Mapping[str, Any], body: Mapping[str, Any], path: FieldPath, issues: list[Issue]
) -> bool:
    """A card naming its dice one by one: one target per die, each place held by enough dice (True if so)."""
    targets = body["targets"]
    if len(targets) != body["dice"]:
        issues.append(Issue((*path, "targets"), "targets-count", {"count": len(targets), "dice": body["dice"]}))
        return False
    places = Counter(
        die["place"] for category in document["categories"].values() for die in category.get("dice", document["dice"])
    )
    wanted = Counter(target["place"] for target in targets)
    for index, target in enumerate(targets):
        place = target["place"]
        available = sum(places.values()) if place == "any" else places[place]
        wanted_here = len(targets) if place == "any" else wanted[place]
        if wanted_here > available:
            where: FieldPath = (*path, "targets", index, "place")
            if available == 0:
                fields: dict[str, object] = {"place": place, "places": sorted(places)}
                # the loader adds the shipped rulesets that have such a die (see loader.check_document)
                issues.append(Issue(where, "no-die-of-place", fields, related=(("dice",), ("categories",))))
            else:
                issues.append(
                    Issue(
                        where,
                        "too-few-dice-of-place",
                        {"count": wanted_here, "available": available},
                        related=(("dice",), ("categories",)),
                    )
                )
            return False
    return True


def _check_church(document: Mapping[str, Any], issues: list[Issue]) -> None:
    movable = _movable_dice(document)
    places = _die_places(document)
    first_place_only = document["church"]["targets"] == "first-place"
    for effect_id, body in document["church"]["cards"].items():
        path: FieldPath = ("church", "cards", effect_id)
        sound = bool(body["signs"])  # the uses are counted only on an otherwise sound effect
        if not sound:
            issues.append(Issue((*path, "signs"), "no-signs"))
        if "targets" in body:
            sound = _check_die_targets(document, body, path, issues) and sound
        elif body["dice"] > movable:
            issues.append(Issue((*path, "dice"), "too-many-dice", {"count": body["dice"], "movable": movable}))
            sound = False
        if not sound:
            continue
        targets = [
            (0 if t["place"] == "any" else t["place"], t.get("optional", False)) for t in body.get("targets", ())
        ]
        uses = church_uses(places, body["dice"], targets, len(body["signs"]), first_place_only)
        if uses > MAX_CHURCH_USES:
            issues.append(
                Issue(
                    (*path, "dice"),
                    "church-too-many-uses",
                    {"effect": effect_id, "uses": uses, "cap": MAX_CHURCH_USES},
                    related=(("dice",), ("categories",), ("church", "targets")),
                )
            )


def _check_church_names(document: Mapping[str, Any], issues: list[Issue]) -> None:
    """Every name in ``terms.church_cards`` belongs to a church effect of the deck."""
    effects = document["church"]["cards"]
    for effect_id in document["terms"].get("church_cards", {}):
        if effect_id not in effects:
            code, fields = unknown_name("church effect", effect_id, effects)
            issues.append(Issue(("terms", "church_cards", effect_id), code, fields, at_key=True))


def _removal_matches(removal: Mapping[str, object], card: _Card) -> bool:
    kind, value, category, effect = card
    return (
        kind == removal["kind"]
        and removal.get("value", value) == value
        and removal.get("category", category) == category
        and removal.get("effect", effect) == effect
    )


def _check_removal_fields(
    document: Mapping[str, Any], removal: Mapping[str, Any], path: FieldPath, issues: list[Issue]
) -> bool:
    """Check which narrowing fields a removal may use and that they name existing things."""
    allowed = {"gold": ("value",), "category": ("value", "category"), "church": ("effect",)}[removal["kind"]]
    ok = True
    for name in ("value", "category", "effect"):
        if name in removal and name not in allowed:
            ok = False
            issues.append(
                Issue(
                    (*path, name),
                    "removal-field",
                    {"field": name, "kind": removal["kind"], "allowed": ["kind", "count", *allowed]},
                )
            )
    if "category" in removal and removal["category"] not in document["categories"]:
        ok = False
        code, fields = unknown_name("category", removal["category"], document["categories"])
        issues.append(Issue((*path, "category"), code, fields))
    if "effect" in removal and removal["effect"] not in document["church"]["cards"]:
        ok = False
        code, fields = unknown_name("church effect", removal["effect"], document["church"]["cards"])
        issues.append(Issue((*path, "effect"), code, fields))
    return ok


def _no_such_card(
    document: Mapping[str, Any], cards: list[_Card], item: Mapping[str, Any], path: FieldPath, issues: list[Issue]
) -> bool:
    """Report a removed or dealt card of a value the deck does not have at all, with the values it has (True if so)."""
    if "value" not in item or item["kind"] == "church" or any(_removal_matches(item, card) for card in cards):
        return False
    category = item.get("category")
    values = sorted({card[1] for card in cards if card[0] == item["kind"] and category in (None, card[2])})
    fields: dict[str, object] = {"value": item["value"], "values": values}
    if item["kind"] == "gold":
        fields["terms"] = {"gold": document["terms"]["gold"]}
        code = "no-gold-of-value"
    elif category is not None:
        fields["category"] = category
        code = "no-category-card-of-value"
    else:
        code = "no-category-card-of-value-any"
    issues.append(Issue((*path, "value"), code, fields, related=_deck_paths(item)))
    return True


def _check_setups(document: Mapping[str, Any], cards: list[_Card], issues: list[Issue]) -> None:
    for players_key, body in document["setup"].items():
        path: FieldPath = ("setup", players_key)
        players = int(players_key)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            issues.append(
                Issue(
                    path,
                    "players-unsupported",
                    {"players": players, "low": MIN_PLAYERS, "high": MAX_PLAYERS},
                    at_key=True,
                )
            )
            continue
        pool = list(cards)
        fits = True
        for index, removal in enumerate(body.get("remove", ())):
            if not _check_removal_fields(document, removal, (*path, "remove", index), issues):
                fits = False
                continue
            if _no_such_card(document, cards, removal, (*path, "remove", index), issues):
                fits = False
                continue
            matching = [i for i, card in enumerate(pool) if _removal_matches(removal, card)]
            if removal["count"] > len(matching):
                fits = False
                issues.append(
                    Issue(
                        (*path, "remove", index, "count"),
                        "removal-exceeds",
                        {"count": removal["count"], "left": len(matching)},
                        related=_deck_paths(removal),
                    )
                )
            for i in reversed(matching[: removal["count"]]):
                del pool[i]
        for index, item in enumerate(body.get("starting_cards", ())):
            if not _check_removal_fields(document, item, (*path, "starting_cards", index), issues):
                fits = False
                continue
            where = (*path, "starting_cards", index)
            if _no_such_card(document, cards, item, where, issues):
                fits = False
                continue
            each = item.get("count", 1)
            need = each * players
            matching = [i for i, card in enumerate(pool) if _removal_matches(item, card)]
            if need > len(matching):
                fits = False
                removed = any(removal.get("count", 0) for removal in body.get("remove", ()))
                issues.append(
                    Issue(
                        (*where, "count") if "count" in item else where,
                        "starting-cards-exceed" if removed else "starting-cards-exceed-deck",
                        {"count": each, "players": players, "need": need, "left": len(matching)},
                        related=_deck_paths(item),
                    )
                )
            for i in reversed(matching[:need]):
                del pool[i]
        if not fits:
            continue
        left = len(pool)
        random_removed = body.get("remove_random", 0)
        if random_removed > left:
            issues.append(
                Issue(
                    (*path, "remove_random"),
                    "random-removal-exceeds",
                    {"count": random_removed, "left": left},
                    related=_DECK,
                )
            )
            continue
        left -= random_removed
        hand = body.get("starting_hand", 0)
        if hand * players > left:
            issues.append(
                Issue(
                    (*path, "starting_hand"),
                    "hands-exceed",
                    {"players": players, "hand": hand, "need": hand * players, "left": left},
                    related=_DECK,
                )
            )
            continue
        left -= hand * players
        gift = body.get("gift_cards", players + 1)
        if gift < players + 1:
            issues.append(
                Issue(
                    (*path, "gift_cards"),
                    "gift-turn-too-small",
                    {
                        "gift": gift,
                        "players": players,
                        "need": players + 1,
                        "terms": _terms(document, "gift_phase", "auction_pile"),
                    },
                )
            )
        elif left < gift:
            issues.append(
                Issue(
                    path,
                    "no-gift-turn",
                    {"left": left, "gift": gift, "terms": _terms(document, "gift_phase")},
                    related=_DECK,
                )
            )


def _check_auction(document: Mapping[str, Any], cards: list[_Card], issues: list[Issue]) -> None:
    auction = document["auction"]
    totals = {"gold": sum(value for kind, value, _c, _e in cards if kind == "gold"), "cards": len(cards)}
    for currency in sorted(set(auction["currency"].values())):
        ceiling = auction["ceiling"][currency]
        resolved = totals[currency] if ceiling in ("deck", "hand") else ceiling
        if ceiling == "hand":
            if resolved > MAX_CEILING:
                issues.append(
                    Issue(
                        ("auction", "ceiling", currency),
                        "hand-ceiling-too-high",
                        {"ceiling": resolved, "limit": MAX_CEILING},
                        related=_DECK,
                    )
                )
            continue
        if resolved > MAX_CEILING:
            issues.append(
                Issue(
                    ("auction", "ceiling", currency),
                    "deck-ceiling-too-high",
                    {"ceiling": resolved, "limit": MAX_CEILING},
                    related=_DECK,
                )
            )
        elif resolved < auction["opening_bid"]:
            code = "deck-ceiling-below-bid" if ceiling == "deck" else "ceiling-below-bid"
            issues.append(
                Issue(
                    ("auction", "ceiling", currency),
                    code,
                    {"ceiling": resolved, "bid": auction["opening_bid"]},
                    related=(("auction", "opening_bid"), *(_DECK if ceiling == "deck" else ())),
                )
            )


def _check_scoring(
    document: Mapping[str, Any], issues: list[Issue], cards: list[_Card] | None = None, *, terms: bool = True
) -> None:
    """Tie-break steps and set bonuses (``cards``: the deck, when it can be walked; ``terms``: whether the
    document's terms are schema-valid, so a message may name the edition's Gold)."""
    categories = document["categories"]
    scoring = document["scoring"]
    for index, step in enumerate(scoring["final_tiebreak"]):
        path: FieldPath = ("scoring", "final_tiebreak", index)
        if sum(form in step for form in ("by", "most", "fewest", "each_category")) != 1:
            issues.append(Issue(path, "tiebreak-by-or-each"))
            continue
        if "each_category" in step:
            if "category" in step:
                issues.append(Issue((*path, "category"), "tiebreak-category-with-each"))
            for name in ("kind", "value"):
                if name in step:
                    issues.append(Issue((*path, name), "tiebreak-filter-with-each", {"field": name}))
            for position, criterion in enumerate(step["each_category"]):
                where: FieldPath = (*path, "each_category", position)
                if isinstance(criterion, Mapping):
                    if ("most" in criterion) == ("fewest" in criterion):
                        issues.append(Issue(where, "count-most-or-fewest"))
                    elif cards is not None and terms and "value" in criterion:
                        _check_count_value(document, cards, {"kind": "category", **criterion}, where, issues)
                elif criterion not in CATEGORY_CRITERIA:
                    issues.append(
                        Issue(
                            where,
                            "not-a-category-criterion",
                            {"criterion": criterion, "criteria": list(CATEGORY_CRITERIA)},
                        )
                    )
            continue
        if "by" not in step:
            _check_count_step(document, step, path, issues, cards, terms)
            continue
        for name in ("kind", "value"):
            if name in step:
                issues.append(
                    Issue((*path, name), "criterion-takes-no-filter", {"criterion": step["by"], "field": name})
                )
        if step["by"] in CATEGORY_CRITERIA:
            if "category" not in step:
                issues.append(Issue(path, "criterion-needs-category", {"criterion": step["by"]}))
            elif step["category"] not in categories:
                code, fields = unknown_name("category", step["category"], categories)
                issues.append(Issue((*path, "category"), code, fields))
        elif "category" in step:
            issues.append(Issue((*path, "category"), "criterion-takes-no-category", {"criterion": step["by"]}))
    for index, bonus in enumerate(scoring.get("bonus", ())):
        path = ("scoring", "bonus", index)
        for position, category in enumerate(bonus["categories"]):
            if category not in categories:
                code, fields = unknown_name("category", category, categories)
                issues.append(Issue((*path, "categories", position), code, fields))
        if bonus.get("at_least", 1) > len(bonus["categories"]):
            issues.append(
                Issue(
                    (*path, "at_least"),
                    "bonus-at-least-too-high",
                    {"at_least": bonus["at_least"], "count": len(bonus["categories"])},
                    related=((*path, "categories"),),
                )
            )


def _check_count_step(
    document: Mapping[str, Any],
    step: Mapping[str, Any],
    path: FieldPath,
    issues: list[Issue],
    cards: list[_Card] | None,
    terms: bool,
) -> None:
    """A count step (``most``/``fewest``): its filters name a category that exists, fit together and match cards."""
    categories = document["categories"]
    if "category" in step:
        if step["category"] not in categories:
            code, fields = unknown_name("category", step["category"], categories)
            issues.append(Issue((*path, "category"), code, fields))
            return
        if step.get("kind") == "gold":
            gold = {"terms": _terms(document, "gold")} if terms else {"gold": "Gold"}
            issues.append(Issue((*path, "kind"), "count-gold-in-category", gold))
            return
    if cards is not None and terms and "value" in step:  # the message may name the edition's Gold
        kind = "category" if "category" in step else step.get("kind")
        _check_count_value(document, cards, {**step, "kind": kind}, path, issues)


def _check_count_value(
    document: Mapping[str, Any], cards: list[_Card], step: Mapping[str, Any], path: FieldPath, issues: list[Issue]
) -> None:
    """Report a count of cards of a value no card of the step's kind and category has (it would always count 0)."""
    kind, category = step.get("kind"), step.get("category")
    held = [card for card in cards if card[0] != "church" and kind in (None, card[0]) and category in (None, card[2])]
    if any(card[1] == step["value"] for card in held):
        return
    if kind is None:
        issues.append(
            Issue(
                (*path, "value"),
                "no-card-of-value",
                {"value": step["value"], "values": sorted({card[1] for card in held})},
                related=_DECK,
            )
        )
        return
    _no_such_card(
        document,
        cards,
        {"kind": kind, "value": step["value"], **({"category": category} if category else {})},
        path,
        issues,
    )


def _check_options(document: Mapping[str, Any], issues: list[Issue]) -> None:
    for option_id, body in document.get("options", {}).items():
        for key in body["changes"]:
            if key in OPTION_FORBIDDEN_CHANGES:
                issues.append(
                    Issue(
                        ("options", option_id, "changes", key), "option-changes-identity", {"field": key}, at_key=True
                    )
                )
