"""Worked examples generated from each ruleset, replayed through the engine and present in three languages."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.examples import DEEPEST_STEP, KINDS, SECTION_OF, SEEDS, find_examples, verify
from biblios_kit.rulebook.model import BulletList, Paragraph, Subheading
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.model import PenaltyKind

CASES = [
    ("biblios", ()),
    ("biblios", ("medieval-bluff",)),
    ("biblios", ("refuse-to-pay",)),
    ("scripts-and-scribes", ()),
    ("five-six-players", ()),
    ("second-place-dice", ()),
]


@pytest.mark.parametrize(
    ("ruleset_id", "options"), CASES, ids=lambda value: value if isinstance(value, str) else "+".join(value) or "-"
)
def test_every_kind_is_found_and_replays_true(ruleset_id: str, options: tuple[str, ...]) -> None:
    ruleset = load_ruleset(ruleset_id, options)
    examples = find_examples(ruleset)
    assert [example.kind for example in examples] == list(KINDS)
    for example in examples:
        verify(ruleset, example)
    overpay = next(example for example in examples if example.kind == "overpay")
    assert overpay.fact("paid") == overpay.fact("bid") + overpay.fact("lost")  # type: ignore[operator]
    assert overpay.fact("lost") > 0  # type: ignore[operator]
    tie = next(example for example in examples if example.kind == "final-tie")
    deciding = tie.fact("deciding")
    assert isinstance(deciding, int) and 1 <= deciding <= DEEPEST_STEP  # past Gold: every shipped chain goes further
    values = tie.fact("values")
    assert isinstance(values, tuple) and len(values) == deciding + 1
    assert all(mine == theirs for mine, theirs in values[:-1]) and values[-1][0] != values[-1][1]


def test_a_chain_of_gold_alone_is_settled_by_gold(tmp_path: Path) -> None:
    path = tmp_path / "gold-only.yaml"
    path.write_text(
        "id: gold-only\nextends: biblios\ntitle: {en: G, fr: G, es: G}\ndescription: {en: D, fr: D, es: D}\n"
        "scoring:\n  final_tiebreak:\n    - {by: gold}\n",
        encoding="utf-8",
    )
    ruleset = load_ruleset(path)
    tie = next(example for example in find_examples(ruleset) if example.kind == "final-tie")
    assert tie.fact("deciding") == 0 and tie.seed <= SEEDS
    verify(ruleset, tie)


def test_a_changed_fact_fails_verification() -> None:
    ruleset = load_ruleset("biblios")
    overpay = next(example for example in find_examples(ruleset) if example.kind == "overpay")
    wrong = replace(overpay, facts=tuple((k, 99 if k == "lost" else v) for k, v in overpay.facts))
    with pytest.raises(ValueError, match="differ"):
        verify(ruleset, wrong)
    illegal = replace(overpay, actions=overpay.actions[:5] + (999_999_999,) + overpay.actions[6:])
    with pytest.raises(ValueError, match="not legal"):
        verify(ruleset, illegal)


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
@pytest.mark.parametrize(
    ("ruleset_id", "options"), CASES[:4], ids=lambda value: value if isinstance(value, str) else "+".join(value) or "-"
)
def test_examples_are_in_their_sections(ruleset_id: str, options: tuple[str, ...], lang: str) -> None:
    ruleset = load_ruleset(ruleset_id, options)
    book = render_rulebook(ruleset, lang)
    heading = {"en": "Example", "fr": "Exemple", "es": "Ejemplo"}[lang]
    for kind in KINDS:
        section = book.section(SECTION_OF[kind])
        assert any(isinstance(block, Subheading) and block.text == heading for block in section.blocks), kind
    gift = book.section("gift")
    turn = [block for block in gift.blocks if isinstance(block, BulletList)][-1]
    assert len(turn.items) >= 2 * ruleset.setups[3].gift_cards  # each card drawn, then placed
    penalty = "\n".join(book.section("penalty").lines())
    if ruleset.penalty.kind is PenaltyKind.MEDIEVAL_BLUFF:
        leaves = {"en": "from the game.", "fr": "retire du jeu une carte", "es": "retira del juego una carta"}[lang]
        assert leaves in penalty
    last = book.section("ties").blocks[-1]
    assert isinstance(last, Paragraph) and ("Ana" in last.text or "Bruno" in last.text or "Carla" in last.text)
    tie = next(example for example in find_examples(ruleset) if example.kind == "final-tie")
    step = ruleset.scoring.final_tiebreak[int(str(tie.fact("deciding")))]
    assert step.category is not None and ruleset.category(step.category).name.get(lang) in last.text  # the step named
