"""``rules verify``: every rule statement of the rulebook carries a claim, and the games agree with it.

The claims come from the same renderer code and the same ruleset fields as the sentences
(biblios_kit/rulebook/claims/); these tests play games of every shipped ruleset, option
and variant against its own rulebook, show that a rulebook written for other rules than
the ones played is caught (a drift between the prose and the rules, in both directions),
and run the claims over random house rules drawn from the format's keys.
"""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from conftest import variant
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biblios_kit.i18n import SUPPORTED, translator
from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.grammar import capitalize, term_values
from biblios_kit.rulebook.model import block_claims, block_lines, is_rule
from biblios_kit.rulebook.verify import report_text, statements, verify
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.loader import available_rulesets
from biblios_kit.rules.model import Ruleset

ROOT = Path(__file__).resolve().parent.parent


def shipped() -> list[tuple[str, tuple[str, ...]]]:
    """Every shipped edition and variant, with every combination of its options."""
    found: list[tuple[str, tuple[str, ...]]] = []
    for entry in available_rulesets():
        if entry.origin == "user":
            continue
        options = sorted(load_ruleset(entry.id).options)
        for size in range(len(options) + 1):
            found += [(entry.id, combo) for combo in combinations(options, size)]
    return found


SHIPPED = shipped()


def contradicted(report) -> set[str]:  # type: ignore[no-untyped-def]
    """The ids of the claims a report found contradicted."""
    return {r.statement.claim.id for r in report.results if r.counterexample is not None}


@pytest.mark.parametrize(("name", "options"), SHIPPED, ids=["+".join((n, *o)) for n, o in SHIPPED])
def test_verify_passes_on_every_shipped_ruleset_and_option(name: str, options: tuple[str, ...]) -> None:
    ruleset = load_ruleset(name, list(options))
    report = verify(render_rulebook(ruleset, "en"), ruleset, games=6)
    assert report.ok, report_text(report, "en", name)
    assert report.games == 6 * len(ruleset.setups)
    assert len(report.results) > 60


@pytest.mark.parametrize("lang", SUPPORTED)
@pytest.mark.parametrize(("name", "options"), SHIPPED, ids=["+".join((n, *o)) for n, o in SHIPPED])
def test_every_rule_block_carries_a_claim(name: str, options: tuple[str, ...], lang: str) -> None:
    book = render_rulebook(load_ruleset(name, list(options)), lang)
    bare = [
        (section.id, " ".join(block_lines(block)))
        for section in book.sections
        for block in section.blocks
        if is_rule(block) and not block_claims(block)
    ]
    assert not bare, bare
    # the sections that state rules of play all carry claims
    checked = {s.section for s in statements(book)}
    assert {"setup", "gift", "auction", "penalty", "scoring", "ties", "components"} <= checked


def test_a_paragraph_without_a_claim_is_caught() -> None:
    from biblios_kit.rulebook.model import Paragraph

    assert is_rule(Paragraph("Players may trade cards.")) and not block_claims(Paragraph("Players may trade cards."))
    assert not is_rule(Paragraph("An introduction.", note=True))


# -- drift between the prose and the rules: caught both ways ------------------------------------------

DRIFTS = [
    # (prose from, games of, a claim that must be contradicted)
    ("biblios", "bid-within-means", "auction.ceiling"),
    ("bid-within-means", "biblios", "penalty.never"),
    ("biblios", "biblios+medieval-bluff", "penalty.kind"),
    ("biblios+medieval-bluff", "biblios", "penalty.kind"),
    ("biblios", "biblios+refuse-to-pay", "auction.refuse"),
    ("biblios+refuse-to-pay", "biblios", "auction.refuse"),
    ("five-players-italian", "five-six-players", "setup.dealt"),
    ("five-six-players", "five-players-italian", "setup.dealt"),
    ("biblios", "second-place-dice", "scoring.categories"),
    ("second-place-dice", "biblios", "scoring.categories"),
]


def _load(spec: str) -> Ruleset:
    name, *options = spec.split("+")
    return load_ruleset(name, options)


