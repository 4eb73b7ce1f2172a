"""Records that replay anywhere: a game of a ruleset that is not shipped carries the ruleset itself."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from biblios_kit.cli.app import build_app
from biblios_kit.engine.records import (
    embedded_ruleset,
    from_json,
    is_shipped,
    load_record,
    record_of,
    replay,
    save_record,
)
from biblios_kit.engine.state import new_game
from biblios_kit.errors import RecordError
from biblios_kit.lab.plan import _plain
from biblios_kit.resources import user_rulesets_dir
from biblios_kit.rules import load_ruleset
from biblios_kit.rules.build import build_ruleset, content_hash


@pytest.fixture(autouse=True)
def _own_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Your own rulesets folder is the test's, never the real one."""
    monkeypatch.setenv("BIBLIOS_KIT_CONFIG_DIR", str(tmp_path / "config"))


VARIANT = """\
extends: biblios
id: table-rules
version: "1.0"
title: {en: Table rules, fr: Règles de table, es: Reglas de mesa}
description: {en: Ours., fr: Les nôtres., es: Las nuestras.}
auction:
  overpay: forbidden
  all_pass: active-takes
penalty:
  kind: none
"""


def _variant_file(folder: Path, body: str = VARIANT) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "table-rules.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def _finished_record(path: Path, out: Path, options: tuple[str, ...] = ()) -> tuple[Path, Any]:
    state = new_game(load_ruleset(path, options), 3, 21)
    state.playout(random.Random(21))
    return save_record(record_of(state, ["random"] * 3), out), state.result()


