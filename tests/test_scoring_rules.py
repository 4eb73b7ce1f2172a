"""Scoring as data (issue #30): count steps of the final tie-break, what an award die is worth, set bonuses.

Each is checked by hand-worked scores in the engine, in the editions (the printed rule written as
data, their hashes and results unchanged), in the rulebook and ``rules diff``/``explain`` in three
languages, in the replay report, and in the bots' estimates and whole games. The shipped variants
``ties-counting-cards`` (count steps) and ``complete-library`` (a set bonus; its option
``count-the-books`` multiplies each die by the taker's cards) are in ``SHIPPED_CHOICES``
(tests/conftest.py), so the pure-versus-compiled fingerprint, the Hypothesis properties, the
hidden-information suites and ``rules verify`` cover them too; their perft rows are in
tests/data/perft.txt; their slips are the ``scoring-*`` fixtures of tests/data/rulesets.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import yaml
from conftest import check_invariants, variant

from biblios_kit.bots.estimate import Estimate, at_least_chance, bonus_terms
from biblios_kit.bots.registry import make_bot
from biblios_kit.cli.replay_cmds import render_text
from biblios_kit.engine import new_game
from biblios_kit.engine.compiled import POINTS_DIE, POINTS_TIMES_CARDS, compile_rules
from biblios_kit.engine.scoring import BonusAward, score_hands
from biblios_kit.i18n import in_language
from biblios_kit.rulebook import render_rulebook
from biblios_kit.rulebook.describe import award_reason, tiebreak_text
from biblios_kit.rulebook.diff import diff_rulesets
from biblios_kit.rulebook.explain import explain_changes, section_of
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.build import content_hash
from biblios_kit.rules.model import CardKind, PointsRule, Ruleset, SetBonus, TieBreak, TieBreakBy
from biblios_kit.rules.source import read_file

ROOT = Path(__file__).resolve().parent.parent
COUNTING = "ties-counting-cards"
LIBRARY = "complete-library"
BOOKS = "count-the-books"


def card(ruleset: Ruleset, category: str | None, value: int, letter: str | None = None, skip: int = 0) -> int:
    """The id of a card: a category card by its letter, or the ``skip``-th Gold card of ``value``."""
    found = [
        c.id
        for c in ruleset.deck
        if (c.kind is CardKind.GOLD if category is None else c.category == category)
        and c.value == value
        and (letter is None or c.letter == letter)
    ]
    return found[skip]


def score(ruleset: Ruleset, hands: list[list[int]], face: int = 3):  # type: ignore[no-untyped-def]
    rules = compile_rules(ruleset)
    return score_hands(rules, hands, [face] * rules.n_dice)


# ---------------------------------------------------------------- the editions: the printed rule as data


@pytest.mark.parametrize("name", ["biblios", "scripts-and-scribes"])
def test_editions_write_the_printed_scoring_and_keep_their_hash(name: str, tmp_path: Path) -> None:
    document = read_file(ROOT / "rulesets" / f"{name}.yaml").data
    assert document["scoring"]["points"] == "die" and document["scoring"]["bonus"] == []
    ruleset = load_ruleset(name)
    assert ruleset.scoring.points is PointsRule.DIE and ruleset.scoring.bonus == ()
    rules = compile_rules(ruleset)
    assert rules.points == POINTS_DIE and rules.bonus == ()
    assert all(weights == () for weights in rules.tiebreak_weights)  # no count step
    # written or left out, the default hashes the same: records made before these keys still replay
    bare = dict(document, scoring={k: v for k, v in document["scoring"].items() if k not in ("points", "bonus")})
    assert content_hash(bare) == content_hash(document)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(bare, allow_unicode=True), encoding="utf-8")
    assert load_ruleset(path).content_hash == ruleset.content_hash
    changed = dict(document, scoring=dict(document["scoring"], points="die-times-cards"))
    assert content_hash(changed) != ruleset.content_hash


def test_the_printed_rule_gives_results_without_the_new_fields() -> None:
    ruleset = load_ruleset("biblios")
    state = new_game(ruleset, 3, 4)
    state.playout(random.Random(4))
    data = state.result().to_dict()
    assert "bonuses" not in data
    assert all(set(a) == {"place", "value", "winner", "by"} for c in data["categories"] for a in c["awards"])
    assert all(p["by"] is None or set(p["by"]) == {"by", "category"} for p in data["ranking"])


# ---------------------------------------------------------------- what a die is worth, and set bonuses


@pytest.mark.parametrize(("points", "expected"), [("die", 3), ("die-times-cards", 3 * 2), ("die-times-value", 3 * 5)])
def test_a_die_is_worth_its_face_or_its_face_times_cards_or_total(points: str, expected: int, tmp_path) -> None:
    ruleset = variant(tmp_path, f"scoring: {{points: {points}}}")
    monks2, monks3, monks4 = (
        card(ruleset, "monks", 2, "A"),
        card(ruleset, "monks", 3, "E"),
        card(ruleset, "monks", 4, "H"),
    )
    result = score(ruleset, [[monks2, monks3], [monks4]])
    (award,) = result.categories[0].awards
    assert award.winner == 0 and award.value == 3
    assert award.points == expected and award.multiplier == expected // 3
    assert result.victory_points == (expected, 0)
    shown = result.to_dict()["categories"][0]["awards"][0]
    assert shown.get("multiplier", 1) == expected // 3


def test_second_place_dice_multiply_by_their_own_takers_holding(tmp_path) -> None:
    ruleset = load_ruleset(LIBRARY, [BOOKS])
    base = variant(tmp_path, "dice: [{place: 1, start: 3, min: 1, max: 6}, {place: 2, start: 2, min: 1, max: 6}]\n"
                             "scoring: {points: die-times-cards}")  # fmt: skip
    assert ruleset.scoring.points is PointsRule.DIE_TIMES_CARDS
    hands = [[card(base, "monks", 4, "H")], [card(base, "monks", 2, "A"), card(base, "monks", 1 + 1, "B")]]
    result = score(base, hands, face=2)
    first, second = result.categories[0].awards
    assert (first.winner, first.points) == (1, 2 * 2) and (second.winner, second.points) == (0, 2 * 1)


def test_a_set_bonus_goes_to_the_winner_of_every_category_of_the_set() -> None:
    library, biblios = load_ruleset(LIBRARY), load_ruleset("biblios")
    books = [card(library, c, 1, "A") for c in ("holy-books", "manuscripts", "forbidden-tomes")]
    hands = [books, [card(library, "monks", 2, "A")]]
    assert score(biblios, hands).victory_points == (9, 3)
    result = score(library, hands)
    assert result.victory_points == (9 + 3, 3)
    assert result.bonuses == (BonusAward(0, 3, (0,)),)
    assert result.to_dict()["bonuses"] == [{"bonus": 0, "points": 3, "players": [0]}]
    # two of the three books are not enough, whoever holds the third
    split = [books[:2], [books[2], card(library, "monks", 2, "A")]]
    assert score(library, split).victory_points == (6, 6)
    assert score(library, split).bonuses == (BonusAward(0, 3, ()),)


def test_at_least_lets_several_players_take_the_same_bonus(tmp_path) -> None:
    ruleset = variant(tmp_path, "scoring: {bonus: [{categories: [monks, pigments, holy-books, manuscripts], "
                                "at_least: 2, points: 2}]}")  # fmt: skip
    assert ruleset.scoring.bonus == (SetBonus(("monks", "pigments", "holy-books", "manuscripts"), 2, 2),)
    hands = [
        [card(ruleset, "monks", 2, "A"), card(ruleset, "pigments", 2, "A")],
        [card(ruleset, "holy-books", 1, "A"), card(ruleset, "manuscripts", 1, "A")],
        [card(ruleset, "forbidden-tomes", 1, "A")],
    ]
    result = score(ruleset, hands)
    assert result.victory_points == (6 + 2, 6 + 2, 3)
    assert result.bonuses[0].players == (0, 1)


# ---------------------------------------------------------------- count steps of the final tie-break


def test_most_gold_cards_is_not_most_gold() -> None:
    counting, biblios = load_ruleset(COUNTING), load_ruleset("biblios")
    gold3, gold1, gold2 = card(biblios, None, 3), card(biblios, None, 1), card(biblios, None, 2)
    hands = [[gold3, card(biblios, "monks", 2, "A")], [gold1, gold2, card(biblios, "pigments", 2, "A")]]
    printed = score(biblios, hands)
    assert printed.victory_points == (3, 3) and printed.gold == (3, 3)
    assert printed.winners == (0,) and printed.ranking[0].by == TieBreak(TieBreakBy.CATEGORY_TOTAL, "monks")
    counted = score(counting, hands)
    assert counted.winners == (1,)
    assert counted.ranking[0].by == TieBreak(TieBreakBy.CARDS, kind=CardKind.GOLD)
    assert counted.to_dict()["ranking"][0]["by"] == {
        "by": "cards",
        "category": None,
        "fewest": False,
        "kind": "gold",
        "value": None,
    }


def test_fewest_cards_in_hand_then_most_cards_of_each_category() -> None:
    ruleset = load_ruleset(COUNTING)
    gold = [
        card(ruleset, None, 1),
        card(ruleset, None, 1, skip=1),
        card(ruleset, None, 2),
        card(ruleset, None, 2, skip=1),
    ]
    lean = [gold[0], gold[1], card(ruleset, "monks", 4, "H")]
    broad = [gold[2], gold[3], card(ruleset, "pigments", 2, "A"), card(ruleset, "pigments", 2, "B")]
    result = score(ruleset, [broad, lean])
    assert result.victory_points == (3, 3)
    assert result.winners == (1,) and result.ranking[0].by == TieBreak(TieBreakBy.CARDS, fewest=True)
    # the same hand sizes: the most Monks cards decides (the first category in board order that differs)
    two_monks = [gold[0], gold[1], card(ruleset, "monks", 2, "A"), card(ruleset, "monks", 2, "B")]
    again = score(ruleset, [broad, two_monks])
    assert again.winners == (1,)
    assert again.ranking[0].by == TieBreak(TieBreakBy.CARDS, "monks", kind=CardKind.CATEGORY)


def test_a_count_of_cards_of_one_value_and_a_lowest_total(tmp_path) -> None:
    ruleset = variant(tmp_path, "scoring: {final_tiebreak: [{fewest: value, kind: gold}, "
                                "{most: cards, kind: category, value: 1}]}")  # fmt: skip
    steps = ruleset.scoring.final_tiebreak
    assert steps == (
        TieBreak(TieBreakBy.VALUE, fewest=True, kind=CardKind.GOLD),
        TieBreak(TieBreakBy.CARDS, kind=CardKind.CATEGORY, value=1),
    )
    poor = [card(ruleset, None, 1), card(ruleset, "holy-books", 1, "A")]
    rich = [card(ruleset, None, 3), card(ruleset, "manuscripts", 1, "A"), card(ruleset, "manuscripts", 1, "B")]
    first = score(ruleset, [rich, poor])
    assert first.winners == (1,) and first.ranking[0].by == steps[0]  # less Gold wins the first step
    even = [card(ruleset, None, 3, skip=1), card(ruleset, "holy-books", 1, "A")]
    second = score(ruleset, [rich, even])
    assert second.winners == (0,) and second.ranking[0].by == steps[1]  # two cards of value 1 against one


# ---------------------------------------------------------------- the rulebook, rules diff and explain

RULEBOOK = {
    "en": ("Most Gold cards Fewest cards in their hand Most Monks cards", "", "",
           "Set bonus: a player who wins each of the categories Holy Books, Manuscripts, and Forbidden Tomes "
           "scores an extra 3 Victory Points.",
           "they score its face multiplied by the number of cards they hold in that category, in Victory Points"),
    "fr": ("Le plus de cartes Or Le moins de cartes dans sa réserve Le plus de cartes Moines", "", "",
           "Bonus de collection\u202f: un joueur qui remporte chacune des catégories Livres Sacrés, Manuscrits et "
           "Grimoires Interdits marque 3 Points de Victoire de plus.",
           "il marque sa face multipliée par le nombre de cartes qu'il possède dans cette catégorie, en Points de "
           "Victoire"),
    "es": ("Más cartas de Oro Menos cartas en su mano Más cartas de Monjes", "", "",
           "Bonificación de colección: quien gana cada una de las categorías Libros Sagrados, Manuscritos y Tomos "
           "Prohibidos suma 3 Puntos de Victoria más.",
           "suma el número que marque multiplicado por el número de cartas que tiene en esa categoría, en Puntos de "
           "Victoria"),
}  # fmt: skip


def _section(ruleset: Ruleset, section: str, lang: str) -> str:
    return " ".join(render_rulebook(ruleset, lang).section(section).lines())


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_rulebook_states_the_scoring_in_three_languages(lang: str) -> None:
    gold, fewest, monks, bonus, times = RULEBOOK[lang]
    ties = _section(load_ruleset(COUNTING), "ties", lang)
    assert gold in ties and fewest in ties and monks in ties
    assert bonus in _section(load_ruleset(LIBRARY), "scoring", lang)
    multiplied = _section(load_ruleset(LIBRARY, [BOOKS]), "scoring", lang)
    assert times in multiplied and bonus in multiplied
    printed = _section(load_ruleset("biblios"), "scoring", lang)
    assert bonus not in printed and times not in printed


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_rules_diff_and_explain_show_the_scoring(lang: str) -> None:
    biblios = load_ruleset("biblios")
    counting = {d.key: d for d in diff_rulesets(biblios, load_ruleset(COUNTING), lang)}
    assert {"en": "most Gold cards → fewest cards in their hand → most Monks cards", "fr": "le plus de cartes Or → "
            "le moins de cartes dans sa réserve → le plus de cartes Moines", "es": "más cartas de Oro → menos cartas "
            "en su mano → más cartas de Monjes"}[lang] in counting["scoring:tiebreak"].right  # fmt: skip
    library = {d.key: d for d in diff_rulesets(biblios, load_ruleset(LIBRARY, [BOOKS]), lang)}
    assert set(library) >= {"scoring:bonus", "scoring:points"}
    assert library["scoring:bonus"].right.endswith(": 3")
    assert library["scoring:bonus"].left == {"en": "none", "fr": "aucun", "es": "ninguna"}[lang]
    assert "×" in library["scoring:points"].right and "×" not in library["scoring:points"].left
    assert section_of("scoring:bonus") == section_of("scoring:points") == "scoring"
    changes = explain_changes(biblios, load_ruleset(LIBRARY), lang)
    assert [change.section.id for change in changes if change.section.id != "options"] == ["scoring"]
    assert [d.key for d in changes[0].differences] == ["scoring:bonus"]
    assert not any(d.key.startswith("scoring") for d in diff_rulesets(biblios, load_ruleset("scripts-and-scribes"), lang)
                   if d.key != "scoring:tiebreak")  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_a_count_step_is_named_where_a_result_is_shown(lang: str) -> None:
    ruleset = load_ruleset(COUNTING)
    step = ruleset.scoring.final_tiebreak[0]
    expected = {"en": "tie-break: most Gold cards", "fr": "départage\u202f: le plus de cartes Or",
                "es": "desempate: más cartas de Oro"}[lang]  # fmt: skip
    assert tiebreak_text(ruleset, step, lang) == expected
    # the replay report reads the result's JSON, where a count step keeps its filters
    state = None
    for seed in range(400):
        game = new_game(ruleset, 2, seed)
        game.playout(random.Random(seed))
        if game.result().ranking[0].by == step:
            state = game
            break
    assert state is not None, "no game of 400 decided by the most Gold cards"
    data = {
        "players": 2,
        "seed": seed,
        "actions": len(state.actions),
        "options": [],
        "result": state.result().to_dict(),
    }
    with in_language(lang):
        text = render_text(data, state)
    assert {"en": "most Gold cards", "fr": "le plus de cartes Or", "es": "más cartas de Oro"}[lang] in text


# ---------------------------------------------------------------- the bots read the ruleset's scoring


def test_at_least_chance_is_the_exact_poisson_binomial() -> None:
    rng = random.Random(3)
    for _ in range(40):
        probs = [rng.random() for _ in range(rng.randint(0, 5))]
        for need in range(len(probs) + 2):
            exact = 0.0
            for outcome in itertools.product((0, 1), repeat=len(probs)):
                if sum(outcome) >= need:
                    chance = 1.0
                    for p, won in zip(probs, outcome):
                        chance *= p if won else 1.0 - p
                    exact += chance
            assert at_least_chance(probs, need) == pytest.approx(exact, abs=1e-12)


def _observations(ruleset: Ruleset, players: int, seed: int, every: int = 9):  # type: ignore[no-untyped-def]
    state = new_game(ruleset, players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_terminal():
        seat = state.current_player
        assert seat is not None
        if step % every == 0:
            yield state.actions[:], state.observation(seat)
        state.apply(state.random_action(rng))
        step += 1


def test_the_estimate_prices_dice_and_bonuses_as_the_ruleset_scores_them() -> None:
    # Scoring changes no legal action: the same actions play the same game under each ruleset.
    biblios, library, books = load_ruleset("biblios"), load_ruleset(LIBRARY), load_ruleset(LIBRARY, [BOOKS])
    assert compile_rules(books).points == POINTS_TIMES_CARDS
    more = multiplied = 0
    for actions, observation in _observations(library, 3, 5):
        seen = {}
        for ruleset in (biblios, library, books):
            state = new_game(ruleset, 3, 5)
            for action in actions:
                state.apply(action)
            obs = state.observation(observation.player)
            estimate = Estimate(compile_rules(ruleset), obs)
            seen[ruleset.id + "+".join(ruleset.active_options)] = estimate
            # a change of nothing is worth nothing: the bonus and multipliers are taken out and put back exactly
            for k in range(estimate.rules.n_cats):
                mine, theirs = estimate.category_value(k, 0)
                assert mine == pytest.approx(0.0, abs=1e-9) and theirs == pytest.approx(0.0, abs=1e-9)
        plain, bonus, times = seen["biblios"], seen[LIBRARY], seen[LIBRARY + BOOKS]
        assert all(b >= p - 1e-12 for b, p in zip(bonus.ev, plain.ev))  # a bonus only adds
        assert all(t >= b - 1e-12 for t, b in zip(times.ev, bonus.ev))  # multipliers are at least 1
        more += any(b > p + 1e-9 for b, p in zip(bonus.ev, plain.ev))
        multiplied += any(t > b + 1e-9 for t, b in zip(times.ev, bonus.ev))
    assert more > 3 and multiplied > 3


def test_a_categorys_share_of_a_bonus_is_exact_while_only_its_chances_change(tmp_path) -> None:
    ruleset = variant(tmp_path, "scoring: {bonus: [{categories: [monks, pigments, holy-books, manuscripts], "
                                "at_least: 2, points: 4}, {categories: [monks, forbidden-tomes], points: 3}]}")  # fmt: skip
    rules = compile_rules(ruleset)
    rng = random.Random(8)
    for _ in range(30):
        first = [[rng.random() / 3 for _q in range(3)] for _k in range(rules.n_cats)]
        expected, slope = bonus_terms(rules, first, 3)
        for k in range(rules.n_cats):
            moved = [row[:] for row in first]
            for q in range(3):
                moved[k][q] = rng.random() / 3
            after, _slope = bonus_terms(rules, moved, 3)
            for q in range(3):
                change = slope[k][q] * (moved[k][q] - first[k][q])
                assert after[q] - expected[q] == pytest.approx(change, abs=1e-12)


@pytest.mark.parametrize(("name", "options"), [(COUNTING, ()), (LIBRARY, ()), (LIBRARY, (BOOKS,))])
@pytest.mark.parametrize("bot", ["random", "easy", "medium", "hard:iterations=20"])
def test_bots_play_whole_games(name: str, options: tuple[str, ...], bot: str) -> None:
    ruleset = load_ruleset(name, list(options))
    bots = [make_bot(bot if seat == 0 else "medium", seat, ruleset) for seat in range(3)]
    state = new_game(ruleset, 3, 11)
    while not state.is_terminal():
        seat = state.current_player
        assert seat is not None
        action = bots[seat].choose(state.observation(seat))
        assert state.is_legal(action)
        state.apply(action)
    check_invariants(state)
    result = state.result()
    awarded = sum(a.points for c in result.categories for a in c.awards) + sum(
        b.points * len(b.players) for b in result.bonuses
    )
    assert sum(result.victory_points) == awarded


def test_each_form_of_bonus_has_its_sentence(tmp_path) -> None:
    ruleset = variant(
        tmp_path,
        """
        scoring:
          bonus:
            - {categories: [monks], points: 1}
            - {categories: [monks, pigments, holy-books], at_least: 2, points: 2}
        """,
    )
    scoring = _section(ruleset, "scoring", "en")
    assert "Bonus: a player who wins the category Monks scores an extra 1 Victory Point." in scoring
    assert (
        "Set bonus: a player who wins at least 2 of the categories Monks, Pigments, and Holy Books scores an extra "
        "2 Victory Points." in scoring
    )
    french = _section(ruleset, "scoring", "fr")
    assert "Bonus\u202f: un joueur qui remporte la catégorie Moines marque 1 Point de Victoire de plus." in french


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_an_award_says_what_a_multiplied_die_gave(lang: str) -> None:
    ruleset = load_ruleset(LIBRARY, [BOOKS])
    hands = [[card(ruleset, "monks", 2, "A"), card(ruleset, "monks", 2, "B")], [card(ruleset, "monks", 3, "E")]]
    result = score(ruleset, hands, face=4)
    category = result.categories[0]
    (award,) = category.awards
    reason = award_reason(ruleset, award, category.totals, category.best_letters, ["Ana", "Bruno"], lang)
    assert (
        reason
        == {
            "en": "Ana (total 4); 4 × 2 = 8 Victory Points",
            "fr": "Ana (total 4)\u202f; 4 × 2 = 8 Points de Victoire",
            "es": "Ana (total 4); 4 × 2 = 8 Puntos de Victoria",
        }[lang]
    )
    printed = score(load_ruleset("biblios"), hands, face=4).categories[0]
    assert (
        award_reason(ruleset, printed.awards[0], printed.totals, printed.best_letters, ["Ana", "Bruno"], lang)
        == (reason.split(";")[0].split("\u202f")[0])
    )


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_end_screens_name_each_set_bonus_and_who_scored_it(lang: str) -> None:
    from biblios_kit.engine.scoring import BonusAward
    from biblios_kit.rulebook.describe import bonus_award_text

    ruleset = load_ruleset("complete-library")
    names = ["Ana", "Zed", "Cy"]
    scored = bonus_award_text(ruleset, BonusAward(0, 3, (1,)), names, lang)
    nobody = bonus_award_text(ruleset, BonusAward(0, 3, ()), names, lang)
    for text in (scored, nobody):
        for category in ruleset.scoring.bonus[0].categories:
            assert ruleset.category(category).name.get(lang) in text
    assert "Zed" in scored and "+3" in scored and ruleset.term("victory_points", lang).lower() in scored.lower()
    assert "Zed" not in nobody and {"en": "nobody", "fr": "personne", "es": "nadie"}[lang] in nobody