@pytest.mark.parametrize(("prose", "played", "claim"), DRIFTS)
def test_a_rulebook_of_other_rules_is_caught(prose: str, played: str, claim: str) -> None:
    book = render_rulebook(_load(prose), "en")
    report = verify(book, _load(played), games=6)
    assert not report.ok
    assert claim in contradicted(report), sorted(contradicted(report))


VARIANT_DRIFTS: list[tuple[str, ...]] = [
    # one rule field changed in the played rules, the rulebook left as it was (and the converse)
    ("setup: {3: {gift_cards: 5}}", "gift.draw"),
    ("auction: {all_pass: active-takes}", "auction.all-pass"),
    ("auction: {bidding_starts: active}", "auction.first-bidder"),
    ("auction: {opening_bid: 3}", "auction.raise"),
    ("auction: {ceiling: {gold: 9, cards: deck}}", "auction.ceiling"),
    ("auction: {overpay: forbidden}", "auction.payment"),
    ("church: {optional: false}", "church.optional"),
    ("church: {targets: first-place}", "church.use", "second-place-dice"),
    ("scoring: {category_tie: nobody}", "scoring.categories"),
    ("scoring: {points: die-times-cards}", "scoring.points"),
    ("scoring: {points: die-times-value}", "scoring.points"),
    ("scoring: {bonus: [{categories: [monks, pigments], at_least: 1, points: 2}]}", "scoring.points"),
    ("penalty: {exclude_from_reauction: false}", "penalty.reauction"),
    ("setup: {3: {remove_random: 3}}", "setup.removed"),
    ("setup: {3: {starting_hand: 2}}", "setup.dealt"),
]


def variant_of(tmp_path: Path, base: str, body: str) -> Ruleset:
    """A variant of ``base`` written from ``body``."""
    path = tmp_path / f"of-{base}.yaml"
    path.write_text(
        f"extends: {base}\nid: of-{base}\nversion: '1'\ntitle: {{en: T, fr: T, es: T}}\n"
        f"description: {{en: T, fr: T, es: T}}\n{body}\n",
        encoding="utf-8",
    )
    return load_ruleset(path)


@pytest.mark.parametrize("drift", VARIANT_DRIFTS, ids=[d[1] for d in VARIANT_DRIFTS])
def test_changing_a_rule_field_without_the_prose_is_caught(drift: tuple[str, ...], tmp_path: Path) -> None:
    body, claim, *rest = drift
    base = load_ruleset(rest[0] if rest else "biblios")
    changed = variant_of(tmp_path, rest[0], body) if rest else variant(tmp_path, body)
    assert claim in contradicted(verify(render_rulebook(base, "en"), changed, games=8)), body
    # the converse: the prose of the changed rules, the games of the edition
    assert claim in contradicted(verify(render_rulebook(changed, "en"), base, games=8)), body
    # and the changed rules agree with their own rulebook
    own = verify(render_rulebook(changed, "en"), changed, games=4)
    assert own.ok, report_text(own, "en", body)


def test_a_changed_tie_break_chain_is_caught(tmp_path: Path) -> None:
    # game 10 of seed 0 with 2 players ends on a tie on victory points (found by a 60-game run)
    base, changed = load_ruleset("biblios"), variant(tmp_path, "scoring: {final_tiebreak: []}")
    for prose, played in ((base, changed), (changed, base)):
        report = verify(render_rulebook(prose, "en"), played, games=1, players=[2], first=10)
        assert "ties.chain" in contradicted(report)
    assert verify(render_rulebook(changed, "en"), changed, games=1, players=[2], first=10).ok


def test_a_changed_count_step_is_caught(tmp_path: Path) -> None:
    # the same game 10: Gold (the edition's first step) and the fewest cards in hand rank the tie apart
    base, changed = load_ruleset("biblios"), variant(tmp_path, "scoring: {final_tiebreak: [{fewest: cards}]}")
    for prose, played in ((base, changed), (changed, base)):
        report = verify(render_rulebook(prose, "en"), played, games=1, players=[2], first=10)
        assert "ties.chain" in contradicted(report)
    assert verify(render_rulebook(changed, "en"), changed, games=1, players=[2], first=10).ok


