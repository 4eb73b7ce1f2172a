"""The count of a church effect's uses (``rules.church``) is the number of uses the engine lists.

The semantic check and the engine's compile step refuse an effect by this count, so it must
never drift from what ``engine.compiled`` enumerates: every case here compiles a ruleset and
compares the two, card by card.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from biblios_kit.engine import new_game
from biblios_kit.engine.compiled import CompiledRules, compile_rules
from biblios_kit.errors import RulesetError
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.church import MAX_CHURCH_USES, church_uses
from biblios_kit.rules.model import ChurchTargets, Ruleset

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rulesets").rglob("*.yaml"))

HEAD = """extends: biblios
id: {id}
title: {{en: Church test, fr: Test d'Église, es: Prueba de Iglesia}}
description: {{en: A test., fr: Un test., es: Una prueba.}}
"""


def variant(tmp_path: Path, name: str, body: str) -> Ruleset:
    path = tmp_path / f"{name}.yaml"
    path.write_text(HEAD.format(id=name) + body, encoding="utf-8")
    return load_ruleset(path)


def dice(places: int) -> str:
    """A ``dice`` list with award places 1..``places`` (every die starts mid-range)."""
    return "dice:\n" + "".join(f"  - {{place: {p}, start: 3, min: 1, max: 6}}\n" for p in range(1, places + 1))


def counted_and_listed(rules: CompiledRules) -> list[tuple[str, int, int]]:
    """For each church effect: (id, the count of :func:`church_uses`, the uses the engine lists)."""
    ruleset = rules.ruleset
    first_place_only = ruleset.church.targets is ChurchTargets.FIRST_PLACE
    found: dict[str, tuple[str, int, int]] = {}
    for card in ruleset.deck:
        effect = card.effect
        if effect is None or effect.id in found:
            continue
        slots = [(t.place or 0, t.optional) for t in effect.targets]
        counted = church_uses(rules.die_place, effect.dice, slots, len(effect.signs), first_place_only)
        listed = {
            choice for sign in effect.signs for choice in rules.church_choices[(rules.church_group[card.id], sign)]
        }
        found[effect.id] = (effect.id, counted, len(listed))
    return list(found.values())


def test_on_the_shipped_rulesets_with_every_option_the_count_is_what_the_engine_lists() -> None:
    highest = 0
    for path in SHIPPED:
        options = list(load_ruleset(path).options)
        for size in range(len(options) + 1):
            for chosen in itertools.combinations(options, size):
                for effect, counted, listed in counted_and_listed(compile_rules(load_ruleset(path, list(chosen)))):
                    assert counted == listed, (path.name, chosen, effect)
                    highest = max(highest, counted)
    # The figure rules/church.py and docs/rulesets.md give, far below the cap.
    assert highest == 160
    assert highest * 20 < MAX_CHURCH_USES


CASES = {
    "any, second-place dice, two steps": dice(2)
    + "church:\n  targets: any\n  cards:\n    raise-two: {count: 2, signs: [1, -1], dice: 3}\n",
    "first-place, three places": dice(3)
    + "church:\n  targets: first-place\n  cards:\n    raise-two: {count: 2, signs: [1, -1], dice: 2}\n",
    "targets with optional dice": dice(3) + "church:\n  cards:\n    raise-two:\n      dice: 4\n"
    "      targets: [{place: 1}, {place: 2, optional: true}, {place: any, optional: true}, {place: 3}]\n",
    "targets, any, every die optional": dice(2)
    + "church:\n  cards:\n    raise-one:\n      dice: 3\n      signs: [1, -1]\n"
    "      targets: [{place: any, optional: true}, {place: 1, optional: true}, {place: any, optional: true}]\n",
    "targets override first-place": dice(2)
    + "church:\n  targets: first-place\n  cards:\n    lower-one:\n      dice: 2\n"
    "      targets: [{place: 2}, {place: any}]\n",
}


@pytest.mark.parametrize("body", CASES.values(), ids=CASES.keys())
def test_the_count_is_what_the_engine_lists(tmp_path: Path, body: str) -> None:
    results = counted_and_listed(compile_rules(variant(tmp_path, "case", body)))
    assert results and all(counted == listed for _effect, counted, listed in results), results
    assert any(counted > 10 for _effect, counted, _listed in results)  # cases large enough to tell mistakes apart


def test_random_small_boards_and_targets_are_counted_as_the_engine_lists(tmp_path: Path) -> None:
    rng = random.Random(7)
    compared = 0
    for case in range(40):
        places = rng.randint(1, 3)
        slots = [(rng.choice(["any", 1, 2, 3][: places + 1]), rng.random() < 0.4) for _ in range(rng.randint(1, 5))]
        targets = ", ".join(
            f"{{place: {place}, optional: true}}" if optional else f"{{place: {place}}}" for place, optional in slots
        )
        body = (
            dice(places) + "church:\n  cards:\n    raise-one:\n"
            f"      dice: {len(slots)}\n      signs: {rng.choice(['[1]', '[1, -1]'])}\n      targets: [{targets}]\n"
        )
        try:
            ruleset = variant(tmp_path, f"case-{case}", body)
        except RulesetError:  # a place with too few dice for its targets: refused, nothing to compare
            continue
        for effect, counted, listed in counted_and_listed(compile_rules(ruleset)):
            assert counted == listed, (body, effect)
            compared += 1
    assert compared > 100  # most random cases load (each has five effects)


def test_the_count_by_itself() -> None:
    board = [1, 2, 3, 4, 5, 6] * 5  # 5 categories, 6 dice each
    assert church_uses(board, 10, [], 2) == 60_090_030  # any 10 of 30 dice, two steps
    assert church_uses(board, 2, [], 1, first_place_only=True) == 10
    assert church_uses(board, 2, [(1, False), (2, True)], 1) == 5 * (1 + 5)  # a first-place die, a second maybe
    assert church_uses(board, 1, [(0, True)], 2) == 60
    assert church_uses([1, 1], 3, [(1, False), (1, False), (1, False)], 1) == 0  # not enough dice: no use


def test_a_ruleset_just_under_the_cap_loads_and_plays(tmp_path: Path) -> None:
    body = dice(6) + "church:\n  targets: any\n  cards:\n    raise-two: {count: 2, signs: [1], dice: 3}\n"
    ruleset = variant(tmp_path, "under-cap", body)
    rules = compile_rules(ruleset)
    uses = {effect: counted for effect, counted, _listed in counted_and_listed(rules)}
    assert uses["raise-two"] == 4060 <= MAX_CHURCH_USES  # any 3 of 30 dice, one step
    state = new_game(ruleset, 2, 1)
    state.playout([random.Random(0), random.Random(1)])
    assert state.is_terminal()


def test_the_same_card_with_both_steps_is_over_the_cap_and_refused(tmp_path: Path) -> None:
    body = dice(6) + "church:\n  targets: any\n  cards:\n    raise-two: {count: 2, signs: [1, -1], dice: 3}\n"
    with pytest.raises(RulesetError) as caught:
        variant(tmp_path, "over-cap", body)
    [problem] = caught.value.problems
    assert (problem.code, problem.path) == ("church-too-many-uses", "church.cards.raise-two.dice")
    assert problem.fields == {"effect": "raise-two", "uses": 8120, "cap": MAX_CHURCH_USES}
    assert problem.line == 15


def test_the_uses_are_counted_only_on_an_otherwise_sound_effect(tmp_path: Path) -> None:
    # Every other problem of the effect is still reported; the count, meaningless then, is not.
    body = dice(6) + "church:\n  cards:\n    raise-two: {signs: [], dice: 10, targets: [{place: 1}]}\n"
    with pytest.raises(RulesetError) as caught:
        variant(tmp_path, "unsound", body)
    assert sorted(problem.code for problem in caught.value.problems) == ["no-signs", "targets-count"]
