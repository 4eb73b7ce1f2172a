"""Loading: extends and merge semantics, options, user folder, content hash and cache correctness."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from biblios_kit.errors import RulesetError
from biblios_kit.i18n import use_language
from biblios_kit.rules import available_rulesets, load_ruleset
from biblios_kit.rules.loader import resolve_ruleset
from biblios_kit.rules.merge import deep_merge
from biblios_kit.rules.model import CardKind, PenaltyKind

ROOT = Path(__file__).resolve().parent.parent
BIBLIOS = ROOT / "rulesets" / "biblios.yaml"
HEAD = "id: {id}\ntitle: {{en: T, fr: T, es: T}}\ndescription: {{en: D, fr: D, es: D}}\n"


@pytest.fixture(autouse=True)
def _config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(folder))
    use_language("en")
    return folder


def variant(tmp_path: Path, name: str, body: str, extends: str = "biblios") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"extends: {extends}\n" + HEAD.format(id=name) + body, encoding="utf-8")
    return path


def test_deep_merge_semantics() -> None:
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 2, "c": {"d": 1}}
    patch = {"a": {"y": [3], "z": {"k": None, "m": 1}}, "b": None, "e": 5}
    assert deep_merge(base, patch) == {"a": {"x": 1, "y": [3], "z": {"m": 1}}, "c": {"d": 1}, "e": 5}
    assert base == {"a": {"x": 1, "y": [1, 2]}, "b": 2, "c": {"d": 1}}


def test_variant_adds_replaces_and_removes(tmp_path: Path) -> None:
    body = "setup:\n  2: null\n  4: {remove_random: 2, starting_hand: 1}\nchurch:\n  cards:\n    raise-or-lower-one: null\n"
    ruleset = load_ruleset(variant(tmp_path, "mixed", body))
    assert ruleset.player_counts == (3, 4)
    setup = ruleset.setups[4]
    assert (setup.remove_random, setup.starting_hand, setup.gift_cards) == (2, 1, 5)
    assert sum(card.kind is CardKind.CHURCH for card in ruleset.deck) == 8
    assert len(ruleset.deck) == 86
    assert ruleset.extends == ("biblios",)
    assert ruleset.id == "mixed" and ruleset.aliases == ()  # aliases are not inherited
    assert set(ruleset.options) == {"medieval-bluff", "refuse-to-pay"}


def test_the_rulebook_title_gloss_is_the_edition_s_own(tmp_path: Path) -> None:
    """The French rulebook of Scripts & Scribes glosses its name in its title only; a variant, named anew,
    does not inherit the gloss (unless it sets its own), and the gloss is no rule (the content hash keeps)."""
    from biblios_kit.rulebook.render import render_rulebook

    edition = load_ruleset("scripts-and-scribes")
    assert edition.rulebook_name("fr") == "Scripts & Scribes (Écrivains & Scribes)"
    assert edition.rulebook_name("en") == edition.rulebook_name("es") == "Scripts & Scribes" == edition.title.get("fr")
    assert render_rulebook(edition, "fr").title.startswith("Scripts & Scribes (Écrivains & Scribes)")
    assert "Écrivains" not in render_rulebook(edition, "en").title
    plain = load_ruleset(variant(tmp_path, "plain", "", extends="scripts-and-scribes"))
    assert dict(plain.rulebook_title) == {} and plain.rulebook_name("fr") == plain.title.get("fr")
    (tmp_path / "glossed").mkdir()  # the same id in another folder: only the gloss differs
    glossed = load_ruleset(
        variant(tmp_path / "glossed", "plain", "rulebook_title: {fr: Mes règles}\n", extends="scripts-and-scribes")
    )
    assert glossed.rulebook_name("fr") == "Mes règles" and glossed.content_hash == plain.content_hash


def test_variant_chain_by_relative_path_and_option_default(tmp_path: Path) -> None:
    first = variant(tmp_path, "first", "penalty: {kind: none}\n")
    (tmp_path / "sub").mkdir()
    second = variant(
        tmp_path / "sub", "second", "options:\n  medieval-bluff: {default: true}\n", extends="../first.yaml"
    )
    ruleset = load_ruleset(second)
    assert ruleset.extends == ("first", "biblios")
    assert ruleset.active_options == {"medieval-bluff"}
    assert ruleset.penalty.kind is PenaltyKind.MEDIEVAL_BLUFF
    assert load_ruleset(first).penalty.kind is PenaltyKind.NONE


def test_shipped_variants_are_found_by_id() -> None:
    origins = {entry.id: entry.origin for entry in available_rulesets()}
    assert origins["biblios"] == origins["scripts-and-scribes"] == "edition"
    assert origins["second-place-dice"] == origins["five-six-players"] == "variant"


def test_user_folder_files_are_found_by_id(_config: Path) -> None:
    folder = _config / "rulesets"
    folder.mkdir(parents=True)
    (folder / "mine.yaml").write_text("extends: scripts-and-scribes\n" + HEAD.format(id="mine") + "aliases: [my]\n")
    (folder / "broken.yaml").write_text("id: [unclosed\n")
    entries = {entry.id: entry for entry in available_rulesets()}
    assert entries["mine"].origin == "user" and entries["mine"].aliases == ("my",)
    assert resolve_ruleset("my") == (folder / "mine.yaml").resolve()
    ruleset = load_ruleset("mine")
    assert ruleset.extends == ("scripts-and-scribes",)
    assert ruleset.categories[0].id == "illuminators"


def canonical_hash(path: Path) -> str:
    return load_ruleset(path).content_hash


def test_content_hash_ignores_key_order_comments_and_location(tmp_path: Path) -> None:
    shipped = load_ruleset("biblios").content_hash
    data = yaml.safe_load(BIBLIOS.read_text(encoding="utf-8"))
    reordered = {key: data[key] for key in reversed(list(data))}
    reordered["church"]["cards"] = dict(reversed(list(reordered["church"]["cards"].items())))
    other = tmp_path / "elsewhere" / "copy.yaml"
    other.parent.mkdir()
    other.write_text(yaml.safe_dump(reordered, allow_unicode=True, sort_keys=False), encoding="utf-8")
    copied = load_ruleset(other)
    assert copied.content_hash == shipped
    assert copied.deck == load_ruleset("biblios").deck  # card ids do not depend on key order either
    plain_copy = tmp_path / "plain.yaml"
    shutil.copy(BIBLIOS, plain_copy)
    assert canonical_hash(plain_copy) == shipped


def test_content_hash_changes_with_any_rule_and_with_options(tmp_path: Path) -> None:
    plain = load_ruleset("biblios").content_hash
    assert load_ruleset("biblios", ["refuse-to-pay"]).content_hash != plain
    assert (
        load_ruleset("biblios", ["refuse-to-pay"]).content_hash
        != load_ruleset("biblios", ["medieval-bluff"]).content_hash
    )
    text = BIBLIOS.read_text(encoding="utf-8")
    for old, new in [("opening_bid: 1", "opening_bid: 2"), ("HI}", "IH}"), ("gift_cards: 5", "gift_cards: 6")]:
        changed = tmp_path / f"changed-{len(old)}-{new[-2:]}.yaml"
        changed.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert canonical_hash(changed) != plain, new


def test_cache_follows_file_changes_including_the_base(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    shutil.copy(BIBLIOS, base)
    child = variant(tmp_path, "child", "auction: {opening_bid: 2}\n", extends="base.yaml")
    first = load_ruleset(child)
    assert load_ruleset(child) is first  # cached while nothing changes
    assert first.auction.opening_bid == 2 and first.penalty.exclude_from_reauction is True
    # Same size, same second: only a digest of the bytes can tell.
    base.write_text(
        base.read_text(encoding="utf-8").replace("exclude_from_reauction: true", "exclude_from_reauction: fals")
    )
    with pytest.raises(RulesetError):
        load_ruleset(child)
    base.write_text(
        base.read_text(encoding="utf-8").replace("exclude_from_reauction: fals", "exclude_from_reauction: false")
    )
    assert load_ruleset(child).penalty.exclude_from_reauction is False
    child.write_text(child.read_text(encoding="utf-8").replace("opening_bid: 2", "opening_bid: 3"))
    assert load_ruleset(child).auction.opening_bid == 3


def test_option_layers_are_applied_in_declared_order_whatever_the_request_order() -> None:
    one = load_ruleset("biblios", ["refuse-to-pay", "medieval-bluff"])
    two = load_ruleset("biblios", ["medieval-bluff", "refuse-to-pay"])
    assert one is two
    assert one.auction.refuse_to_pay and one.penalty.kind is PenaltyKind.MEDIEVAL_BLUFF


def test_ruleset_is_immutable() -> None:
    ruleset = load_ruleset("biblios")
    with pytest.raises(AttributeError):
        ruleset.id = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        ruleset.setups[5] = ruleset.setups[4]  # type: ignore[index]
    assert hash(ruleset) == hash(load_ruleset("bib"))


def test_removing_an_unknown_field_is_reported_at_its_line(tmp_path: Path) -> None:
    path = variant(tmp_path, "removal", "penalty:\n  knd: null\n")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:6:3: penalty.knd: unknown field 'knd'; did you mean 'kind'?"
    ]


def test_problem_messages_follow_the_language(tmp_path: Path) -> None:
    path = variant(tmp_path, "typo", "penalty:\n  knd: none\n")
    with pytest.raises(RulesetError) as caught:
        load_ruleset(path)
    (problem,) = caught.value.problems
    english = str(problem)
    use_language("fr")
    try:
        from biblios_kit.rules.loader import check_file

        (french,) = check_file(path)
        french_text = str(french)
        shown_later = str(problem)  # a problem is data: read now, it is in French too
    finally:
        use_language("en")
    assert english == f"{path}:6:3: penalty.knd: unknown field 'knd'; did you mean 'kind'?"
    assert french == problem and (problem.code, dict(problem.fields)) == (
        "unknown-name-close",
        {"what": "field", "name": "knd", "close": "kind"},
    )
    assert (
        french_text
        == shown_later
        == f"{path}:6:3: penalty.knd: introuvable\u202f: champ 'knd'\u202f; vouliez-vous dire 'kind'\u202f?"
    )


def test_content_hash_ignores_names_terms_and_descriptions(tmp_path: Path) -> None:
    """A translation fix is not a rule change: records keep replaying (docs/game-records.md)."""
    plain = load_ruleset("biblios").content_hash
    data = yaml.safe_load(BIBLIOS.read_text(encoding="utf-8"))
    data["title"]["fr"] = "Biblios (nouvelle traduction)"
    data["terms"]["victory_points"]["fr"] = {"text": "Points", "number": "plural", "one": "Point"}
    data["description"]["es"] = "Otra descripción."
    first = next(iter(data["categories"]))
    data["categories"][first]["name"]["en"] = "Renamed"
    data["categories"][first]["colour"] = "#123456"
    data["options"]["refuse-to-pay"]["title"]["en"] = "Another title"
    reworded = tmp_path / "reworded.yaml"
    reworded.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert canonical_hash(reworded) == plain
    data["categories"][first]["order"] = 99
    reordered = tmp_path / "reordered.yaml"
    reordered.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    assert canonical_hash(reordered) != plain