@pytest.mark.parametrize("lang", SUPPORTED)
def test_a_counterexample_is_a_replayable_excerpt_in_the_language(lang: str) -> None:
    report = verify(render_rulebook(load_ruleset("bid-within-means"), lang), load_ruleset("biblios"), games=2)
    text = report_text(report, lang, "biblios")
    tr = translator(lang)
    assert tr.gettext("Counterexample to {statement} (claim {claim}):").split("{")[0] in text
    assert "biblios-kit rules verify biblios --players" in text
    assert "Ana" in text or "Bruno" in text  # the game's own event sentences
    section = render_rulebook(load_ruleset("bid-within-means"), lang).section("auction").title
    assert section in text


def test_a_counterexample_command_plays_the_same_game_again() -> None:
    book = render_rulebook(load_ruleset("bid-within-means"), "en")
    ruleset = load_ruleset("biblios")
    report = verify(book, ruleset, games=3)
    result = next(r for r in report.results if r.statement.claim.id == "penalty.never")
    example = result.counterexample
    assert example is not None
    again = verify(book, ruleset, games=1, seed=example.seed, players=[example.players], first=example.index)
    found = next(r for r in again.results if r.statement.claim.id == "penalty.never").counterexample
    assert found is not None and (found.event, found.action) == (example.event, example.action)


# -- the command --------------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "biblios_kit", "rules", "verify", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_the_command_checks_a_variant_file_and_reports_per_section(tmp_path: Path) -> None:
    path = tmp_path / "house.yaml"
    path.write_text(
        "extends: biblios\nid: house\nversion: '1'\ntitle: {en: H, fr: H, es: H}\ndescription: {en: H, fr: H, es: H}\n"
        "auction: {ceiling: {gold: hand, cards: 12}}\n",
        encoding="utf-8",
    )
    done = run(str(path), "--games", "2", "--lang", "fr")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Phase d'Enchères\u202f: " in done.stdout
    assert "Aucune affirmation des règles rédigées n'est contredite par ces parties." in done.stdout


