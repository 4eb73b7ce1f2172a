"""Semantic checks of a schema-valid ruleset document: every inconsistency, not just the first."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from biblios_kit.i18n import _, ngettext
from biblios_kit.rules.schema import unknown_name_message
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


def _terms(document: Mapping[str, Any]) -> dict[str, str]:
    """The document's own terms in every form, in the active language, so messages use the edition's words."""
    from biblios_kit.i18n import current_language
    from biblios_kit.rulebook.grammar import term_forms
    from biblios_kit.rules.model import TERM_KEYS, build_term

    lang = current_language()
    values: dict[str, str] = {}
    for key in TERM_KEYS:
        values.update(term_forms(key, build_term(document["terms"][key]).form(lang), lang))
    return values


def semantic_issues(document: Mapping[str, Any]) -> list[Issue]:
    """Check references and arithmetic of a schema-valid merged document; return every issue."""
    issues: list[Issue] = []
    _check_identity(document, issues)
    _check_categories(document, issues)
    _check_dice(document["dice"], ("dice",), issues)
    cards = deck_cards(document)
    if len(cards) > MAX_DECK_CARDS:
        issues.append(
            Issue(
                (),
                _("the deck has {count} cards; a ruleset may have at most {limit}").format(
                    count=len(cards), limit=MAX_DECK_CARDS
                ),
            )
        )
        return issues  # every later check walks the deck
    _check_church(document, issues)
    _check_church_names(document, issues)
    _check_setups(document, cards, issues)
    _check_auction(document, cards, issues)
    _check_scoring(document, issues)
    _check_options(document, issues)
    return issues


def _check_identity(document: Mapping[str, Any], issues: list[Issue]) -> None:
    for index, alias in enumerate(document.get("aliases", ())):
        if alias == document["id"]:
            issues.append(Issue(("aliases", index), _("the alias {alias!r} repeats the id").format(alias=alias)))


def _check_categories(document: Mapping[str, Any], issues: list[Issue]) -> None:
    orders: dict[int, str] = {}
    for category_id, body in document["categories"].items():
        path: FieldPath = ("categories", category_id)
        other = orders.setdefault(body["order"], category_id)
        if other != category_id:
            issues.append(
                Issue(
                    (*path, "order"),
                    _("order {order} is also used by category {other!r}; each category needs its own place").format(
                        order=body["order"], other=other
                    ),
                )
            )
        letters = Counter(letter for value in body["cards"].values() for letter in value)
        if not letters:
            issues.append(Issue((*path, "cards"), _("the category has no cards")))
        reported: set[str] = set()
        for value, run in body["cards"].items():
            for letter in run:
                if letters[letter] > 1 and letter not in reported:
                    reported.add(letter)
                    issues.append(
                        Issue(
                            (*path, "cards", value),
                            _(
                                "the letter {letter!r} is used by {count} cards of this category; each letter breaks ties, so it must be unique"
                            ).format(letter=letter, count=letters[letter]),
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
                    (*path, index, "place"),
                    _("place {place} already has an award die (item {first}); one die per place").format(
                        place=die["place"], first=places[die["place"]] + 1
                    ),
                )
            )
        places.setdefault(die["place"], index)
        if die["min"] > die["max"]:
            issues.append(
                Issue(
                    (*path, index, "min"),
                    _("min {low} is above max {high}; expected min <= max").format(low=die["min"], high=die["max"]),
                )
            )
        elif not die["min"] <= die["start"] <= die["max"]:
            issues.append(
                Issue(
                    (*path, index, "start"),
                    _("the die starts at {start}, outside its bounds {low}..{high}").format(
                        start=die["start"], low=die["min"], high=die["max"]
                    ),
                )
            )
    missing = [place for place in range(1, max(places, default=0) + 1) if place not in places]
    if missing:
        issues.append(
            Issue(
                path,
                _("award places must run 1, 2, 3... without gaps; missing: {places}").format(
                    places=", ".join(str(place) for place in missing)
                ),
            )
        )


def _movable_dice(document: Mapping[str, Any]) -> int:
    if document["church"]["targets"] == "first-place":
        return len(document["categories"])
    return sum(len(body.get("dice", document["dice"])) for body in document["categories"].values())


def _check_die_targets(
    document: Mapping[str, Any], body: Mapping[str, Any], path: FieldPath, issues: list[Issue]
) -> None:
    """A card naming its dice one by one: one target per die, each place held by enough dice."""
    targets = body["targets"]
    if len(targets) != body["dice"]:
        issues.append(
            Issue(
                (*path, "targets"),
                ngettext(
                    "names {count} die but the card moves {dice}; expected one target per die",
                    "names {count} dice but the card moves {dice}; expected one target per die",
                    len(targets),
                ).format(count=len(targets), dice=body["dice"]),
            )
        )
        return
    places = Counter(
        die["place"] for category in document["categories"].values() for die in category.get("dice", document["dice"])
    )
    wanted = Counter(target["place"] for target in targets)
    for index, target in enumerate(targets):
        place = target["place"]
        available = sum(places.values()) if place == "any" else places[place]
        wanted_here = len(targets) if place == "any" else wanted[place]
        if wanted_here > available:
            if available == 0:
                message = _("no category has an award die of this place")
            else:
                message = _(
                    "the card needs {count} different dice of this place but the board has only {available}"
                ).format(count=wanted_here, available=available)
            issues.append(Issue((*path, "targets", index, "place"), message))
            return


def _check_church(document: Mapping[str, Any], issues: list[Issue]) -> None:
    movable = _movable_dice(document)
    for effect_id, body in document["church"]["cards"].items():
        path: FieldPath = ("church", "cards", effect_id)
        if not body["signs"]:
            issues.append(Issue((*path, "signs"), _("no step to choose from; expected [1], [-1] or [1, -1]")))
        if "targets" in body:
            _check_die_targets(document, body, path, issues)
        elif body["dice"] > movable:
            issues.append(
                Issue(
                    (*path, "dice"),
                    ngettext(
                        "the card moves {count} different dice but only {movable} die can be targeted",
                        "the card moves {count} different dice but only {movable} dice can be targeted",
                        movable,
                    ).format(count=body["dice"], movable=movable),
                )
            )


def _check_church_names(document: Mapping[str, Any], issues: list[Issue]) -> None:
    """Every name in ``terms.church_cards`` belongs to a church effect of the deck."""
    effects = document["church"]["cards"]
    for effect_id in document["terms"].get("church_cards", {}):
        if effect_id not in effects:
            issues.append(
                Issue(
                    ("terms", "church_cards", effect_id),
                    unknown_name_message(_("church effect"), effect_id, effects),
                    at_key=True,
                )
            )


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
                    _("{field!r} does not apply to {kind!r} cards; expected only: {allowed}").format(
                        field=name, kind=removal["kind"], allowed=", ".join(("kind", "count", *allowed))
                    ),
                )
            )
    if "category" in removal and removal["category"] not in document["categories"]:
        ok = False
        issues.append(
            Issue((*path, "category"), unknown_name_message(_("category"), removal["category"], document["categories"]))
        )
    if "effect" in removal and removal["effect"] not in document["church"]["cards"]:
        ok = False
        issues.append(
            Issue(
                (*path, "effect"),
                unknown_name_message(_("church effect"), removal["effect"], document["church"]["cards"]),
            )
        )
    return ok


def _check_setups(document: Mapping[str, Any], cards: list[_Card], issues: list[Issue]) -> None:
    for players_key, body in document["setup"].items():
        path: FieldPath = ("setup", players_key)
        players = int(players_key)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            issues.append(
                Issue(
                    path,
                    _("{players} players is not supported; expected {low} to {high}").format(
                        players=players, low=MIN_PLAYERS, high=MAX_PLAYERS
                    ),
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
            matching = [i for i, card in enumerate(pool) if _removal_matches(removal, card)]
            if removal["count"] > len(matching):
                fits = False
                issues.append(
                    Issue(
                        (*path, "remove", index, "count"),
                        ngettext(
                            "removes {count} card but the deck has only {left} of that kind",
                            "removes {count} cards but the deck has only {left} of that kind",
                            removal["count"],
                        ).format(count=removal["count"], left=len(matching)),
                    )
                )
            for i in reversed(matching[: removal["count"]]):
                del pool[i]
        for index, item in enumerate(body.get("starting_cards", ())):
            if not _check_removal_fields(document, item, (*path, "starting_cards", index), issues):
                fits = False
                continue
            need = item["count"] * players
            matching = [i for i, card in enumerate(pool) if _removal_matches(item, card)]
            if need > len(matching):
                fits = False
                issues.append(
                    Issue(
                        (*path, "starting_cards", index, "count"),
                        _(
                            "deals {count} such cards to each of {players} players, {need} in all, but only {left} "
                            "are left after the named removals"
                        ).format(count=item["count"], players=players, need=need, left=len(matching)),
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
                    _("removes {count} random cards but only {left} are left after the named removals").format(
                        count=random_removed, left=left
                    ),
                )
            )
            continue
        left -= random_removed
        hand = body.get("starting_hand", 0)
        if hand * players > left:
            issues.append(
                Issue(
                    (*path, "starting_hand"),
                    _(
                        "{players} hands of {hand} cards need {need} cards but only {left} are left after the removals"
                    ).format(players=players, hand=hand, need=hand * players, left=left),
                )
            )
            continue
        left -= hand * players
        gift = body.get("gift_cards", players + 1)
        if gift < players + 1:
            issues.append(
                Issue(
                    (*path, "gift_cards"),
                    _(
                        "a turn of {gift} cards in {the_gift_phase} is too small for {players} players: one card is kept, one goes to {the_auction_pile} and each other player takes one, so expected at least {need}"
                    ).format(gift=gift, players=players, need=players + 1, **_terms(document)),
                )
            )
        elif left < gift:
            issues.append(
                Issue(
                    path,
                    _(
                        "only {left} cards are left for {the_gift_phase}, fewer than one turn of {gift}; remove fewer cards"
                    ).format(left=left, gift=gift, **_terms(document)),
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
                        _(
                            "'hand' allows bids up to {ceiling}, all of the deck, above the highest allowed, {limit}; "
                            "give a number"
                        ).format(ceiling=resolved, limit=MAX_CEILING),
                    )
                )
            continue
        if resolved > MAX_CEILING:
            issues.append(
                Issue(
                    ("auction", "ceiling", currency),
                    _("'deck' gives a ceiling of {ceiling}, above the highest allowed, {limit}; give a number").format(
                        ceiling=resolved, limit=MAX_CEILING
                    ),
                )
            )
        elif resolved < auction["opening_bid"]:
            if ceiling == "deck":
                message = _(
                    "'deck' gives a ceiling of {ceiling}, below the opening bid {bid}: no bid would be legal"
                ).format(ceiling=resolved, bid=auction["opening_bid"])
            else:
                message = _("the ceiling {ceiling} is below the opening bid {bid}: no bid would be legal").format(
                    ceiling=resolved, bid=auction["opening_bid"]
                )
            issues.append(Issue(("auction", "ceiling", currency), message))


def _check_scoring(document: Mapping[str, Any], issues: list[Issue]) -> None:
    categories = document["categories"]
    for index, step in enumerate(document["scoring"]["final_tiebreak"]):
        path: FieldPath = ("scoring", "final_tiebreak", index)
        if ("by" in step) == ("each_category" in step):
            issues.append(Issue(path, _("each step needs exactly one of 'by' or 'each_category'")))
            continue
        if "each_category" in step:
            if "category" in step:
                issues.append(Issue((*path, "category"), _("'category' goes with 'by', not with 'each_category'")))
            for position, criterion in enumerate(step["each_category"]):
                if criterion not in CATEGORY_CRITERIA:
                    issues.append(
                        Issue(
                            (*path, "each_category", position),
                            _("{criterion!r} does not look at a category; expected one of: {choices}").format(
                                criterion=criterion, choices=", ".join(CATEGORY_CRITERIA)
                            ),
                        )
                    )
            continue
        if step["by"] in CATEGORY_CRITERIA:
            if "category" not in step:
                issues.append(
                    Issue(path, _("the criterion {criterion!r} needs a 'category'").format(criterion=step["by"]))
                )
            elif step["category"] not in categories:
                issues.append(
                    Issue((*path, "category"), unknown_name_message(_("category"), step["category"], categories))
                )
        elif "category" in step:
            issues.append(
                Issue(
                    (*path, "category"), _("the criterion {criterion!r} takes no category").format(criterion=step["by"])
                )
            )


def _check_options(document: Mapping[str, Any], issues: list[Issue]) -> None:
    for option_id, body in document.get("options", {}).items():
        for key in body["changes"]:
            if key in OPTION_FORBIDDEN_CHANGES:
                issues.append(
                    Issue(
                        ("options", option_id, "changes", key),
                        _("an option cannot change {field!r}").format(field=key),
                        at_key=True,
                    )
                )