def _document(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _rewrite(path: Path, change: Any) -> Path:
    document = _document(path)
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_shipped_rulesets_are_named_not_embedded() -> None:
    for name, options in (("biblios", ()), ("biblios", ("medieval-bluff",)), ("second-place-dice", ())):
        ruleset = load_ruleset(name, options)
        assert is_shipped(ruleset)
        record = record_of(new_game(ruleset, 3, 1))
        assert record.ruleset_document is None and record.version == 1
        assert "document" not in record.to_json()["ruleset"]


def test_a_changed_copy_of_a_shipped_ruleset_is_embedded() -> None:
    """Same id as the edition, other rules (as the balance lab builds them): embedded."""
    document = _plain(load_ruleset("biblios").document)
    document["auction"]["overpay"] = "forbidden"
    changed = build_ruleset(document, active_options=())
    assert changed.id == "biblios" and not is_shipped(changed)
    record = record_of(new_game(changed, 3, 1))
    assert record.ruleset_document is not None
    assert replay(from_json(record.to_json())).ruleset.content_hash == changed.content_hash


def test_a_variant_record_replays_from_another_folder_without_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variant = _variant_file(tmp_path / "house")
    record_path, result = _finished_record(variant, tmp_path / "games" / "game.json", ("medieval-bluff",))
    document = _document(record_path)
    assert document["version"] == 2
    embedded = document["ruleset"]["document"]
    assert embedded["id"] == "table-rules" and embedded["auction"]["overpay"] == "forbidden"
    assert embedded["active_options"] == ["medieval-bluff"] == document["ruleset"]["options"]
    variant.unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = CliRunner().invoke(build_app(), ["replay", str(record_path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["ruleset"] == "table-rules" and data["finished"] and data["ruleset_embedded"]
    assert data["result"]["victory_points"] == list(result.victory_points)
    text = CliRunner().invoke(build_app(), ["replay", str(record_path), "--log", "--lang", "fr"])
    assert text.exit_code == 0 and "Règles de table" in text.stdout


def test_the_embedded_ruleset_wins_over_a_changed_file_of_the_same_id(tmp_path: Path) -> None:
    variant = _variant_file(tmp_path / "house")
    record_path, _result = _finished_record(variant, tmp_path / "game.json")
    # The file changes afterwards, and a copy with the same id lands in the user's folder.
    changed = VARIANT.replace("kind: none", "kind: standard")
    variant.write_text(changed, encoding="utf-8")
    _variant_file(user_rulesets_dir(), changed)
    state = replay(load_record(record_path))
    assert state.ruleset.penalty.kind.value == "none"


def test_simulate_records_of_a_variant_file_replay_anywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = _variant_file(tmp_path / "house")
    records = tmp_path / "records"
    run = CliRunner().invoke(
        build_app(),
        ["simulate", "--ruleset", str(variant), "--games", "2", "--players", "3", "--records", str(records), "--json"],
    )
    assert run.exit_code == 0, run.output
    variant.unlink()
    monkeypatch.chdir(tmp_path)
    for path in sorted(records.iterdir()):
        out = CliRunner().invoke(build_app(), ["replay", str(path), "--json"])
        assert out.exit_code == 0, out.output
        assert json.loads(out.stdout)["finished"]


def test_a_changed_embedded_rule_fails_with_the_hash_error(tmp_path: Path) -> None:
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    _rewrite(record_path, lambda d: d["ruleset"]["document"]["auction"].update(overpay="lost"))
    out = CliRunner().invoke(build_app(), ["replay", str(record_path)])
    assert out.exit_code == 2 and "Traceback" not in out.output
    assert "ruleset 'table-rules' has changed since this game was recorded" in out.stderr
    assert str(record_path) in out.stderr


def _with_hash(change: Any) -> Any:
    """A change to the embedded ruleset that also updates the record's content hash."""

    def apply(document: dict[str, Any]) -> None:
        change(document["ruleset"]["document"])
        document["ruleset"]["content_hash"] = content_hash(document["ruleset"]["document"])

    return apply


@pytest.mark.parametrize(
    ("change", "code", "words"),
    [
        (
            lambda r: r["auction"].update(overpay="whenever"),
            "record-embedded-invalid",
            "ruleset.document: auction.overpay:",
        ),
        (lambda r: r["setup"]["3"].update(remove_random=500), "record-embedded-invalid", "setup.3"),
        (lambda r: r.update(id="other-rules"), "record-embedded-mismatch", "not ruleset 'table-rules'"),
        (lambda r: r.update(active_options=["medieval-bluff"]), "record-embedded-mismatch", "options"),
        (lambda r: r.pop("active_options"), "record-embedded-mismatch", "options"),
    ],
)
def test_an_embedded_ruleset_is_checked_again(tmp_path: Path, change: Any, code: str, words: str) -> None:
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    _rewrite(record_path, _with_hash(change))
    with pytest.raises(RecordError) as caught:
        replay(load_record(record_path), where=str(record_path))
    assert caught.value.code == code
    assert words in str(caught.value) and str(record_path) in str(caught.value)


@pytest.mark.parametrize("bad", [[], "biblios", 3, None])
def test_a_malformed_embedded_ruleset_is_refused(tmp_path: Path, bad: object) -> None:
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    _rewrite(record_path, lambda d: d["ruleset"].update(document=bad))
    if bad is None:  # no document: the id is looked up, and no ruleset has it
        with pytest.raises(RecordError, match="cannot load ruleset 'table-rules'"):
            replay(load_record(record_path))
        return
    with pytest.raises(RecordError, match=r"'ruleset\.document' must be an object"):
        load_record(record_path)


def test_a_version_1_record_cannot_embed(tmp_path: Path) -> None:
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    _rewrite(record_path, lambda d: d.update(version=1))
    with pytest.raises(RecordError, match=r"'ruleset\.document' needs record format version 2"):
        load_record(record_path)


def test_an_oversized_embedded_ruleset_is_refused(tmp_path: Path) -> None:
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    padding = "x" * (1024 * 1024)
    _rewrite(record_path, _with_hash(lambda r: r["description"].update(en=padding)))
    with pytest.raises(RecordError, match=r"'ruleset\.document' is too long"):
        embedded_ruleset(load_record(record_path))


def test_a_ruleset_nested_as_deep_as_a_ruleset_file_may_be_is_read(tmp_path: Path) -> None:
    """The record reader's nesting limit leaves room for an embedded ruleset (a file may nest 32 levels)."""
    record_path, _result = _finished_record(_variant_file(tmp_path / "house"), tmp_path / "game.json")
    deep: Any = 1
    for _ in range(30):
        deep = [deep]
    _rewrite(record_path, _with_hash(lambda r: r.update(provenance={"notes": deep})))
    record = load_record(record_path)  # read; the ruleset's own checks decide about the field
    assert record.ruleset_document is not None
    with pytest.raises(RecordError) as caught:
        replay(record)
    assert caught.value.code == "record-embedded-invalid" and "provenance" in str(caught.value)