def test_the_command_exits_1_on_a_contradiction(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import biblios_kit.rulebook as rulebook
    from biblios_kit.cli.app import build_app

    drifted = rulebook.render_rulebook
    # the rulebook of bid-within-means, whatever the games: a drift between the prose and the rules
    monkeypatch.setattr(
        rulebook, "render_rulebook", lambda _ruleset, lang: drifted(load_ruleset("bid-within-means"), lang)
    )
    result = CliRunner().invoke(build_app(), ["rules", "verify", "biblios", "--games", "1", "--lang", "es"])
    assert result.exit_code == 1, result.output
    assert "Contraejemplo de «Nadie puede pujar más de lo que puede pagar" in result.output
    assert "biblios-kit rules verify biblios --players" in result.output


def test_the_command_exits_2_on_bad_input(tmp_path: Path) -> None:
    assert run("no-such-ruleset").returncode == 2
    broken = tmp_path / "broken.yaml"
    broken.write_text("extends: biblios\nid: broken\nauction: {ceiling: {gold: lots}}\n", encoding="utf-8")
    done = run(str(broken))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "broken.yaml" in done.stderr  # the loader's located errors
    assert run("biblios", "--players", "9").returncode == 2
    assert run("biblios", "--option", "nope").returncode == 2


# -- the four contradictions of issue 32 and the wording, in each language ----------------------------


def text(ruleset: Ruleset, lang: str, section: str) -> str:
    return "\n".join(render_rulebook(ruleset, lang).section(section).lines())


@pytest.mark.parametrize("lang", SUPPORTED)
def test_the_public_space_is_never_said_to_close(lang: str) -> None:
    tr = translator(lang)
    ruleset = load_ruleset("biblios")
    gift = text(ruleset, lang, "gift")
    old = tr.gettext(
        "Once a destination has been used, it is closed for the rest of the turn. When the cards still to draw are "
        "just enough for the destinations not yet used, the choice is forced."
    )
    assert old.split(".")[0] not in gift
    new = tr.gettext(
        "Once a card has been kept, or placed on {the_auction_pile}, that destination is closed for the rest of the "
        "turn; {the_public_space} takes every other card. When the cards still to draw are just enough for the card "
        "to keep and the card for {the_auction_pile} not yet placed, they must go there."
    ).format(**term_values(ruleset, lang))
    assert capitalize(new) in gift


@pytest.mark.parametrize("lang", SUPPORTED)
def test_bidding_within_means_is_not_called_a_bluff(lang: str, tmp_path: Path) -> None:
    tr = translator(lang)
    bluff = tr.gettext(
        "Players may bid more than they can pay: that is the bluff. A winner who cannot pay is penalized (see {section})."
    ).split(":")[0].split("\u202f")[0]  # fmt: skip
    means = load_ruleset("bid-within-means")
    assert bluff not in text(means, lang, "auction")
    assert tr.gettext("Nobody may bid more than they can pay, so a winner can always pay.") in text(
        means, lang, "auction"
    )
    assert bluff in text(load_ruleset("biblios"), lang, "auction")
    half = variant(tmp_path, "auction: {ceiling: {gold: hand, cards: deck}}")
    assert bluff not in text(half, lang, "auction")
    where = tr.gettext(
        "Where bids are not limited to what the bidder can pay, players may bid more than they can pay: that is the "
        "bluff. A winner who cannot pay is penalized (see {section})."
    ).split(",")[0]
    assert where in text(half, lang, "auction")


@pytest.mark.parametrize("lang", SUPPORTED)
def test_named_starting_cards_are_dealt_before_the_random_removals(lang: str) -> None:
    tr = translator(lang)
    setup = text(load_ruleset("five-players-italian"), lang, "setup")
    first = tr.gettext(
        "Shuffle all the cards. Then, according to the number of players, set aside face down, without looking at "
        "them, the named cards shown below, and deal each player the named cards shown, face up. Only then set aside "
        "the cards taken at random, face down. The cards set aside take no part in the game."
    )
    assert first in setup
    assert setup.index(first) < setup.index("\n", setup.index(first))
    assert "first the named cards, then cards taken at random" not in setup


@pytest.mark.parametrize("lang", SUPPORTED)
def test_explain_names_the_categories(lang: str) -> None:
    from biblios_kit.rulebook.diff import diff_rulesets

    base, changed = load_ruleset("biblios"), load_ruleset("second-place-dice")
    topics = [d.topic for d in diff_rulesets(base, changed, lang) if d.key.startswith("dice:")]
    names = [category.name.get(lang) for category in base.categories]
    assert len(topics) == len(names)
    assert all(name in topic for name, topic in zip(names, topics))
    assert not any(any(ch.isdigit() for ch in topic) for topic in topics)


@pytest.mark.parametrize("lang", SUPPORTED)
def test_wording_items_of_issue_32(lang: str) -> None:
    tr = translator(lang)
    biblios = load_ruleset("biblios")
    book = "\n".join(line for section in render_rulebook(biblios, lang).sections for line in section.lines())
    for old in ("It may move the die of any category.", "It may move only the dice for first place."):
        assert tr.gettext(old) == old or tr.gettext(old) not in book  # the orphan "It" is gone
    church = text(biblios, lang, "church")
    assert (
        capitalize(tr.gettext("A {church} may move the die of any category.").format(**term_values(biblios, lang)))
        in church
    )
    assert {"en": "same step", "fr": "même pas", "es": "mismo paso"}[lang] not in book
    assert " 66" not in text(biblios, lang, "auction") and " 87." not in text(biblios, lang, "auction")
    closest = {"en": "closest to A", "fr": "la plus proche de A", "es": "más cercana a la A"}[lang]
    assert closest in text(biblios, lang, "scoring") and closest in text(biblios, lang, "ties")
    assert {"en": "earliest letter", "fr": "plus petite lettre", "es": "primera letra"}[lang] not in book


def test_a_ceiling_below_the_deck_is_stated(tmp_path: Path) -> None:
    ruleset = variant(tmp_path, "auction: {ceiling: {gold: 9, cards: 4}}")
    auction = text(ruleset, "en", "auction")
    assert "from 1 to 9" in auction and "from 1 to 4" in auction


# -- property: random house rules agree with their own rulebook ---------------------------------------

CEILINGS = st.sampled_from(["deck", "hand", 6, 20])
HOUSE_RULES = st.fixed_dictionaries(
    {
        "auction": st.fixed_dictionaries(
            {
                "ceiling": st.fixed_dictionaries({"gold": CEILINGS, "cards": CEILINGS}),
                "overpay": st.sampled_from(["lost", "forbidden"]),
                "all_pass": st.sampled_from(["discard", "active-takes"]),
                "bidding_starts": st.sampled_from(["left-of-active", "active"]),
                "refuse_to_pay": st.booleans(),
                "opening_bid": st.integers(1, 3),
                "currency": st.fixed_dictionaries(
                    {kind: st.sampled_from(["gold", "cards"]) for kind in ("category", "church", "gold")}
                ),
            }
        ),
        "penalty": st.fixed_dictionaries(
            {"kind": st.sampled_from(["standard", "medieval-bluff", "none"]), "exclude_from_reauction": st.booleans()}
        ),
        "church": st.fixed_dictionaries(
            {
                "optional": st.booleans(),
                "targets": st.sampled_from(["any", "first-place"]),
                "cards": st.sampled_from(
                    [
                        {},
                        {"raise-one": {"dice": 2, "targets": [{"place": 1}, {"place": 2, "optional": True}]}},
                        {"lower-two": {"dice": 2, "targets": [{"place": "any"}, {"place": 1, "optional": True}]}},
                    ]
                ),
            }
        ),
        "dice": st.sampled_from(
            [
                [{"place": 1, "start": 3, "min": 1, "max": 6}],
                [{"place": 1, "start": 3, "min": 1, "max": 6}, {"place": 2, "start": 2, "min": 1, "max": 6}],
                [{"place": 1, "start": 4, "min": 2, "max": 5}, {"place": 2, "start": 1, "min": 1, "max": 3}],
            ]
        ),
        "scoring": st.fixed_dictionaries(
            {
                "category_tie": st.sampled_from(["earliest-letter", "nobody"]),
                "final_tiebreak": st.sampled_from(
                    [[], [{"by": "gold"}], [{"by": "gold"}, {"each_category": ["category-total", "category-letter"]}]]
                ),
            }
        ),
        "setup": st.fixed_dictionaries(
            {
                "3": st.fixed_dictionaries(
                    {
                        "gift_cards": st.integers(4, 7),
                        "short_draw": st.sampled_from(["play-out", "discard"]),
                        "starting_hand": st.integers(0, 2),
                        "remove_random": st.integers(0, 6),
                        "starting_cards": st.sampled_from(
                            [[], [{"kind": "gold", "value": 1, "count": 1}], [{"kind": "gold", "count": 2}]]
                        ),
                    }
                )
            }
        ),
    }
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rules=HOUSE_RULES)
def test_random_house_rules_agree_with_their_rulebook(rules: dict[str, object], tmp_path: Path) -> None:
    import json

    from biblios_kit.errors import RulesetError

    body = "\n".join(f"{key}: {json.dumps(value)}" for key, value in rules.items())
    try:
        ruleset = variant(tmp_path, body)
    except RulesetError:
        return  # a combination the format refuses (say a ceiling below the opening bid)
    for lang in SUPPORTED:
        book = render_rulebook(ruleset, lang)
        assert all(block_claims(b) for s in book.sections for b in s.blocks if is_rule(b)), (lang, body)
    report = verify(render_rulebook(ruleset, "en"), ruleset, games=3, players=[3])
    assert report.ok, body + "\n" + report_text(report, "en", body)
